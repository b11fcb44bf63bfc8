import { createHash } from 'node:crypto';
import { closeSync, openSync, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { errorMessage } from '../errors.js';
import { IMPORTED_MARK } from '../policy/pack-provenance.js';
import { checkEntryName, collisionKey } from './entry-names.js';
import { type EntrySpan, entrySpan, localNameProblem, unlistedBytes } from './local-header.js';
import { MANIFEST_PATH } from './manifest.js';

/*
 * One pass over a pack with yauzl, reading the central directory and streaming each entry's bytes
 * into a hash — nothing is written anywhere. Everything about an entry that could hurt on import is
 * judged from its metadata before a byte is inflated: its name, its type (from the Unix mode in the
 * external attributes), its declared sizes against the limits and against each other (a zip bomb
 * declares a huge size from a tiny compressed one). yauzl then enforces the declared size while
 * inflating, so a size that lies stops the read at the first extra byte.
 */

export type PackLimits = {
  /** Entries in one archive. */
  maxEntries: number;
  /** Uncompressed bytes of one entry. */
  maxEntryBytes: number;
  /** Uncompressed bytes of all entries together (and the archive's own size). */
  maxTotalBytes: number;
  /** Uncompressed / compressed, judged for entries above `ratioFloorBytes`. */
  maxRatio: number;
  ratioFloorBytes: number;
};

export const DEFAULT_LIMITS: PackLimits = {
  maxEntries: 50_000,
  maxEntryBytes: 64 * 1024 * 1024,
  maxTotalBytes: 512 * 1024 * 1024,
  maxRatio: 100,
  ratioFloorBytes: 1024 * 1024,
};

/** The manifest and a symlink's target are read into memory; both are small by nature. */
export const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;
const MAX_LINK_BYTES = 4096;

export type PackProblem = { entry?: string; reason: string };

const MAX_PROBLEMS = 100;

export type ZipEntry =
  | { name: string; type: 'file'; size: number; executable: boolean; sha256: string }
  | { name: string; type: 'symlink'; size: number; target: string; sha256: string }
  | { name: string; type: 'dir' };

export type ZipScan =
  | { ok: true; entries: ZipEntry[]; manifest: Buffer | null }
  | { ok: false; problems: PackProblem[] };

const S_IFMT = 0o170000;
// A Map, not an object literal: an octal number as an object key is easy to mangle into another number.
const TYPES = new Map<number, string>([
  [0o010000, 'a fifo'],
  [0o020000, 'a character device'],
  [0o060000, 'a block device'],
  [0o140000, 'a socket'],
]);

/** What the entry's Unix mode says it is, or why it is refused. */
function entryType(e: yauzl.Entry, name: string): 'file' | 'symlink' | 'dir' | { reason: string } {
  const dirName = name.endsWith('/');
  // Only an archive made on Unix (version made by, high byte 3) carries a Unix mode.
  if (e.versionMadeBy >> 8 !== 3) return dirName ? 'dir' : 'file';
  const mode = e.externalFileAttributes >>> 16;
  const kind = mode & S_IFMT;
  const special = TYPES.get(kind);
  if (special !== undefined) return { reason: `is ${special}, which a pack may not hold` };
  if (mode & 0o7000) return { reason: 'has the setuid, setgid or sticky bit, which a pack may not hold' };
  if (kind === 0o120000) return dirName ? { reason: 'is a symlink with a folder name' } : 'symlink';
  if (kind === 0o040000 || dirName) return dirName ? 'dir' : { reason: 'is a folder without a trailing /' };
  if (kind === 0o100000 || kind === 0) return 'file';
  return { reason: `has an unknown file type (mode ${mode.toString(8)})` };
}

function decodeName(e: yauzl.Entry): string {
  // Strict: a backslash stays a backslash, so it is seen and refused rather than turned into `/`.
  return yauzl.getFileNameLowLevel(e.generalPurposeBitFlag, e.fileNameRaw, e.extraFields, true);
}

const MARK_KEY = collisionKey(IMPORTED_MARK);

/** A problem of the name as a folding file system sees it, said as such. */
function foldedProblem(key: string): string | null {
  const problem = checkEntryName(key);
  return problem === null ? null : `${problem} once case and Unicode forms are folded (as '${key}')`;
}

/** Why yauzl stopped, in words about the entry. */
function streamProblem(err: Error, declared: number): string {
  const m = err.message;
  if (/too many bytes/.test(m)) return `holds more than the ${declared} bytes it declares`;
  if (/not enough bytes/.test(m)) return `holds fewer than the ${declared} bytes it declares`;
  return `cannot be read: ${m}`;
}

export async function scanZip(file: string, limits: PackLimits = DEFAULT_LIMITS): Promise<ZipScan> {
  const size = statSync(file).size;
  if (size > limits.maxTotalBytes)
    return {
      ok: false,
      problems: [{ reason: `is ${size} bytes, over the ${limits.maxTotalBytes}-byte limit` }],
    };
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.openPromise(file, {
      lazyEntries: true,
      decodeStrings: false,
      validateEntrySizes: true,
      autoClose: false,
    });
  } catch (err) {
    return { ok: false, problems: [{ reason: `is not a readable zip archive (${errorMessage(err)})` }] };
  }
  // The local headers are read beside yauzl, which reads each only to find the entry's data.
  const fd = openSync(file, 'r');
  try {
    return await scanEntries(zip, fd, limits);
  } finally {
    closeSync(fd);
    zip.close();
  }
}

