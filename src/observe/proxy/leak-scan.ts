import type { CanaryPiece } from '../../analysis/secrets/canary-pieces.js';
import type { LeakPlace, NetworkLeak } from '../../evidence/types.js';
import type { PieceLedger, PlacedPiece } from './piece-ledger.js';

/**
 * The run's detectors over one text (bytes as latin1): canary tokens in their encodings and the
 * secret detectors. Given by the pipeline, which knows the run's canaries and config; the proxy
 * only knows where the bytes came from. `pieces` finds pieces of the canaries in the text last
 * scanned (the run's PieceLedger puts them together across requests).
 */
export type LeakScanner = ((text: string) => Omit<NetworkLeak, 'where'>[]) & {
  pieces?: (text: string) => CanaryPiece[];
};

/** How a compressed body is undone (`content-encoding`, or sniffed from its first bytes); null when it cannot be. */
export type Inflate = (bytes: Buffer, limit: number, contentEncoding: string | undefined) => Buffer | null;

/**
 * What the pipeline gives the proxy to scan outgoing bytes with. `ledger`: the run's canary pieces,
 * one for the proxy and the DNS responder. `exempt`: a match that is the run's own credential on
 * its way to the host it was given for (the agent's model key to its provider), never recorded.
 */
export type OutboundScan = {
  scan: LeakScanner;
  inflate: Inflate;
  ledger?: PieceLedger;
  exempt?: (leak: NetworkLeak, host: string) => boolean;
};

/** Pieces kept per place of one request; a text with more is not a piece-by-piece leak but noise. */
const MAX_PIECES = 256;

/** Characters carried over from one chunk to the next, so a token split across chunks is still whole once. */
export const SCAN_OVERLAP = 4096;
/** Bytes of one request's body or tunnel scanned as they pass; past this the rest goes unscanned (and says so). */
export const MAX_SCANNED = 64 << 20;
/** Bytes of a compressed body kept to inflate at its end, and the most it may inflate to. */
export const MAX_CAPTURE = 8 << 20;
export const MAX_INFLATED = 32 << 20;

/** Leaks of one place, each detector and encoding once; canary pieces go `into` when given. */
export function leaksIn(
  scan: LeakScanner | undefined,
  where: LeakPlace,
  text: string,
  into?: PlacedPiece[],
): NetworkLeak[] {
  if (scan === undefined || text === '') return [];
  const leaks = scan(text).map((l) => ({ where, ...l }));
  if (into !== undefined && scan.pieces !== undefined) {
    for (const p of scan.pieces(text)) if (into.length < MAX_PIECES) into.push({ ...p, where });
  }
  return leaks;
}

/** Headers that carry the client's own credentials by design (an API key to its provider). */
const CREDENTIAL_HEADER = /^(authorization|proxy-authorization|x-api-key|api-key|x-goog-api-key|cookie)$/i;

/** Leaks in a request's target and headers, credential headers named apart. */
export function requestLeaks(
  scan: LeakScanner | undefined,
  url: string,
  rawHeaders: readonly string[],
  pieces?: PlacedPiece[],
): NetworkLeak[] {
  if (scan === undefined) return [];
  const plain: string[] = [];
  const credentials: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const line = `${rawHeaders[i]}: ${rawHeaders[i + 1]}`;
    (CREDENTIAL_HEADER.test(rawHeaders[i] ?? '') ? credentials : plain).push(line);
  }
  const leaks = leaksIn(scan, 'url', url, pieces);
  mergeLeaks(leaks, leaksIn(scan, 'header', plain.join('\n'), pieces));
  // A client's own key in the header made for it is judged with the host (OutboundScan.exempt).
  mergeLeaks(leaks, leaksIn(scan, 'credential-header', credentials.join('\n'), pieces));
  return leaks;
}

/**
 * Adds `more` to `into`, dropping repeats of the same place, detector and encoding (a run's own
 * credential and another secret of the same kind are not repeats: only the first may be exempt).
 */
