import { lookup } from 'node:dns/promises';
import { type AllowDecision, type AllowEntry, canonicalIp, matchAllow } from './allow-list.js';
import { lookupHosts, type ParsedHostsMap } from './hosts-map.js';
import { internalAllowed, isInternalAddress } from './internal-address.js';

export type EgressMode = 'allowlist' | 'observe';

export type UpstreamTarget = { address: string; port: number };

export type Resolution =
  | { ok: true; target: UpstreamTarget }
  | { ok: false; code: string; reason: string; denied: boolean };

/** The allow list, the hosts map and the mode: what may go where. */
export class EgressPolicy {
  readonly #allow: readonly AllowEntry[];
  readonly #hosts: ParsedHostsMap;
  readonly #mode: EgressMode;
  readonly #internal: readonly string[];

  /** `internal`: the operator's host policy network_hosts, the internal destinations it lets through. */
  constructor(
    allow: readonly AllowEntry[],
    hosts: ParsedHostsMap,
    mode: EgressMode,
    internal: readonly string[] = [],
  ) {
    this.#allow = allow;
    this.#hosts = hosts;
    this.#mode = mode;
    this.#internal = internal;
  }

  /** Judged on the name the client asked for, never on where the hosts map sends it. */
  decide(host: string, port: number): AllowDecision {
    const verdict = matchAllow(host, port, this.#allow);
    if (this.#mode === 'allowlist') return verdict;
    return { allowed: true, reason: `observe mode (${verdict.reason})` };
  }

  /**
   * Where to connect for an allowed request, judged by the address the proxy will connect to: an
   * allowed name (or wildcard) whose DNS answer is internal (loopback, private, link-local, cloud
   * metadata, any IPv6 form of those) is refused, whatever the name, so neither a hostile DNS record
   * nor a redirect reaches the host's own services. The checked address is the one connected to, so
   * a second DNS answer (rebinding) is never asked for. Internal targets are reached only through
   * the hosts map, an allow-list entry that is the address itself, or the operator's host policy.
   */
  async resolve(host: string, port: number): Promise<Resolution> {
    const mapped = lookupHosts(this.#hosts, host, port);
    if (mapped !== undefined) return { ok: true, target: mapped };
    const literal = canonicalIp(host);
    if (literal !== undefined) {
      const listed = this.#allow.some((entry) => entry.kind === 'ip' && entry.host === literal);
      if (listed || !this.#refusesInternal(host, literal, port))
        return { ok: true, target: { address: literal, port } };
      return {
        ok: false,
        code: 'EINTERNAL',
        reason: `internal address ${literal} needs an explicit entry`,
        denied: true,
      };
    }
    let addresses: string[];
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'EAI_FAIL';
      return { ok: false, code, reason: `upstream ${code}`, denied: false };
    }
    // One internal answer among public ones is the shape of a rebinding answer: refuse the name.
    const inside = addresses.find((address) => this.#refusesInternal(host, address, port));
    const first = addresses[0];
    if (inside !== undefined || first === undefined) {
      return {
        ok: false,
        code: 'EINTERNAL',
        reason: `resolves to internal address ${inside ?? 'none'} (loopback, private or link-local); the operator's host policy network_hosts lets one through`,
        denied: true,
      };
    }
    return { ok: true, target: { address: first, port } };
  }

  #refusesInternal(host: string, address: string, port: number): boolean {
    return (
      this.#mode === 'allowlist' &&
      isInternalAddress(address) &&
      !internalAllowed(host, address, port, this.#internal)
    );
  }
}
