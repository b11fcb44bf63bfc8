import { type CanaryForm, type CarrierView, canaryForms } from './canary-match.js';

/**
 * Token bytes a piece must carry to count. The tokens are random (hex or base32-like characters):
 * ten of them are 40 bits or more, so a piece in honest traffic is a 1-in-10^12 coincidence per
 * position and form, and a leak is only called once pieces cover all but MAX_WITHHELD bytes of one
 * token, which takes two such pieces at least. Shorter pieces are not followed (docs/coverage.md).
 */
export const MIN_PIECE_BYTES = 10;
/** Bytes of a token a sender may hold back and still have leaked it (16 bits of hex left to guess). */
export const MAX_WITHHELD = 4;

/** Token bytes `[from, to)` of canary `index`, carried in one text as a form names (`hex`, `base64`, ...). */
export type CanaryPiece = { index: number; from: number; to: number; encoding: string };

type Entry = { form: number; pos: number };
type Indexed = CanaryForm & { index: number; length: number };

/**
 * Characters of a lookup key, and the step between the text positions looked up: every run of
 * KEY + STEP - 1 characters holds a looked-up key, and the shortest piece that counts (MIN_PIECE_BYTES
 * characters as written, more in any encoding) is that long.
 */
const KEY = 6;
const STEP = MIN_PIECE_BYTES - KEY + 1;

/**
 * Finds pieces of the run's canary tokens, in any of their forms, in the views of a text: every run
 * of KEY characters is looked up among the forms' own runs (after a rolling hash's table says it
 * may be one), extended both ways as far as it agrees, and kept when it carries at least
 * `minBytes` whole token bytes and is not the whole form (a whole one is the matcher's to report).
 */
export class CanaryPieces {
  readonly #forms: Indexed[] = [];
  readonly #keys: [Map<string, Entry[]>, Map<string, Entry[]>] = [new Map(), new Map()];
  readonly #hashes: [Uint8Array, Uint8Array] = [new Uint8Array(TABLE >> 3), new Uint8Array(TABLE >> 3)];

  constructor(
    tokens: readonly string[],
    private readonly minBytes = MIN_PIECE_BYTES,
  ) {
    tokens.forEach((token, index) => {
      const length = Buffer.byteLength(token);
      for (const f of canaryForms(token)) {
        const form = this.#forms.length;
        this.#forms.push({ ...f, index, length });
        const at = f.caseless ? 0 : 1;
        for (let pos = 0; pos + KEY <= f.text.length; pos++) {
          const key = f.text.slice(pos, pos + KEY);
          const list = this.#keys[at].get(key) ?? [];
          list.push({ form, pos });
          this.#keys[at].set(key, list);
          const slot = hashAt(key, 0) & (TABLE - 1);
          const table = this.#hashes[at];
          table[slot >> 3] = (table[slot >> 3] as number) | (1 << (slot & 7));
        }
      }
    });
  }

  find(views: readonly CarrierView[]): CanaryPiece[] {
    const found: CanaryPiece[] = [];
    const seen = new Set<string>();
    for (const v of views) {
      // A reversed view holds what the reversed forms already find in the view it reverses.
      if (v.via.endsWith('reversed')) continue;
      this.#scan(v.text, 0, v.via, found, seen);
      this.#scan(v.text, 1, v.via, found, seen);
    }
    return found;
  }

  /**
   * Where a text holds a canary's form or a piece of one as it stands (whole forms included), for
   * redaction: characters `[start, end)` and the canary's index, overlapping spans merged.
   */
  spans(text: string): { start: number; end: number; index: number }[] {
    const spans: { start: number; end: number; index: number }[] = [];
    const seen = new Set<string>();
    this.#scan(text, 0, '', [], seen, spans);
    this.#scan(text, 1, '', [], seen, spans);
    spans.sort((a, b) => a.start - b.start);
    const merged: typeof spans = [];
    for (const s of spans) {
      const last = merged.at(-1);
      if (last && s.start <= last.end) last.end = Math.max(last.end, s.end);
      else merged.push({ ...s });
    }
    return merged;
  }

