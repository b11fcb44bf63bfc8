import { BlockList, isIP } from 'node:net';
import { canonicalIp, normalizeHost } from './allow-list.js';

/*
 * Internal addresses: the host itself, its networks and the cloud's metadata service. An input's
 * agent or setup reaches them only where the operator's host policy lists them (network_hosts),
 * however the address was written or whichever name led to it.
 */

const INTERNAL = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  INTERNAL.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b:1::', 48],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  INTERNAL.addSubnet(net, bits, 'ipv6');

/** Eight 16-bit groups of a canonical IPv6 address (`::` expanded, a dotted tail split in two). */
function groupsOf(ip: string): number[] | undefined {
  let text = ip;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const part = (s: string) => (s === '' ? [] : s.split(':').map((g) => Number.parseInt(g, 16)));
  const left = part(head);
  const right = tail === undefined ? [] : part(tail);
  const groups =
    tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill(0), ...right];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff)
    ? groups
    : undefined;
}

/**
 * The IPv4 address an IPv6 one carries to an IPv4 host: mapped `::ffff:a.b.c.d`, compatible
 * `::a.b.c.d`, translated `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002:AABB:CCDD::`.
 */
export function embeddedV4(ip: string): string | undefined {
  const g = groupsOf(ip);
  if (g === undefined) return undefined;
  const v4 = (hi: number, lo: number) => [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zero(0, 5) && (g[5] === 0xffff || g[5] === 0) && !(g[5] === 0 && g[6] === 0))
    return v4(g[6] ?? 0, g[7] ?? 0);
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return v4(g[6] ?? 0, g[7] ?? 0);
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return v4(g[6] ?? 0, g[7] ?? 0);
  if (g[0] === 0x2002) return v4(g[1] ?? 0, g[2] ?? 0);
  return undefined;
}

/** The address (canonical IP text) is one of the host or its networks, in any IPv6 form of an IPv4 one. */
export function isInternalAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 4) return INTERNAL.check(ip, 'ipv4');
  if (family !== 6) return false;
  const v4 = embeddedV4(ip);
  return (v4 !== undefined && INTERNAL.check(v4, 'ipv4')) || INTERNAL.check(ip, 'ipv6');
}

/**
 * The operator lets this internal destination through: an entry of the host policy's network_hosts
 * names the host asked for or the address it resolved to (`host`, `host:port`, `[v6]:port`), or is a
 * range holding the address (`10.20.0.0/16`, `fd00::/8`).
 */
export function internalAllowed(
  host: string,
  address: string,
  port: number | undefined,
  allowed: readonly string[],
): boolean {
  return allowed.some((raw) => {
    const entry = raw.trim();
    const range = /^([^/]+)\/(\d{1,3})$/.exec(entry);
    if (range) return inRange(address, range[1] ?? '', Number(range[2]));
    const { host: h, port: p } = splitEntry(entry);
    if (p !== undefined && (port === undefined || Number(p) !== port)) return false;
    const want = normalizeHost(h);
    return want === normalizeHost(host) || want === normalizeHost(address);
  });
}

function inRange(address: string, net: string, bits: number): boolean {
  const base = canonicalIp(net);
  const family = base === undefined ? 0 : isIP(base);
  if (base === undefined || family === 0 || bits > (family === 4 ? 32 : 128)) return false;
  const list = new BlockList();
  list.addSubnet(base, bits, family === 4 ? 'ipv4' : 'ipv6');
  const v4 = isIP(address) === 6 ? embeddedV4(address) : undefined;
  return (
    list.check(address, isIP(address) === 4 ? 'ipv4' : 'ipv6') ||
    (v4 !== undefined && family === 4 && list.check(v4, 'ipv4'))
  );
}

/** `host`, `host:port`, `[v6]`, `[v6]:port` or a bare IPv6 address (no port). */
export function splitEntry(entry: string): { host: string; port?: string } {
  const bracket = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(entry);
  if (bracket)
    return bracket[2] === undefined
      ? { host: bracket[1] ?? '' }
      : { host: bracket[1] ?? '', port: bracket[2] };
  if (entry.split(':').length > 2) return { host: entry };
  const [h = '', p] = entry.split(':');
  return p === undefined ? { host: h } : { host: h, port: p };
}
