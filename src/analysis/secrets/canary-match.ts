import { brotliDecompressSync, constants, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';

/**
 * One way a canary token may be carried, and the text it leaves. `bits` per character and the bit
 * of the token where `text` starts (`reversed`: from the token's end) say which token bytes a piece
 * of the text carries.
 */
export type CanaryForm = {
  text: string;
  encoding: string;
  caseless: boolean;
  bits: number;
  bitStart: number;
  reversed?: boolean;
};

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const BASE32_HEX = '0123456789ABCDEFGHIJKLMNOPQRSTUV';

function base32(bytes: Buffer, alphabet: string): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}

/**
 * The characters of an encoding of the token that depend only on the token's own bytes, for each
 * byte alignment the token can start at inside a longer encoded text (`group` bytes per quantum,
 * `bits` per character: base64 3 and 6, base32 5 and 5).
 */
function aligned(
  bytes: Buffer,
  group: number,
  bits: number,
  encode: (b: Buffer) => string,
): { inner: string; bitStart: number }[] {
  const out: { inner: string; bitStart: number }[] = [];
  for (let lead = 0; lead < group; lead++) {
    const encoded = encode(Buffer.concat([Buffer.alloc(lead), bytes]));
    const first = Math.ceil((lead * 8) / bits);
    const inner = encoded.slice(first, Math.floor(((lead + bytes.length) * 8) / bits));
    if (inner.length >= 12) out.push({ inner, bitStart: first * bits - lead * 8 });
  }
  return out;
}

/**
 * A canary token as it may be carried: its bytes, reversed, hex of its bytes, base64 (standard and
 * URL alphabets) and base32 (RFC 4648 and its hex alphabet) at every byte alignment inside a longer
 * encoded text. `caseless` forms are matched whatever the case (hex, base32, the token itself: a DNS
 * name may be lower-cased on its way); base64 is matched as written.
 */