export function mergeLeaks(into: NetworkLeak[], more: readonly NetworkLeak[]): void {
  for (const l of more) {
    const repeat = into.some(
      (o) =>
        o.where === l.where &&
        o.detector === l.detector &&
        o.encoding === l.encoding &&
        (o.own ?? false) === (l.own ?? false),
    );
    if (!repeat) into.push(l);
  }
}

/**
 * Scans a stream of outgoing bytes as it passes: each chunk with the last SCAN_OVERLAP characters
 * of the one before, so only a bounded tail is held, up to MAX_SCANNED bytes. A body that is
 * compressed (by its content-encoding or its magic bytes) is also kept up to MAX_CAPTURE bytes and
 * scanned inflated when it ends.
 */
export class StreamScan {
  readonly leaks: NetworkLeak[] = [];
  readonly pieces: PlacedPiece[] = [];
  incomplete: string | undefined;
  #tail = '';
  #scanned = 0;
  #capture: Buffer[] | null;
  #captured = 0;
  #compressed: boolean;

  constructor(
    private readonly scan: LeakScanner,
    private readonly where: LeakPlace,
    private readonly inflate?: Inflate,
    private readonly contentEncoding?: string,
  ) {
    this.#compressed = contentEncoding !== undefined && !/^\s*identity\s*$/i.test(contentEncoding);
    this.#capture = inflate ? [] : null;
  }

  push(chunk: Buffer): void {
    if (this.#capture !== null) {
      if (this.#captured + chunk.length <= MAX_CAPTURE) {
        this.#capture.push(chunk);
        this.#captured += chunk.length;
      } else if (this.#compressed) {
        this.incomplete ??= `a compressed ${this.where} past ${MAX_CAPTURE} bytes was scanned only as it was sent`;
      }
      // Compressed or not is known from the content-encoding, or from the first two bytes.
      if (!this.#compressed && this.#captured >= 2) {
        const first = Buffer.concat(this.#capture).subarray(0, 2);
        if ((first[0] === 0x1f && first[1] === 0x8b) || first[0] === 0x78) this.#compressed = true;
        else this.#capture = null;
      }
    }
    if (this.#scanned >= MAX_SCANNED) {
      this.incomplete ??= `the ${this.where} past ${MAX_SCANNED} bytes was not scanned`;
      return;
    }
    const piece = chunk.subarray(0, MAX_SCANNED - this.#scanned);
    this.#scanned += piece.length;
    const text = this.#tail + piece.toString('latin1');
    mergeLeaks(this.leaks, leaksIn(this.scan, this.where, text, this.pieces));
    this.#tail = text.slice(-SCAN_OVERLAP);
  }

  /** Inflates and scans a kept compressed body; returns the leaks found over the whole stream. */
  end(): NetworkLeak[] {
    const kept = this.#capture;
    this.#capture = null;
    if (kept === null || !this.#compressed || this.inflate === undefined) return this.leaks;
    const body = this.inflate(Buffer.concat(kept), MAX_INFLATED, this.contentEncoding);
    if (body === null) {
      if (this.contentEncoding !== undefined && this.#compressed)
        this.incomplete ??= `a ${this.contentEncoding} ${this.where} could not be inflated within ${MAX_INFLATED} bytes`;
      return this.leaks;
    }
    const via = this.contentEncoding?.trim().toLowerCase() || 'compressed';
    // Scanned in slices with the same overlap, so the views of one text stay bounded.
    const slice = 1 << 20;
    for (let at = 0; at < body.length; at += slice) {
      const text = body.subarray(Math.max(0, at - SCAN_OVERLAP), at + slice).toString('latin1');
      const pieces: PlacedPiece[] = [];
      const found = leaksIn(this.scan, this.where, text, pieces).map((l) => ({
        ...l,
        encoding: `${via}+${l.encoding ?? 'exact'}`.replace(/\+exact$/, ''),
      }));
      mergeLeaks(this.leaks, found);
      for (const p of pieces) {
        if (this.pieces.length < MAX_PIECES) this.pieces.push({ ...p, encoding: `${via}+${p.encoding}` });
      }
    }
    return this.leaks;
  }
}
