/*
 * Which names may be in a pack. The same rules at build time (so a pack we write never fails its
 * own verification) and at verify time (so a crafted archive cannot place a file anywhere but
 * under the import folder). Names are `/`-separated, relative, without `.` or `..` parts.
 */

const MAX_NAME_BYTES = 1024;
const MAX_PART_BYTES = 255;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Why `name` cannot be a pack entry, or null when it can. */
export function checkEntryName(name: string): string | null {
  if (name === '') return 'has an empty name';
  if (CONTROL.test(name)) return 'has a control character in its name';
  if (name.includes('\\')) return 'has a backslash in its name (read as a folder separator on Windows)';
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return 'is an absolute path';
  const parts = name.split('/');
  if (parts.includes('..')) return "climbs out of the pack with '..'";
  if (parts.includes('.') || parts.includes('')) return "has an empty or '.' part in its path";
  if (Buffer.byteLength(name) > MAX_NAME_BYTES) return `has a name longer than ${MAX_NAME_BYTES} bytes`;
  if (parts.some((p) => Buffer.byteLength(p) > MAX_PART_BYTES))
    return `has a path part longer than ${MAX_PART_BYTES} bytes`;
  return null;
}

/**
 * The name as the most forgiving file system or tool would see it: two entries with one key could
 * land on one file (macOS and Windows ignore case, some tools fold compatibility forms), the second
 * silently replacing the first, or read as one name to a person checking the pack. NFKC folds
 * compatibility forms (`ﬁ`, full-width letters); upper- then lower-casing is full case folding for
 * names (`ſ` → `s`, `ı` → `i`, `ß` → `ss`, which lower-casing alone leaves apart); default-ignorable
 * code points (zero-width spaces and joiners, variation selectors, soft hyphens) are dropped, since
 * they show as nothing.
 */
export function collisionKey(name: string): string {
  return name
    .normalize('NFKC')
    .toUpperCase()
    .toLowerCase()
    .normalize('NFKC')
    .replace(/\p{Default_Ignorable_Code_Point}/gu, '');
}

/**
 * True when `target` (a symlink's text) resolves, from the link at `link`, inside `root/`. `..` may
 * only lead the target: after a name that is itself a link, `..` would climb from wherever that
 * link points, which a lexical check cannot see.
 */
export function linkStaysInside(link: string, target: string, root: string): boolean {
  if (target === '' || target.startsWith('/') || target.includes('\\') || target.includes('\0')) return false;
  const parts = link.split('/').slice(0, -1);
  let named = false;
  for (const part of target.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (named || parts.length === 0) return false;
      parts.pop();
    } else {
      named = true;
      parts.push(part);
    }
  }
  const resolved = parts.join('/');
  return resolved.startsWith(`${root}/`);
}

/**
 * The folder a symlink must stay in: a repo template's own folder (`repos/NAME`) for its files,
 * the top-level folder (`configs`, `contracts`) for everything else.
 */
export function linkRoot(link: string): string {
  const parts = link.split('/');
  return parts[0] === 'repos' && parts.length > 2 ? `repos/${parts[1]}` : (parts[0] ?? '');
}