export function canaryForms(token: string): CanaryForm[] {
  const bytes = Buffer.from(token, 'utf8');
  const forms: CanaryForm[] = [
    { text: token, encoding: 'exact', caseless: true, bits: 8, bitStart: 0 },
    {
      text: [...token].reverse().join(''),
      encoding: 'reversed',
      caseless: true,
      bits: 8,
      bitStart: 0,
      reversed: true,
    },
    { text: bytes.toString('hex'), encoding: 'hex', caseless: true, bits: 4, bitStart: 0 },
    { text: rot13(token), encoding: 'rot13', caseless: true, bits: 8, bitStart: 0 },
  ];
  for (const { inner, bitStart } of aligned(bytes, 3, 6, (b) => b.toString('base64'))) {
    forms.push({ text: inner, encoding: 'base64', caseless: false, bits: 6, bitStart });
    const url = inner.replace(/\+/g, '-').replace(/\//g, '_');
    if (url !== inner) forms.push({ text: url, encoding: 'base64', caseless: false, bits: 6, bitStart });
  }
  for (const alphabet of [BASE32, BASE32_HEX]) {
    for (const { inner, bitStart } of aligned(bytes, 5, 5, (b) => base32(b, alphabet)))
      forms.push({ text: inner, encoding: 'base32', caseless: true, bits: 5, bitStart });
  }
  return forms.map((f) => (f.caseless ? { ...f, text: f.text.toLowerCase() } : f));
}

/** Letters turned 13 places (digits and the rest as they are). */
function rot13(text: string): string {
  return text.replace(/[A-Za-z]/g, (c) => {
    const base = c <= 'Z' ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });
}

/** Decoded escapes: `%41`, `\x41`, `\u0041`, `&#x41;`, `&#65;` (URL, C, JSON and HTML spellings). */
const ESCAPE =
  /%([0-9a-fA-F]{2})|\\x([0-9a-fA-F]{2})|\\u([0-9a-fA-F]{4})|&#x([0-9a-fA-F]{1,6});|&#([0-9]{1,7});/g;

function unescapeOnce(text: string): string {
  return text.replace(ESCAPE, (_m, pct, cx, ju, hx, dec) => {
    const code = Number.parseInt(pct ?? cx ?? ju ?? hx ?? dec, pct || cx || ju || hx ? 16 : 10);
    return code <= 0x10ffff ? String.fromCodePoint(code) : '';
  });
}

/**
 * Separators an encoder or a DNS name puts between the pieces of one value (wrapped base64, `aa:bb`,
 * labels), a form's `+` for a space and a path's `/`. What they join is a view of its own: a base64
 * run keeps its `+` and `/` in the text as carried.
 */
const SEPARATORS = /[\s.:,'"`\\+/-]+/g;

/** Runs of base64, hex or base32 long enough to hide a token (16 bytes or more), decoded and scanned again (base64 of hex, hex of gzip...). */
const BASE64_RUN = /[A-Za-z0-9+/_-]{24,}={0,2}/g;
const HEX_RUN = /(?:[0-9a-fA-F]{2}){16,}/g;
const BASE32_RUN = /[A-Za-z2-7]{26,}/g;
/** A list of character codes (`String.fromCharCode(65, 75, …)`, `bytes([65, 75, …])`). */
const CODES_RUN = /\b(?:\d{1,3}\s*,\s*){15,}\d{1,3}\b/g;
const MAX_DEPTH = 2;

/** A text a canary may be found in, and how it was undone from what was carried (`''` for as carried). */
export type CarrierView = { text: string; via: string };

/**
 * The texts a carried canary may be found in: the text itself, its escapes decoded (up to three
 * times, for double encoding), without separators (a token split over DNS labels or wrapped
 * base64), reversed, and what runs of base64 and hex in it decode to, decompressed where they are
 * gzip or zlib (two levels deep, within `budget` characters over all of them).
 */
export function carrierViews(text: string, budget = 4 * text.length + 4096): CarrierView[] {
  const views: CarrierView[] = [];
  let left = budget;
  const add = (t: string, via: string[]): boolean => {
    if (t.length === 0 || left < t.length) return false;
    left -= t.length;
    views.push({ text: t, via: via.join('+') });
    return true;
  };
  const expand = (t: string, via: string[], depth: number): void => {
    if (!add(t, via)) return;
    // UTF-16 (either byte order) read as bytes: every other byte of ASCII text is a NUL.
    const wide = utf16Text(t);
    if (wide !== null) expand(wide, [...via, 'utf16'], depth);
    // Bytes a run decoded to that are not text (a run of letters that was never base64) are only
    // searched as they are: a token inside binary is still found, nothing is built on noise.
    if (depth > 0 && !mostlyText(t)) return;
    let decoded = t;
    for (let i = 0; i < 3 && hasEscape(decoded); i++) decoded = unescapeOnce(decoded);
    const unescaped = decoded === t ? via : [...via, 'escaped'];
    if (decoded !== t) add(decoded, unescaped);
    const joined = decoded.replace(SEPARATORS, '');
    if (joined !== decoded) add(joined, [...unescaped, 'split']);
    add(reverse(decoded), [...unescaped, 'reversed']);
    if (depth >= MAX_DEPTH) return;
    // Runs as they stand, and as joined (wrapped base64): a separator before a run must not shift it.
    const runs: [string, string][] = [];
    for (const v of [decoded, joined]) {
      for (const r of v.match(BASE64_RUN) ?? []) runs.push(['base64', r]);
      for (const r of v.match(HEX_RUN) ?? []) runs.push(['hex', r]);
      for (const r of v.match(BASE32_RUN) ?? []) runs.push(['base32', r]);
      for (const r of v.match(CODES_RUN) ?? []) runs.push(['codes', r]);
    }
    const tried = new Set<string>();
    for (const [encoding, run] of runs) {
      if (tried.has(`${encoding}:${run}`)) continue;
      tried.add(`${encoding}:${run}`);
      const bytes = decodeRun(encoding, run);
      if (bytes.length < 8) continue;
      const inflated = decompressed(bytes, Math.max(0, left));
      const step = [...unescaped, encoding, ...(inflated ? ['compressed'] : [])];
      expand((inflated ?? bytes).toString('latin1'), step, depth + 1);
    }
  };
  expand(text, [], 0);
  return views;
}

/** The text without its NULs, where a quarter or more of it is NULs (UTF-16 or UTF-32 of ASCII); else null. */
function utf16Text(text: string): string | null {
  let nul = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 0) nul++;
  return text.length >= 16 && nul * 4 >= text.length ? text.replace(/\0/g, '') : null;
}

function decodeRun(encoding: string, run: string): Buffer {
  if (encoding === 'codes') {
    const codes = run.split(/\s*,\s*/).map(Number);
    return codes.every((c) => c < 256) ? Buffer.from(codes) : Buffer.alloc(0);
  }
  if (encoding === 'hex') return Buffer.from(run, 'hex');
  if (encoding === 'base64') return Buffer.from(run.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of run.toUpperCase()) {
    value = (value << 5) | BASE32.indexOf(ch);
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
    value &= (1 << bits) - 1;
  }
  return Buffer.from(out);
}

/** Reversed by UTF-16 unit: the tokens are ASCII, so what else is mangled does not matter. */
function reverse(text: string): string {
  const units = new Uint16Array(text.length);
  for (let i = 0; i < text.length; i++) units[text.length - 1 - i] = text.charCodeAt(i);
  let out = '';
  for (let i = 0; i < units.length; i += 8192) out += String.fromCharCode(...units.subarray(i, i + 8192));
  return out;
}

/** Nine in ten characters printable ASCII or white space. */
function mostlyText(text: string): boolean {
  let printable = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c >= 0x20 && c < 0x7f) || c === 0x09 || c === 0x0a || c === 0x0d) printable++;
  }
  return printable * 10 >= text.length * 9;
}

