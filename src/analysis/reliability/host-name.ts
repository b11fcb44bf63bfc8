import type { NetworkRecord, SocketAddress } from '../../evidence/types.js';

/**
 * The harness's own plumbing inside the sandbox: the loopback bridge to the egress proxy and the
 * DNS responder, and the Unix sockets behind them. Connections there are how every request leaves
 * the sandbox, so they say nothing about the destination; the proxy log names the real host.
 */
export const HARNESS_ENDPOINTS: readonly string[] = ['127.0.0.1:3128', '127.0.0.1:53'];
export const HARNESS_SOCKET_DIR = '/run/agentguard';

export type HostOptions = {
  harnessEndpoints?: readonly string[];
  normalise: (path: string) => string;
};

/** A host node name for a connect/sendto address, or null for harness plumbing. Names beat IPs. */
export function hostFromAddress(addr: SocketAddress, options: HostOptions): string | null {
  if (addr.family === 'unix') {
    const path = addr.path ?? '';
    if (path === HARNESS_SOCKET_DIR || path.startsWith(`${HARNESS_SOCKET_DIR}/`)) return null;
    if (path === '' || path.startsWith('@')) return `unix:${path || '@'}`;
    return `unix:${options.normalise(path)}`;
  }
  const ip = unmapIpv4(addr.ip ?? '');
  const endpoints = options.harnessEndpoints ?? HARNESS_ENDPOINTS;
  if (addr.port !== undefined && endpoints.includes(endpoint(ip, addr.port))) return null;
  const name = addr.host ? hostName(addr.host) : ip;
  return name === '' ? null : name;
}

/** A host node name for an egress-proxy or DNS record. */
export function hostFromRecord(record: NetworkRecord): string | null {
  const name = hostName(record.host);
  return name === '' ? null : name;
}

/** Host names compare case-insensitively and without the root dot; IPv6 literals lose brackets. */
export function hostName(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
}

function unmapIpv4(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return mapped ? (mapped[1] as string) : ip;
}

function endpoint(ip: string, port: number): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}

/** Loopback and Unix-socket destinations never leave the machine: no allow list is about them. */
export function isLocalHost(name: string): boolean {
  return (
    name.startsWith('unix:') ||
    name === 'localhost' ||
    name === '::1' ||
    /^127\.\d+\.\d+\.\d+$/.test(name) ||
    name === '0.0.0.0'
  );
}