  #scan(
    text: string,
    at: 0 | 1,
    via: string,
    found: CanaryPiece[],
    seen: Set<string>,
    spans?: { start: number; end: number; index: number }[],
  ): void {
    const keys = this.#keys[at];
    const table = this.#hashes[at];
    if (keys.size === 0 || text.length < KEY) return;
    // Every STEP-th run of KEY characters; only a hit in the hash table is looked up by text.
    for (let i = 0; i + KEY <= text.length; ) {
      const slot = hashAt(text, i, at === 0) & (TABLE - 1);
      let next = i + STEP;
      if ((table[slot >> 3] as number) & (1 << (slot & 7))) {
        const run = text.slice(i, i + KEY);
        const entries = keys.get(at === 0 ? run.toLowerCase() : run);
        if (entries !== undefined)
          next = Math.max(next, this.#extend(text, i, entries, at === 0, via, found, seen, spans));
      }
      i = next;
    }
  }

  /** The pieces that start with the run at `i`; returns where to look next (past a piece found). */
  #extend(
    text: string,
    i: number,
    entries: readonly Entry[],
    fold: boolean,
    via: string,
    found: CanaryPiece[],
    seen: Set<string>,
    spans?: { start: number; end: number; index: number }[],
  ): number {
    let next = i + 1;
    for (const e of entries) {
      const f = this.#forms[e.form] as Indexed;
      // Extend the agreement both ways: the piece is as long as text and form agree.
      const same = (t: number, p: number) => charAt(text, t, fold) === f.text.charCodeAt(p);
      let back = 0;
      while (back < e.pos && back < i && same(i - back - 1, e.pos - back - 1)) back++;
      let fwd = KEY;
      while (e.pos + fwd < f.text.length && i + fwd < text.length && same(i + fwd, e.pos + fwd)) fwd++;
      const whole = e.pos - back === 0 && e.pos + fwd === f.text.length;
      const bytes = bytesOf(f, e.pos - back, e.pos + fwd);
      if (!whole && (bytes === null || bytes.to - bytes.from < this.minBytes)) continue;
      next = Math.max(next, i + fwd);
      if (spans) {
        spans.push({ start: i - back, end: i + fwd, index: f.index });
        continue;
      }
      // The whole form is the matcher's to report.
      if (whole || bytes === null) continue;
      const encoding = [...(via === '' ? [] : via.split('+')), f.encoding].join('+');
      const key = `${f.index}:${bytes.from}:${bytes.to}:${encoding}`;
      if (seen.has(key)) continue;
      seen.add(key);
      found.push({ index: f.index, ...bytes, encoding });
    }
    return next;
  }
}

/** Slots of the hash table of the forms' runs (a bit each): a few thousand runs leave it nearly empty. */
const TABLE = 1 << 22;
const BASE = 0x01000193;

/** The hash of the KEY characters at `i`, ASCII capitals lower-cased when `fold`. */
function hashAt(text: string, i: number, fold = false): number {
  let h = 0;
  for (let k = 0; k < KEY; k++) h = (Math.imul(h, BASE) + charAt(text, i + k, fold)) | 0;
  return h;
}

/** A character code, an ASCII capital lower-cased when `fold` (the caseless forms are lower case). */
function charAt(text: string, i: number, fold: boolean): number {
  const c = text.charCodeAt(i);
  return fold && c >= 65 && c <= 90 ? c + 32 : c;
}

/** The whole token bytes that form characters `[a, b)` carry. */
function bytesOf(f: Indexed, a: number, b: number): { from: number; to: number } | null {
  const from = Math.ceil((f.bitStart + a * f.bits) / 8);
  const to = Math.min(f.length, Math.floor((f.bitStart + b * f.bits) / 8));
  if (to <= from) return null;
  return f.reversed ? { from: f.length - to, to: f.length - from } : { from, to };
}