function hasEscape(text: string): boolean {
  ESCAPE.lastIndex = 0;
  const found = ESCAPE.test(text);
  ESCAPE.lastIndex = 0;
  return found;
}

/**
 * The bytes inflated when they start as gzip or zlib do (magic bytes), at most
 * `limit` bytes out; null when they are not compressed or do not inflate within the limit.
 */
export function decompressed(bytes: Buffer, limit: number): Buffer | null {
  if (limit <= 0 || bytes.length < 3) return null;
  // A stream cut short (a bounded capture) still gives what inflates so far (a sync flush).
  const opts = { maxOutputLength: limit, finishFlush: constants.Z_SYNC_FLUSH };
  try {
    if (bytes[0] === 0x1f && bytes[1] === 0x8b) return gunzipSync(bytes, opts);
    if (bytes[0] === 0x78 && [0x01, 0x5e, 0x9c, 0xda].includes(bytes[1] ?? 0))
      return inflateSync(bytes, opts);
  } catch {
    // corrupt, or larger than the limit
  }
  return null;
}

/** The body undone from its Content-Encoding (gzip, deflate, br, or several in order); null when it cannot be. */
export function undoContentEncoding(encoding: string, bytes: Buffer, limit: number): Buffer | null {
  let out = bytes;
  const steps = encoding
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '' && s !== 'identity')
    .reverse();
  for (const step of steps) {
    const opts = { maxOutputLength: limit, finishFlush: constants.Z_SYNC_FLUSH };
    try {
      if (step === 'gzip' || step === 'x-gzip') out = gunzipSync(out, opts);
      else if (step === 'deflate') {
        try {
          out = inflateSync(out, opts);
        } catch {
          out = inflateRawSync(out, opts);
        }
      } else if (step === 'br') out = brotliDecompressSync(out, opts);
      else return null;
    } catch {
      return null;
    }
  }
  return out;
}

/** The encoding a match names: the steps that undid the view, then the form (`exact` alone when nothing was). */
function encodingOf(via: string, form: string): string {
  const steps = [...(via === '' ? [] : via.split('+')), ...(form === 'exact' ? [] : [form])];
  return steps.length === 0 ? 'exact' : steps.join('+');
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * Every form of a set of tokens in two patterns (caseless and as written), so that each view of a
 * text is read once for all tokens. `find` gives, per token index, the encoding of its first match
 * in view order.
 */
export class CanarySet {
  readonly #caseless: RegExp | null;
  readonly #cased: RegExp | null;
  readonly #forms = new Map<string, { index: number; encoding: string }>();

  constructor(tokens: readonly string[]) {
    const caseless: string[] = [];
    const cased: string[] = [];
    tokens.forEach((token, index) => {
      for (const f of canaryForms(token)) {
        const key = `${f.caseless ? 'i' : 'c'}${f.text}`;
        if (this.#forms.has(key)) continue;
        this.#forms.set(key, { index, encoding: f.encoding });
        (f.caseless ? caseless : cased).push(escapeRegex(f.text));
      }
    });
    // Longer forms first, so that a form inside another does not hide it.
    const byLength = (a: string, b: string) => b.length - a.length;
    this.#caseless = caseless.length ? new RegExp(caseless.sort(byLength).join('|'), 'gi') : null;
    this.#cased = cased.length ? new RegExp(cased.sort(byLength).join('|'), 'g') : null;
  }

  find(views: readonly CarrierView[]): Map<number, string> {
    const found = new Map<number, string>();
    for (const v of views) {
      for (const [re, prefix] of [
        [this.#cased, 'c'],
        [this.#caseless, 'i'],
      ] as const) {
        if (re === null) continue;
        for (const m of v.text.matchAll(re)) {
          const form = this.#forms.get(`${prefix}${prefix === 'i' ? m[0].toLowerCase() : m[0]}`);
          if (form && !found.has(form.index)) found.set(form.index, encodingOf(v.via, form.encoding));
        }
      }
    }
    return found;
  }
}

/** The first form of one token found in the views, and the encoding it names. */
export function findCanary(views: readonly CarrierView[], forms: readonly CanaryForm[]): string | undefined {
  for (const v of views) {
    for (const f of forms) {
      if ((f.caseless ? v.text.toLowerCase() : v.text).includes(f.text)) return encodingOf(v.via, f.encoding);
    }
  }
  return undefined;
}
