/**
 * File names on Linux are bytes, not text: a name may hold bytes that are not UTF-8 (0xff). The
 * harness carries names as Buffers wherever it touches the file system or git, and turns them into
 * text only to show or match them. These are the two conversions, kept in one place so every
 * report shows such a name the same way.
 */

/** A name as people and globs see it: UTF-8, with U+FFFD for each byte that is not (as git's -z output decoded). */
export function displayPath(name: Buffer): string {
  return name.toString('utf8');
}

/** A name as a lossless string key: one char per byte, so two different names never collide. */
export function pathKey(name: Buffer): string {
  return name.toString('latin1');
}

/** Split NUL-terminated git output (`-z`) into byte names, dropping empty records. */
export function splitZBytes(buf: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let start = 0;
  for (let i = 0; i < buf.length; i++) {
    if (buf[i] === 0) {
      if (i > start) out.push(buf.subarray(start, i));
      start = i + 1;
    }
  }
  if (start < buf.length) out.push(buf.subarray(start));
  return out;
}

/** `a/b` of two byte names; `b` alone when `a` is empty (the root). */
export function joinBytes(a: Buffer, b: Buffer): Buffer {
  return a.length === 0 ? b : Buffer.concat([a, SLASH, b]);
}
const SLASH = Buffer.from('/');

/** The folder part of a byte name (`a/b` of `a/b/c`, `/` of `/a`); empty when it has no slash. */
export function dirnameBytes(name: Buffer): Buffer {
  const at = name.lastIndexOf(0x2f);
  return at === 0 ? SLASH : name.subarray(0, Math.max(at, 0));
}
