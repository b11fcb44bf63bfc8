import type { NetworkLeak } from '../../evidence/types.js';
import { type LeakScanner, leaksIn, SCAN_OVERLAP } from './leak-scan.js';

/** Domains whose lookups are followed at once; the least recently asked is dropped past this. */
const MAX_DOMAINS = 256;
/** Names kept per domain, the most recent ones. */
const MAX_NAMES = 64;

type Sequence = { names: string[][]; reported: Set<string> };

/**
 * DNS tunnelling sends a value a few labels per lookup (`0.aaaa.s1.evil.test`,
 * `1.bbbb.s1.evil.test`). The names asked under each domain (its last two labels) are kept in
 * arrival order, a repeated name once (a resolver asks A and AAAA); the labels they all end with
 * are dropped and what varies is read as one text, as asked and without short numeric labels
 * (sequence counters). Each new lookup scans both texts; what they show that the name alone did not
 * is a `host-sequence` leak, on the lookup that completed it, once per domain and detector.
 */
export class NameSequences {
  readonly #domains = new Map<string, Sequence>();

  constructor(private readonly scan: LeakScanner) {}

  add(host: string, alone: readonly NetworkLeak[]): NetworkLeak[] {
    const labels = host.toLowerCase().replace(/\.$/, '').split('.');
    if (labels.length < 3) return [];
    const domain = labels.slice(-2).join('.');
    const seq = this.#domains.get(domain) ?? { names: [], reported: new Set<string>() };
    this.#domains.delete(domain);
    this.#domains.set(domain, seq);
    if (this.#domains.size > MAX_DOMAINS) this.#domains.delete(this.#domains.keys().next().value as string);
    const last = seq.names.at(-1);
    if (last !== undefined && last.join('.') === labels.join('.')) return [];
    seq.names.push(labels);
    if (seq.names.length > MAX_NAMES) seq.names.shift();
    if (seq.names.length < 2) return [];
    const common = commonSuffix(seq.names);
    const varying = seq.names.map((n) => n.slice(0, n.length - common));
    const all = varying.map((v) => v.join('.')).join('.');
    const counted = varying.map((v) => v.filter((l) => !/^\d{1,4}$/.test(l)).join('.')).join('.');
    // Reported once per domain: the texts keep the value after it was found.
    const known = new Set([...seq.reported, ...alone.map((l) => l.detector)]);
    const found: NetworkLeak[] = [];
    for (const text of [all, counted]) {
      for (const l of leaksIn(this.scan, 'host-sequence', text.slice(-SCAN_OVERLAP))) {
        if (known.has(l.detector)) continue;
        known.add(l.detector);
        seq.reported.add(l.detector);
        found.push(l);
      }
    }
    return found;
  }
}

/** Labels every name ends with (at least the domain's two). */
function commonSuffix(names: readonly string[][]): number {
  const first = names[0] ?? [];
  let n = 2;
  while (
    n < first.length &&
    names.every((x) => x.length > n && x[x.length - 1 - n] === first[first.length - 1 - n])
  )
    n++;
  return n;
}
