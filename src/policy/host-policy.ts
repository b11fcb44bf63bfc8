import { lstatSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { loadYamlFile } from '../config/load-yaml-file.js';
import { ConfigError } from '../errors.js';
import { canonicalIp, normalizeHost } from '../observe/proxy/allow-list.js';
import { internalAllowed, isInternalAddress } from '../observe/proxy/internal-address.js';

/*
 * The host policy: what the operator lets input they did not write (a pull request, a queue job, an
 * imported pack) reach on this host beyond the isolation floor — host folders it may show the agent
 * read-only, mirrors its setup may fetch from, internal network addresses its agent may be routed
 * to. Only the operator writes it: a root-owned (or the harness user's) file no one else may write,
 * at /etc/agentguard/host-policy.yaml or where AGENTGUARD_HOST_POLICY names (the operator's
 * environment, never an input's). No field of an input can add to it.
 */

export const HOST_POLICY_FILE = '/etc/agentguard/host-policy.yaml';
export const HOST_POLICY_ENV = 'AGENTGUARD_HOST_POLICY';

const HostPolicySchema = z.strictObject({
  /** Host folders an input may show the agent read-only (toolchains, sandbox.mounts, caches). */
  host_paths: z.array(z.string().refine((p) => path.isAbsolute(p), 'must be an absolute path')).default([]),
  /** Mirror URLs an input's setup may fetch from: a URL matches one it starts with, same scheme, host and port. */
  mirrors: z.array(z.url({ protocol: /^https?$/ })).default([]),
  /**
   * Internal hosts an input's network may name or reach: `host`, `host:port`, an address or a range
   * (`10.20.0.0/16`); loopback, private, link-local, local names. The proxy lets a name that resolves
   * into one through at connect time (a local mirror).
   */
  network_hosts: z.array(z.string().min(1)).default([]),
  /** Container images an input may name (container.image): a reference as written, or a prefix ending in `*` (`ghcr.io/acme/*`). */
  container_images: z.array(z.string().min(1)).default([]),
  /** Variables of the host's environment an input may pass to its agent (agent_environment, its profile's env_pass). */
  agent_env: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a variable name')).default([]),
  /**
   * Model providers an input's model_relay may forward to, each with the variable of agentguard's
   * environment that holds its key: an input cannot send the operator's key to a host of its choosing.
   */
  model_relays: z
    .array(
      z.strictObject({
        provider: z.url({ protocol: /^https$/ }),
        key_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a variable name'),
      }),
    )
    .default([]),
});

/** The host policy's keys: what a document block holding only these is. */
export const HOST_POLICY_KEYS: readonly string[] = Object.keys(HostPolicySchema.shape);

export type HostPolicy = z.output<typeof HostPolicySchema> & {
  /** Where it was read from, named in every refusal's fix. */
  file: string;
};

/** Where the operator's host policy is: AGENTGUARD_HOST_POLICY, else /etc/agentguard/host-policy.yaml. */
export function hostPolicyFile(env: NodeJS.ProcessEnv = process.env): string {
  const named = env[HOST_POLICY_ENV];
  return named !== undefined && named !== '' ? path.resolve(named) : HOST_POLICY_FILE;
}

/**
 * The operator's host policy; empty when the file does not exist. A file someone other than root or
 * the harness user owns, or that others may write, or a link, is refused: it would let them lower
 * the floor.
 */
export function readHostPolicy(env: NodeJS.ProcessEnv = process.env): HostPolicy {
  const file = hostPolicyFile(env);
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(file);
  } catch {
    return {
      file,
      host_paths: [],
      mirrors: [],
      network_hosts: [],
      container_images: [],
      agent_env: [],
      model_relays: [],
    };
  }
  const uid = process.geteuid?.() ?? 0;
  const problem = !st.isFile()
    ? 'is not a regular file (a link, a folder or a device)'
    : st.uid !== 0 && st.uid !== uid
      ? `is owned by uid ${st.uid}, neither root nor the user running agentguard`
      : (st.mode & 0o022) !== 0
        ? 'may be written by users other than its owner'
        : null;
  if (problem)
    throw new ConfigError([
      {
        file,
        field: '',
        message: `the host policy ${problem}, so someone other than the operator could lower the isolation floor`,
        fix: `make it a regular file owned by root, mode 0644 (chown root: ${file}; chmod 644 ${file})`,
      },
    ]);
  const loaded = loadYamlFile(file, HostPolicySchema, {
    what: 'host policy',
    docs: 'docs/config.md#host-policy',
    empty: {},
    notMapping: {
      message:
        'must be a mapping of host_paths, mirrors, network_hosts, container_images, agent_env and model_relays',
      fix: 'write e.g. host_paths: [/opt/hostedtoolcache]',
    },
  });
  if (!loaded.ok) throw new ConfigError(loaded.issues);
  return { file, ...loaded.value };
}

/** `p` lies in `dir` (or is it), by path components. */
export function isWithin(p: string, dir: string): boolean {
  const rel = path.relative(path.resolve(dir), path.resolve(p));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The mirror URL matches one the policy lists: same scheme, host and port, and its path starts with the listed one. */
export function mirrorAllowed(url: string, allowed: readonly string[]): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  return allowed.some((a) => {
    const ok = new URL(a);
    const prefix = ok.pathname.endsWith('/') ? ok.pathname : `${ok.pathname}/`;
    return (
      ok.protocol === u.protocol &&
      ok.host === u.host &&
      (u.pathname === ok.pathname || `${u.pathname}/` === prefix || u.pathname.startsWith(prefix))
    );
  });
}

/**
 * Why a host name or address is internal to the host or its network, or null when it is a public
 * name. IPv4-mapped and -compatible IPv6 forms are judged as their IPv4 address; names that only
 * resolve locally (no dot, `localhost`, `.local`, `.internal`, `.localhost`, `.home.arpa`) are
 * internal. A public name that resolves to an internal address is the proxy's to refuse.
 */
export function internalHost(host: string): string | null {
  const name = normalizeHost(host);
  const ip = canonicalIp(name);
  if (ip !== undefined) {
    return isInternalAddress(ip) ? `${host} is a loopback, private or link-local address` : null;
  }
  if (/^(0x[0-9a-f]*|\d+)(\.(0x[0-9a-f]*|\d+))*$/i.test(name))
    return `${host} is a numeric address in another spelling`;
  if (!name.includes('.')) return `${host} is a name without a domain, resolved only on the local network`;
  if (/(^|\.)(localhost|local|internal|home\.arpa|lan|intranet|corp)$/.test(name))
    return `${host} is a name of the local host or network`;
  return null;
}

/** A `host[:port]` the policy lists under network_hosts: by the host alone, the host and this port, or a range holding it. */
export function networkHostAllowed(
  host: string,
  port: number | undefined,
  allowed: readonly string[],
): boolean {
  return internalAllowed(host, canonicalIp(host) ?? host, port, allowed);
}

/** The image reference is one the policy lists: exactly, or under a listed prefix ending in `*`. */
export function imageAllowed(image: string, allowed: readonly string[]): boolean {
  return allowed.some((a) => (a.endsWith('*') ? image.startsWith(a.slice(0, -1)) : image === a));
}

/** The relay's provider and key variable are a pair the policy lists (the URL compared as parsed, without a trailing slash). */
export function relayAllowed(
  relay: { provider: string; key_env: string },
  allowed: readonly { provider: string; key_env: string }[],
): boolean {
  const norm = (u: string) => new URL(u).href.replace(/\/+$/, '');
  return allowed.some((a) => a.key_env === relay.key_env && norm(a.provider) === norm(relay.provider));
}
