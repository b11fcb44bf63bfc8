import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { NetworkConfig, ResolvedConfig } from '../config/schema.js';
import { InternalError } from '../errors.js';
import { runPath } from '../evidence/layout.js';
import type { NetworkRecord } from '../evidence/types.js';
import type { Disposer } from '../exec/disposer.js';
import type { SpawnSpec } from '../exec/types.js';
import { bridgeSpawn, EgressProxy, PROXY_SOCKET_NAME } from '../observe/proxy/index.js';
import { readHostPolicy } from '../policy/host-policy.js';
import type { SandboxChoice } from '../sandbox/select-sandbox.js';
import type { Sandbox, SandboxPlaces } from '../sandbox/types.js';

/** A sandbox session for setup's installs only: the run's sandbox, plus the caches, plus the mirrors. */
export type SetupSandbox = {
  wrap(spec: SpawnSpec): SpawnSpec;
  /** How setup reached the network, for setup.json. */
  network: string;
  /** Ends the session; returns the setup proxy's records (empty without one). */
  stop(): Promise<NetworkRecord[]>;
};

/** `host:port` of a mirror URL, as the proxy's allow list writes it. */
export function mirrorHost(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || (u.protocol === 'https:' ? '443' : '80')}`;
}

/**
 * Public registries whose downloads come from a second host of the same operator: PyPI's index links
 * to files.pythonhosted.org, and yarn 1 lockfiles name registry.yarnpkg.com (npm's registry under
 * yarn's name), which yarn fetches as written whatever the registry setting.
 */
const SAME_REGISTRY: Record<string, string> = {
  'pypi.org:443': 'files.pythonhosted.org:443',
  'registry.npmjs.org:443': 'registry.yarnpkg.com:443',
};

/** The hosts setup's proxy lets through for a mirror: its own, and its registry's download host. */
export function mirrorHosts(url: string): string[] {
  const host = mirrorHost(url);
  const files = SAME_REGISTRY[host];
  return files ? [host, files] : [host];
}

/**
 * Why this sandbox cannot give setup's mirrors a network, or null when it can. A sandbox that takes
 * the network away must bridge the harness's proxy; one on the host's network reaches them as it is.
 */
export function mirrorRefusal(sandbox: Sandbox): string | null {
  const can = sandbox.capabilities;
  if (!can.isolatesNetwork || can.bridgesProxy) return null;
  return `sandbox '${sandbox.kind}' takes the network away and cannot route setup through the harness's proxy, so a mirror is out of reach`;
}

/**
 * Starts a second session of the run's sandbox for `setup.dependencies`: the agent's session stays
 * as it is (it neither sees the caches nor gets the mirrors' network). The caches are shown
 * read-only at their own paths. With a mirror, a proxy of setup's own allows only the mirrors' hosts
 * (the sandbox reaches it through the usual bridge); its records are setup evidence, never the
 * agent's, and it is stopped before the agent starts. Without a mirror, setup has no network.
 */
export async function openSetupSandbox(
  req: SandboxPlaces & {
    cfg: ResolvedConfig;
    choice: SandboxChoice;
    caches: string[];
    mirrors: string[];
    disposer: Disposer;
  },
): Promise<SetupSandbox> {
  const sandbox = req.choice.sandbox;
  const hosts = [...new Set(req.mirrors.flatMap(mirrorHosts))];
  let network: NetworkConfig = { mode: 'none', allow: [], hosts: {} };
  let note = sandbox.capabilities.isolatesNetwork
    ? 'none'
    : `host: sandbox '${sandbox.kind}' cannot take the network away`;
  let proxy: EgressProxy | null = null;
  let proxyDir: string | undefined;
  if (hosts.length > 0) {
    const refused = mirrorRefusal(sandbox);
    if (refused) throw new InternalError(`${refused}; the run plan should have refused it`);
    if (sandbox.capabilities.bridgesProxy) {
      proxyDir = path.join(runPath(req.runDir, 'net'), 'setup');
      mkdirSync(proxyDir, { recursive: true });
      proxy = new EgressProxy({
        internalAllowed: readHostPolicy().network_hosts,
        allow: hosts,
        mode: 'allowlist',
        unixPath: path.join(proxyDir, PROXY_SOCKET_NAME),
      });
      await proxy.start();
      const started = proxy;
      req.disposer.add('setup proxy', () => started.stop());
      network = { mode: 'allowlist', allow: hosts, hosts: {} };
      note = `allowlist: only ${hosts.join(', ')}, through a proxy of setup's own`;
    }
  }
  const { cfg, choice: _c, caches, mirrors: _m, disposer: _d, ...places } = req;
  const session = await sandbox.start({
    ...places,
    // A name of its own: the session's resources (the pids cgroup) are not the agent session's.
    runId: `${req.runId}-setup`,
    visible: [...new Set([...req.visible, ...caches])],
    network,
    ...(proxyDir ? { proxyDir } : {}),
    ...(cfg.container ? { container: cfg.container } : {}),
    ...(cfg.microvm ? { microvm: cfg.microvm } : {}),
  });
  const held = req.disposer.add('setup sandbox', () => session.stop());
  return {
    network: note,
    wrap(spec) {
      if (!proxy) return session.wrap(spec);
      return session.wrap(spec, (command, dir) => {
        const bridged = bridgeSpawn(command, { proxySocket: `${dir}/${PROXY_SOCKET_NAME}` });
        // Every request goes through the proxy, a mirror on a loopback address included. Yarn 2+
        // reads no *_PROXY variable, only its own settings.
        const env: Record<string, string> = { ...bridged.env, NO_PROXY: '', no_proxy: '' };
        if (env.HTTP_PROXY) env.YARN_HTTP_PROXY = env.HTTP_PROXY;
        if (env.HTTPS_PROXY) env.YARN_HTTPS_PROXY = env.HTTPS_PROXY;
        return { ...bridged, env };
      });
    },
    async stop() {
      await held.release();
      const records = proxy ? await proxy.stop() : [];
      if (proxyDir) rmSync(proxyDir, { recursive: true, force: true });
      return records;
    },
  };
}
