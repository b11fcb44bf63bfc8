/**
 * Reading strace's argument syntax: quoted strings with C escapes, `-y` fd annotations
 * (`3</some/path>`, `AT_FDCWD</cwd>`), arrays, structs and comments.
 */

/** A string argument as strace printed it; `truncated` when strace cut it at its `-s` limit. */
export type QuotedString = { value: string; truncated: boolean };

/** A descriptor argument; `path` is present when `-y` could decode it. */
export type FdArgument = { fd: number | 'AT_FDCWD'; path?: string };

const SIMPLE_ESCAPES: Record<string, number> = { n: 10, t: 9, v: 11, f: 12, r: 13, a: 7, b: 8, e: 27 };
const utf8 = new TextEncoder();

/**
 * Turns the body of a strace string (between the quotes) into text. strace prints every byte outside
 * printable ASCII as an escape (octal by default, hex with -x), so UTF-8 is rebuilt from the bytes.
 */
export function decodeEscapes(body: string): string {
  // Most paths are plain ASCII; skip the byte round trip for them.
  if (!/[\\\u0080-\uffff]/.test(body)) return body;
  const bytes: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const code = body.charCodeAt(i);
    if (code !== 0x5c) {
      pushChar(bytes, body, i);
      // A raw astral character occupies two UTF-16 units; pushChar consumed both.
      if (code >= 0xd800 && code <= 0xdbff) i++;
      continue;
    }
    const next = body[i + 1];
    if (next === undefined) {
      bytes.push(0x5c);
      break;
    }
    const simple = SIMPLE_ESCAPES[next];
    if (simple !== undefined) {
      bytes.push(simple);
      i++;
    } else if (next === 'x' && isHex(body[i + 2])) {
      let digits = body[i + 2] as string;
      if (isHex(body[i + 3])) digits += body[i + 3];
      bytes.push(Number.parseInt(digits, 16));
      i += 1 + digits.length;
    } else if (isOctal(next)) {
      // strace writes the fewest digits that stay unambiguous, so read up to three.
      let digits = next;
      while (digits.length < 3 && isOctal(body[i + 1 + digits.length])) digits += body[i + 1 + digits.length];
      bytes.push(Number.parseInt(digits, 8) & 0xff);
      i += digits.length;
    } else {
      // \" \\ \' and anything unknown stand for the character itself.
      pushChar(bytes, body, i + 1);
      i++;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

function pushChar(bytes: number[], text: string, index: number): void {
  const code = text.codePointAt(index) ?? 0;
  if (code < 0x80) bytes.push(code);
  else for (const byte of utf8.encode(String.fromCodePoint(code))) bytes.push(byte);
}

function isOctal(ch: string | undefined): boolean {
  return ch !== undefined && ch >= '0' && ch <= '7';
}

function isHex(ch: string | undefined): boolean {
  return ch !== undefined && /^[0-9a-fA-F]$/.test(ch);
}

/** Index just past the closing `"` of the string opening at `start`, or -1 when it never closes. */
function skipQuoted(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const ch = text[i];
    if (ch === '\\') i++;
    else if (ch === '"') return i + 1;
  }
  return -1;
}

/** Index just past the `>` that closes a `-y` annotation opening at `start` (`<` and `>` inside are escaped). */
function skipAngle(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const ch = text[i];
    if (ch === '\\') i++;
    else if (ch === '>') return i + 1;
  }
  return -1;
}

const OPENERS = new Set(['(', '[', '{']);
const CLOSERS = new Set([')', ']', '}']);

/**
 * Splits the comma-separated items that start at `start` (just after an opening bracket) up to the
 * bracket that closes it. Returns the trimmed items and the index of that closing bracket, or null
 * when the text ends first (a cut or corrupt line).
 */
export function splitTopLevel(text: string, start: number): { parts: string[]; end: number } | null {
  const parts: string[] = [];
  let depth = 0;
  let partStart = start;
  for (let i = start; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === '"') {
      const next = skipQuoted(text, i);
      if (next < 0) return null;
      i = next - 1;
    } else if (ch === '<' && text[i + 1] !== '<' && /[0-9A-Z]/.test(text[i - 1] ?? '')) {
      // `3</path>` is a descriptor's path; `1<<CAP_SETUID` (capset's sets) is a shift, skipped whole.
      const next = skipAngle(text, i);
      if (next < 0) return null;
      i = next - 1;
    } else if (ch === '<' && text[i + 1] === '<') {
      i++;
    } else if (ch === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2);
      if (close < 0) return null;
      i = close + 1;
    } else if (OPENERS.has(ch)) {
      depth++;
    } else if (CLOSERS.has(ch)) {
      if (depth === 0) {
        const last = text.slice(partStart, i).trim();
        if (last !== '' || parts.length > 0) parts.push(last);
        return { parts, end: i };
      }
      depth--;
    } else if (ch === ',' && depth === 0) {
      parts.push(text.slice(partStart, i).trim());
      partStart = i + 1;
    }
  }
  return null;
}

/** `"text"` or `"text"...` (cut by -s); null for NULL, addresses and anything else. */
export function parseQuoted(token: string | undefined): QuotedString | null {
  if (token === undefined || !token.startsWith('"')) return null;
  const end = skipQuoted(token, 0);
  if (end < 0) return null;
  const tail = token.slice(end);
  if (tail !== '' && tail !== '...') return null;
  return { value: decodeEscapes(token.slice(1, end - 1)), truncated: tail === '...' };
}

/** `3`, `3</path>`, `AT_FDCWD` or `AT_FDCWD</cwd>`. */
export function parseFd(token: string | undefined): FdArgument | null {
  if (token === undefined) return null;
  // `-y` marks a descriptor of a deleted file (a memfd is one) with `(deleted)` after the path.
  const match = /^(-?\d+|AT_FDCWD)(?:<(.*)>(?:\(deleted\))?)?$/s.exec(token);
  if (!match) return null;
  const fd = match[1] === 'AT_FDCWD' ? 'AT_FDCWD' : Number(match[1]);
  return match[2] === undefined ? { fd } : { fd, path: decodeEscapes(match[2]) };
}

/** `["a", "b"...]` or `["a", ...]`: the strings, and whether strace cut any of them or the list. */
export function parseStringArray(
  token: string | undefined,
): { values: string[]; truncated: boolean; cut: boolean[]; more: boolean } | null {
  if (token === undefined || !token.startsWith('[')) return null;
  const split = splitTopLevel(token, 1);
  if (!split || split.end !== token.length - 1) return null;
  const values: string[] = [];
  // Which items strace cut at its string limit, and whether it left items out (`...`).
  const cut: boolean[] = [];
  let more = false;
  for (const part of split.parts) {
    if (part === '...') {
      more = true;
      continue;
    }
    const item = parseQuoted(part);
    if (!item) return null;
    values.push(item.value);
    cut.push(item.truncated);
  }
  return { values, truncated: more || cut.includes(true), cut, more };
}

/** The symbolic names of a flags argument: `O_WRONLY|O_CREAT|0x8000` → the names and raw numbers. */
export function parseFlags(token: string | undefined): Set<string> {
  return new Set((token ?? '').split('|').map((flag) => flag.trim()));
}

/** The flags named inside a struct argument, e.g. openat2's `{flags=O_RDONLY|O_CLOEXEC, ...}`. */
export function structFlags(token: string | undefined): Set<string> {
  const match = /(?:^|[{\s,])flags=([^,}\s]+)/.exec(token ?? '');
  return parseFlags(match?.[1]);
}
