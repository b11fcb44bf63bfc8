import { MAX_WITHHELD } from '../../analysis/secrets/canary-pieces.js';
import type { LeakPlace, NetworkLeak, NetworkRecord, PieceCarrier } from '../../evidence/types.js';

/** A piece of canary `index` found in one place of a request (see CanaryPieces). */
export type PlacedPiece = { index: number; from: number; to: number; encoding: string; where: LeakPlace };

/** A canary the ledger follows: its detector's name, fingerprint and length in bytes. */
export type LedgerCanary = { detector: string; fingerprint: string; length: number };

/** Carriers kept per canary: past this, the earliest ones and the latest ones are what the alert names. */
const MAX_CARRIERS = 64;

type Coverage = { covered: Uint8Array; carriers: PieceCarrier[]; reported: boolean; encodings: Set<string> };

/**
 * One run's record of the canary pieces that left, whatever request, connection, host or lookup
 * carried them and in whatever order: a canary is leaked once the pieces seen cover all but
 * MAX_WITHHELD of its bytes. The leak is reported once, on the request that completed it, as
 * `where: pieces`, naming every request that carried a piece. Shared by the proxy and the DNS
 * responder, so pieces sent over both are put together.
 */
export class PieceLedger {
  readonly #coverage: Coverage[];

  constructor(private readonly canaries: readonly LedgerCanary[]) {
    this.#coverage = canaries.map((c) => ({
      covered: new Uint8Array(c.length),
      carriers: [],
      reported: false,
      encodings: new Set<string>(),
    }));
  }

  /** Canaries already reported whole (by the matcher): their pieces are no news. */
  reportedWhole(leaks: readonly NetworkLeak[]): void {
    for (const l of leaks) {
      if (l.kind !== 'canary' || l.where === 'pieces') continue;
      const index = this.canaries.findIndex((c) => c.detector === l.detector);
      const c = this.#coverage[index];
      if (c) c.reported = true;
    }
  }

  /** Adds what one request carried; returns the leaks it completed. */
  add(
    record: Pick<NetworkRecord, 'ts' | 'host' | 'protocol'>,
    pieces: readonly PlacedPiece[],
  ): NetworkLeak[] {
    const completed = new Set<number>();
    for (const p of pieces) {
      const c = this.#coverage[p.index];
      const canary = this.canaries[p.index];
      if (c === undefined || canary === undefined || c.reported) continue;
      const same = c.carriers.some(
        (k) =>
          k.ts === record.ts &&
          k.host === record.host &&
          k.where === p.where &&
          k.bytes[0] === p.from &&
          k.bytes[1] === p.to,
      );
      if (!same) {
        if (c.carriers.length >= MAX_CARRIERS) c.carriers.splice(MAX_CARRIERS / 2, 1);
        c.carriers.push({
          ts: record.ts,
          host: record.host,
          protocol: record.protocol,
          where: p.where,
          bytes: [p.from, p.to],
        });
      }
      c.encodings.add(p.encoding);
      c.covered.fill(1, p.from, p.to);
      if (c.covered.reduce((n, b) => n + b, 0) >= canary.length - MAX_WITHHELD) completed.add(p.index);
    }
    return [...completed].map((index) => {
      const c = this.#coverage[index] as Coverage;
      const canary = this.canaries[index] as LedgerCanary;
      c.reported = true;
      return {
        where: 'pieces',
        detector: canary.detector,
        kind: 'canary',
        encoding: `pieces+${[...c.encodings].sort().join(',')}`,
        fingerprint: canary.fingerprint,
        carriers: [...c.carriers],
      };
    });
  }
}
