import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { type AllowDecision, type AllowEntry, canonicalIp, matchAllow } from './allow-list.js';
import { lookupHosts, type ParsedHostsMap } from './hosts-map.js';

export type EgressMode = 'allowlist' | 'observe';

export type UpstreamTarget = { address: string; port: number };

export type Resolution =
  | { ok: true; target: UpstreamTarget }
  | { ok: false; code: string; reason: string; denied: boolean };

const LOCAL_ADDRESSES = new BlockList();
LOCAL_ADDRESSES.addSubnet('127.0.0.0', 8, 'ipv4');
LOCAL_ADDRESSES.addAddress('0.0.0.0', 'ipv4');
LOCAL_ADDRESSES.addAddress('::1', 'ipv6');
LOCAL_ADDRESSES.addAddress('::', 'ipv6');

// Loopback or unspecified, IPv4-mapped IPv6 forms included (BlockList checks those against IPv4 rules).
function isLoopbackOrUnspecified(ip: string): boolean {
  return LOCAL_ADDRESSES.check(ip, isIP(ip) === 6 ? 'ipv6' : 'ipv4');
}

/** The allow list, the hosts map and the mode: what may go where. */
export class EgressPolicy {
  readonly #allow: readonly AllowEntry[];
  readonly #hosts: ParsedHostsMap;
  readonly #mode: EgressMode;

  constructor(allow: readonly AllowEntry[], hosts: ParsedHostsMap, mode: EgressMode) {
    this.#allow = allow;
    this.#hosts = hosts;
    this.#mode = mode;
  }

  /** Judged on the name the client asked for, never on where the hosts map sends it. */
  decide(host: string, port: number): AllowDecision {
    const verdict = matchAllow(host, port, this.#allow);
    if (this.#mode === 'allowlist') return verdict;
    return { allowed: true, reason: `observe mode (${verdict.reason})` };
  }

  async resolve(host: string, port: number): Promise<Resolution> {
    const mapped = lookupHosts(this.#hosts, host, port);
    if (mapped !== undefined) return { ok: true, target: mapped };
    const literal = canonicalIp(host);
    if (literal !== undefined) {
      const listed = this.#allow.some((entry) => entry.kind === 'ip' && entry.host === literal);
      if (listed || !this.#guardsLocal(literal)) return { ok: true, target: { address: literal, port } };
      return {
        ok: false,
        code: 'ELOOPBACK',
        reason: `local address ${literal} needs an explicit entry`,
        denied: true,
      };
    }
    let address: string;
    try {
      address = (await lookup(host)).address;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'EAI_FAIL';
      return { ok: false, code, reason: `upstream ${code}`, denied: false };
    }
    // An allowed name whose DNS points at this machine would reach the harness's own services
    // (the model stub, databases). Local targets are reachable only through the hosts map.
    if (this.#guardsLocal(address)) {
      return { ok: false, code: 'ELOOPBACK', reason: `resolves to local address ${address}`, denied: true };
    }
    return { ok: true, target: { address, port } };
  }

  #guardsLocal(address: string): boolean {
    return this.#mode === 'allowlist' && isLoopbackOrUnspecified(address);
  }
}
