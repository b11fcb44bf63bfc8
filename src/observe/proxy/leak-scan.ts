import type { LeakPlace, NetworkLeak } from '../../evidence/types.js';

/**
 * The run's detectors over one text (bytes as latin1): canary tokens in their encodings and the
 * secret detectors. Given by the pipeline, which knows the run's canaries and config; the proxy
 * only knows where the bytes came from.
 */
export type LeakScanner = (text: string) => Omit<NetworkLeak, 'where'>[];

/** How a compressed body is undone (`content-encoding`, or sniffed from its first bytes); null when it cannot be. */
export type Inflate = (bytes: Buffer, limit: number, contentEncoding: string | undefined) => Buffer | null;

/** What the pipeline gives the proxy to scan outgoing bytes with. */
export type OutboundScan = { scan: LeakScanner; inflate: Inflate };

/** Characters carried over from one chunk to the next, so a token split across chunks is still whole once. */
export const SCAN_OVERLAP = 4096;
/** Bytes of one request's body or tunnel scanned as they pass; past this the rest goes unscanned (and says so). */
export const MAX_SCANNED = 64 << 20;
/** Bytes of a compressed body kept to inflate at its end, and the most it may inflate to. */
export const MAX_CAPTURE = 8 << 20;
export const MAX_INFLATED = 32 << 20;

/** Leaks of one place, each detector and encoding once. */
export function leaksIn(scan: LeakScanner | undefined, where: LeakPlace, text: string): NetworkLeak[] {
  if (scan === undefined || text === '') return [];
  return scan(text).map((l) => ({ where, ...l }));
}

/** Headers that carry the client's own credentials by design (an API key to its provider). */
const CREDENTIAL_HEADER = /^(authorization|proxy-authorization|x-api-key|api-key|x-goog-api-key|cookie)$/i;

/** Leaks in a request's target and headers; in credential headers, only canaries count. */
export function requestLeaks(
  scan: LeakScanner | undefined,
  url: string,
  rawHeaders: readonly string[],
): NetworkLeak[] {
  if (scan === undefined) return [];
  const plain: string[] = [];
  const credentials: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const line = `${rawHeaders[i]}: ${rawHeaders[i + 1]}`;
    (CREDENTIAL_HEADER.test(rawHeaders[i] ?? '') ? credentials : plain).push(line);
  }
  const leaks = leaksIn(scan, 'url', url);
  mergeLeaks(leaks, leaksIn(scan, 'header', plain.join('\n')));
  // A client's own key in the header made for it is no leak; a canary there is.
  const credential = leaksIn(scan, 'credential-header', credentials.join('\n'));
  mergeLeaks(
    leaks,
    credential.filter((l) => l.kind === 'canary'),
  );
  return leaks;
}

/** Adds `more` to `into`, dropping repeats of the same place, detector and encoding. */
export function mergeLeaks(into: NetworkLeak[], more: readonly NetworkLeak[]): void {
  for (const l of more) {
    if (!into.some((o) => o.where === l.where && o.detector === l.detector && o.encoding === l.encoding))
      into.push(l);
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
    mergeLeaks(this.leaks, leaksIn(this.scan, this.where, text));
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
      const found = leaksIn(this.scan, this.where, text).map((l) => ({
        ...l,
        encoding: `${via}+${l.encoding ?? 'exact'}`.replace(/\+exact$/, ''),
      }));
      mergeLeaks(this.leaks, found);
    }
    return this.leaks;
  }
}