async function scanEntries(zip: yauzl.ZipFile, fd: number, limits: PackLimits): Promise<ZipScan> {
  const problems: PackProblem[] = [];
  const entries: ZipEntry[] = [];
  const seen = new Map<string, string>();
  const spans: EntrySpan[] = [];
  let manifest: Buffer | null = null;
  let total = 0;
  if (zip.entryCount > limits.maxEntries)
    return {
      ok: false,
      problems: [{ reason: `has ${zip.entryCount} entries, over the limit of ${limits.maxEntries}` }],
    };
  try {
    for await (const e of zip.eachEntry()) {
      const name = decodeName(e);
      const refuse = (reason: string) => problems.push({ entry: name, reason });
      // A crafted archive can hold thousands of bad names; a hundred reasons are enough to refuse it.
      if (problems.length >= MAX_PROBLEMS) break;
      const bare = name.endsWith('/') ? name.slice(0, -1) : name;
      const key = collisionKey(bare);
      // The folded name too: a name that folds to `..` or a backslash is one on a folding system.
      const nameProblem = checkEntryName(bare) ?? foldedProblem(key);
      if (nameProblem !== null) {
        refuse(nameProblem);
        continue;
      }
      if (key.split('/').includes(MARK_KEY)) {
        refuse(`has the name of the mark 'pack import' writes (${IMPORTED_MARK}), which a pack may not hold`);
        continue;
      }
      const earlier = seen.get(key);
      if (earlier !== undefined) {
        refuse(
          earlier === bare
            ? 'appears twice'
            : `collides with '${earlier}' once case, Unicode forms and invisible characters are ignored`,
        );
        continue;
      }
      const twoNames = localNameProblem(fd, e);
      if (twoNames !== null) {
        refuse(twoNames);
        continue;
      }
      const span = entrySpan(fd, e, name);
      if (typeof span === 'string') {
        refuse(span);
        continue;
      }
      spans.push(span);
      seen.set(key, bare);
      const type = entryType(e, name);
      if (typeof type === 'object') {
        refuse(type.reason);
        continue;
      }
      if (type === 'dir') {
        if (e.uncompressedSize !== 0) refuse('is a folder with content');
        else entries.push({ name: bare, type: 'dir' });
        continue;
      }
      if (e.isEncrypted()) {
        refuse('is encrypted');
        continue;
      }
      if (!e.canDecodeFileData()) {
        refuse(`uses compression method ${e.compressionMethod}, which a pack may not use`);
        continue;
      }
      const declared = e.uncompressedSize;
      if (declared > limits.ratioFloorBytes && declared / Math.max(1, e.compressedSize) > limits.maxRatio) {
        refuse(
          `inflates ${e.compressedSize} bytes to ${declared} (ratio over ${limits.maxRatio}): a zip bomb`,
        );
        break;
      }
      if (declared > limits.maxEntryBytes) {
        refuse(`is ${declared} bytes, over the ${limits.maxEntryBytes}-byte limit for one file`);
        break;
      }
      total += declared;
      if (total > limits.maxTotalBytes) {
        refuse(`takes the pack over ${limits.maxTotalBytes} bytes in all`);
        break;
      }
      const keep = name === MANIFEST_PATH ? MAX_MANIFEST_BYTES : type === 'symlink' ? MAX_LINK_BYTES : 0;
      if (keep > 0 && declared > keep) {
        refuse(
          `is ${declared} bytes, over the ${keep}-byte limit for ${type === 'symlink' ? 'a link' : 'the manifest'}`,
        );
        break;
      }
      const read = await hashEntry(zip, e, keep > 0);
      if (!read.ok) {
        refuse(streamProblem(read.error, declared));
        break;
      }
      if (name === MANIFEST_PATH) {
        if (type !== 'file') refuse('must be a regular file');
        else manifest = read.bytes;
        continue;
      }
      if (type === 'symlink')
        entries.push({
          name,
          type,
          size: declared,
          target: read.bytes.toString('utf8'),
          sha256: read.sha256,
        });
      else
        entries.push({
          name,
          type,
          size: declared,
          executable: ((e.externalFileAttributes >>> 16) & 0o111) !== 0,
          sha256: read.sha256,
        });
    }
    // Only once every entry is known: what the central directory does not account for is hidden.
    if (problems.length === 0) {
      const hidden = unlistedBytes(fd, spans);
      if (hidden !== null) problems.push(hidden);
    }
  } catch (err) {
    problems.push({ reason: `is not a well-formed zip archive (${errorMessage(err)})` });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, entries, manifest };
}

async function hashEntry(
  zip: yauzl.ZipFile,
  e: yauzl.Entry,
  keep: boolean,
): Promise<{ ok: true; sha256: string; bytes: Buffer } | { ok: false; error: Error }> {
  let stream: Readable;
  try {
    stream = await zip.openReadStreamPromise(e);
  } catch (err) {
    return { ok: false, error: err as Error };
  }
  const hash = createHash('sha256');
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of stream) {
      hash.update(chunk as Buffer);
      if (keep) chunks.push(chunk as Buffer);
    }
  } catch (err) {
    return { ok: false, error: err as Error };
  }
  return { ok: true, sha256: hash.digest('hex'), bytes: Buffer.concat(chunks) };
}
