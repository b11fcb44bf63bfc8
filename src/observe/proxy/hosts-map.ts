import { canonicalIp, normalizeHost } from './allow-list.js';

/**
 * Name → local address overrides, e.g. `{ 'api.allowed.test': '127.0.0.1:8081' }`. A key may carry a
 * port (`'api.allowed.test:443'`) to redirect only that port; it wins over the bare name.
 * Values are `IP:PORT` or `[IPv6]:PORT`; without a port the requested port is kept.
 */
export type HostsMap = Readonly<Record<string, string>>;

export type HostsTarget = { address: string; port?: number };

export type ParsedHostsMap = ReadonlyMap<string, HostsTarget>;

function parseTarget(value: string): HostsTarget | undefined {
  const bracket = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(value);
  const plain = /^([^:[\]]+)(?::(\d{1,5}))?$/.exec(value);
  const match = bracket ?? plain;
  if (!match?.[1]) return undefined;
  const address = canonicalIp(match[1]);
  if (address === undefined) return undefined;
  if (match[2] === undefined) return { address };
  const port = Number(match[2]);
  return port >= 1 && port <= 65535 ? { address, port } : undefined;
}

function keyOf(key: string): string | undefined {
  const at = key.lastIndexOf(':');
  if (at < 0) return normalizeHost(key);
  const port = Number(key.slice(at + 1));
  if (!Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  return `${normalizeHost(key.slice(0, at))}:${port}`;
}

/** Validates and normalises a hosts map; issues name each bad key or value. */
export function parseHostsMap(hosts: HostsMap): { map: ParsedHostsMap; issues: string[] } {
  const map = new Map<string, HostsTarget>();
  const issues: string[] = [];
  for (const [key, value] of Object.entries(hosts)) {
    const name = keyOf(key);
    const target = parseTarget(value);
    if (name === undefined || name === '' || name.startsWith(':'))
      issues.push(`hosts key '${key}' is not host[:port]`);
    else if (target === undefined) issues.push(`hosts['${key}'] = '${value}' is not IP:PORT or [IPv6]:PORT`);
    else map.set(name, target);
  }
  return { map, issues };
}

/** Where a request for `host:port` should really go, or undefined when the map does not redirect it. */
export function lookupHosts(
  map: ParsedHostsMap,
  host: string,
  port: number,
): { address: string; port: number } | undefined {
  const name = normalizeHost(host);
  const target = map.get(`${name}:${port}`) ?? map.get(name);
  return target === undefined ? undefined : { address: target.address, port: target.port ?? port };
}

/** Is the name redirected for any port? (The DNS responder answers such names.) */
export function hostsHasName(map: ParsedHostsMap, host: string): boolean {
  const name = normalizeHost(host);
  if (map.has(name)) return true;
  for (const key of map.keys()) if (key.startsWith(`${name}:`)) return true;
  return false;
}
