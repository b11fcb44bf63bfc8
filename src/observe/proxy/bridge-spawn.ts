import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SpawnSpec } from '../../exec/types.js';
import { SETUP_TOKEN_VARIABLE } from './bridge-protocol.js';

/** Where the host's bridge directory appears inside the sandbox. */
export const SANDBOX_BRIDGE_DIR = '/run/agentguard';
export const PROXY_SOCKET_NAME = 'proxy.sock';
export const DNS_SOCKET_NAME = 'dns.sock';
export const RESOLV_CONF_NAME = 'resolv.conf';

/** Options for starting the agent behind the sandbox bridge. */
export type BridgeSpawnOptions = {
  /** Loopback port inside the sandbox for HTTP, CONNECT and SOCKS5 alike. Default 3128. */
  proxyPort?: number;
  /** The proxy's Unix socket as seen inside the sandbox. Default /run/agentguard/proxy.sock. */
  proxySocket?: string;
  /** The DNS responder's Unix socket inside the sandbox; when set, the bridge serves 127.0.0.1:53. */
  dnsSocket?: string;
  /** Compiled bridge script. Default: sandbox-bridge.js beside this module (dist/observe/proxy/). */
  bridgeScript?: string;
  /** Node binary visible inside the sandbox. Default: the harness's own. */
  node?: string;
  /** A secret the bridge quotes when it cannot start, so the harness can tell its failure from the agent's. */
  setupToken?: string;
};

/** The compiled bridge next to this module; under dist/ that is dist/observe/proxy/sandbox-bridge.js. */
export function bridgeScriptPath(): string {
  return fileURLToPath(new URL('./sandbox-bridge.js', import.meta.url));
}

/** Proxy variables that curl, git, pip, npm, Python and most HTTP libraries read. */
export function proxyEnv(port: number): Record<string, string> {
  const http = `http://127.0.0.1:${port}`;
  const socks = `socks5h://127.0.0.1:${port}`;
  const direct = 'localhost,127.0.0.1,::1';
  return {
    HTTP_PROXY: http,
    HTTPS_PROXY: http,
    http_proxy: http,
    https_proxy: http,
    ALL_PROXY: socks,
    all_proxy: socks,
    NO_PROXY: direct,
    no_proxy: direct,
  };
}

/**
 * Wraps a sandboxed spawn so that the bridge listens before the agent starts:
 * `node sandbox-bridge.js --tcp 3128:/run/agentguard/proxy.sock [--dns …] -- <agent argv>`.
 */
export function bridgeSpawn(spec: SpawnSpec, options: BridgeSpawnOptions = {}): SpawnSpec {
  const port = options.proxyPort ?? 3128;
  const proxySocket = options.proxySocket ?? `${SANDBOX_BRIDGE_DIR}/${PROXY_SOCKET_NAME}`;
  const argv = [options.node ?? process.execPath, options.bridgeScript ?? bridgeScriptPath()];
  argv.push('--tcp', `${port}:${proxySocket}`);
  if (options.dnsSocket !== undefined) argv.push('--dns', options.dnsSocket);
  argv.push('--', ...spec.argv);
  const token: Record<string, string> =
    options.setupToken === undefined ? {} : { [SETUP_TOKEN_VARIABLE]: options.setupToken };
  return { argv, cwd: spec.cwd, env: { ...spec.env, ...proxyEnv(port), ...token } };
}

/**
 * bwrap arguments that make the host's bridge directory (holding proxy.sock, dns.sock) visible at
 * /run/agentguard — read-only, so the agent cannot delete or swap the sockets (connect() still
 * works) — and, with DNS, point the resolver at the bridge. Append them after `--ro-bind / /`.
 * /run is replaced by a tmpfs because a read-only /run cannot take a new mount point (and the host's
 * /run holds sockets — D-Bus, databases — that an isolated agent should not reach anyway).
 * Writes `resolv.conf` into `hostDir` when `dns` is set.
 */
export function bridgeBwrapArgs(hostDir: string, options: { dns: boolean }): string[] {
  const args = ['--tmpfs', '/run', '--ro-bind', hostDir, SANDBOX_BRIDGE_DIR];
  if (!options.dns) return args;
  const resolvConf = join(hostDir, RESOLV_CONF_NAME);
  // No search domains: a relative name must not be retried with the host's suffixes.
  writeFileSync(resolvConf, 'nameserver 127.0.0.1\noptions attempts:1 timeout:2\n');
  return [...args, '--ro-bind', resolvConf, '/etc/resolv.conf'];
}
