import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, realpathSync, rmSync, symlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { InputError } from '../errors.js';
import { sha256File } from '../provenance/digest.js';
import { readRecords } from './bundle-records.js';
import { BUNDLE_FORMAT, type Entry, fileChunks, listBundle } from './bundle-writer.js';

/*
 * A content-addressed bundle of folder trees and files: one gzip'd stream of records, sorted by
 * path, each a JSON header line (path, kind, executable bit, a file's size, a link's target) and,
 * for a file, its bytes. The same content always gives the same bytes, so their sha256 names the
 * content: a job names its task bundle by digest, and a worker refuses bytes whose digest differs.
 * Records rather than one JSON document, so a reader streams a bundle of any size from a file with
 * one chunk in memory (bundle-records.ts); rather than tar: no device files, owners or absolute
 * names to defend against.
 */

export { BUNDLE_FORMAT } from './bundle-writer.js';

export type Bundle = { bytes: Buffer; sha256: string };

export function sha256Of(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Bundle `paths` (files or folders, each given relative to `root`, which holds them all) in memory,
 * for a small tree; `writeBundleFile` writes the same bytes to a file a chunk at a time. `skip`
 * names folder entries left out wherever they are (an output folder inside a task folder).
 */
export function bundlePaths(
  root: string,
  paths: readonly string[],
  skip: ReadonlySet<string> = new Set(),
): Bundle {
  const parts: Buffer[] = [Buffer.from(`${JSON.stringify({ format: BUNDLE_FORMAT })}\n`)];
  for (const e of listBundle(root, paths, skip)) {
    parts.push(Buffer.from(`${JSON.stringify(e)}\n`));
    if (e.type === 'file') parts.push(...fileChunks(root, e));
  }
  const bytes = gzipSync(Buffer.concat(parts), { level: 6 });
  return { bytes, sha256: sha256Of(bytes) };
}

/**
 * How much a bundle may hold once uncompressed, how many entries (each costs an inode, and empty
 * files compress to nothing), and whether it may hold links at all.
 */
export type ExtractLimits = { expandedBytes: number; entries: number; links: boolean };

/** A name that stays inside the folder it is extracted into. */
function safeName(name: unknown): name is string {
  return (
    typeof name === 'string' &&
    name.length > 0 &&
    !name.startsWith('/') &&
    !name.includes('\0') &&
    name.split('/').every((part) => part !== '' && part !== '.' && part !== '..')
  );
}

/** A header as the bundle's own writer makes it: exactly these fields, a size only on a file. */
function wellFormed(e: unknown): e is Entry {
  if (e === null || typeof e !== 'object') return false;
  const x = e as Record<string, unknown>;
  const keys = Object.keys(x).sort().join(',');
  if (x.type === 'dir') return keys === 'path,type';
  if (x.type === 'file')
    return keys === 'exec,path,size,type' && typeof x.exec === 'boolean' && Number.isSafeInteger(x.size);
  return (
    x.type === 'symlink' && keys === 'path,target,type' && typeof x.target === 'string' && x.target.length > 0
  );
}

/** Links a link may go through before it is judged a loop, as the kernel's ELOOP limit. */
const MAX_LINK_HOPS = 40;

/**
 * Where `link` leads, resolving every link it meets on the way through the listing itself (a chain
 * `a -> b/..`, `b -> ..` leaves the folder although each target reads as inside): the path parts
 * under the root, or null when any step leaves the root, or it loops.
 */
function resolveInListing(byPath: ReadonlyMap<string, Entry>, link: string): string[] | null {
  let hops = 0;
  const walk = (from: readonly string[], target: string): string[] | null => {
    if (target.startsWith('/')) return null;
    const parts = [...from];
    for (const c of target.split('/')) {
      if (c === '' || c === '.') continue;
      if (c === '..') {
        if (parts.length === 0) return null;
        parts.pop();
        continue;
      }
      const e = byPath.get([...parts, c].join('/'));
      if (e?.type !== 'symlink') {
        parts.push(c);
        continue;
      }
      if (++hops > MAX_LINK_HOPS) return null;
      const to = walk(parts, e.target);
      if (to === null) return null;
      parts.splice(0, parts.length, ...to);
    }
    return parts;
  };
  const e = byPath.get(link);
  if (e?.type !== 'symlink') return null;
  return walk(link.split('/').slice(0, -1), e.target);
}

/** Every entry's name, kind and link checked against the listing, before anything is written. */
function checkEntries(entries: readonly Entry[], what: string, limits: ExtractLimits): void {
  const byPath = new Map<string, Entry>();
  for (const e of entries) {
    if (byPath.has(e.path)) throw new InputError(`${what}: bundle entry '${e.path}' appears twice; not run.`);
    byPath.set(e.path, e);
  }
  for (const e of byPath.values()) {
    // A folder or file under a link would be written through it.
    const parts = e.path.split('/');
    for (let i = 1; i < parts.length; i++)
      if (byPath.get(parts.slice(0, i).join('/'))?.type === 'symlink')
        throw new InputError(`${what}: bundle entry '${e.path}' lies under a link; not run.`);
    if (e.type !== 'symlink') continue;
    if (!limits.links)
      throw new InputError(
        `${what}: bundle entry '${e.path}' is a link, which this bundle may not hold; not run.`,
      );
    if (resolveInListing(byPath, e.path) === null)
      throw new InputError(`${what}: bundle link '${e.path}' points out of its folder; not run.`);
  }
}

/** One record's header as an entry, or the one sentence that refuses it. */
function entryOf(value: unknown, what: string): Entry {
  const name = (value as { path?: unknown } | null)?.path;
  if (!safeName(name))
    throw new InputError(`${what}: bundle entry '${String(name)}' leaves its folder; not run.`);
  if (!wellFormed(value))
    throw new InputError(`${what}: bundle entry '${name}' is not a file, folder or link; not run.`);
  return value;
}

/**
 * Check the bundle in `file` against `sha256`, then write its entries into `dest` (which must not
 * exist yet), streaming it twice: once to read and check every header, once to write. A digest
 * mismatch, a stream that expands past the limit or is cut short, a name that leaves `dest`, or a
 * link that leads out of it at any step of its resolution is refused before anything is written;
 * once written, each link is resolved on disk too and must stay under `dest` (else `dest` is
 * removed). `file` is the caller's private copy: nobody else writes it between the two reads.
 */
export async function extractBundleFile(
  file: string,
  sha256: string,
  dest: string,
  what: string,
  limits: ExtractLimits,
): Promise<void> {
  const got = sha256File(file).sha256;
  if (got !== sha256)
    throw new InputError(
      `${what}: bundle digest sha256:${got} does not match the job's sha256:${sha256}; not run. Fix: enqueue the batch again from an unmodified task folder.`,
    );
  const entries: Entry[] = [];
  await readRecords(file, what, limits.expandedBytes, {
    header: (value, i) => {
      if (i === 0) {
        const format = (value as { format?: unknown } | null)?.format;
        if (format !== BUNDLE_FORMAT || Object.keys(value as object).length !== 1)
          throw new InputError(
            `${what}: bundle format is not ${BUNDLE_FORMAT}. Fix: run the same agentguard version.`,
          );
        return;
      }
      if (entries.length >= limits.entries)
        throw new InputError(
          `${what}: bundle holds more than the ${limits.entries} entries allowed; not extracted.`,
        );
      entries.push(entryOf(value, what));
    },
    data: () => {},
    end: () => {},
  });
  checkEntries(entries, what, limits);
  mkdirSync(dest, { recursive: false, mode: 0o755 });
  try {
    await writeEntries(file, entries, dest, what, limits);
  } catch (err) {
    // Nothing half-written is left for a later job or a resumed coordinator to trust.
    rmSync(dest, { recursive: true, force: true });
    throw err;
  }
}

async function writeEntries(
  file: string,
  entries: readonly Entry[],
  dest: string,
  what: string,
  limits: ExtractLimits,
): Promise<void> {
  const links: { at: string; target: string; name: string }[] = [];
  let fd: number | null = null;
  try {
    await readRecords(file, what, limits.expandedBytes, {
      header: (value, i) => {
        if (i === 0) return;
        const e = entries[i - 1];
        if (e === undefined || (value as { path?: unknown }).path !== e.path)
          throw new InputError(`${what}: bundle changed while it was extracted; not run.`);
        const at = path.join(dest, ...e.path.split('/'));
        if (e.type === 'dir') mkdirSync(at, { recursive: true, mode: 0o755 });
        else if (e.type === 'file') {
          mkdirSync(path.dirname(at), { recursive: true, mode: 0o755 });
          fd = openSync(at, 'wx', e.exec ? 0o755 : 0o644);
        } else links.push({ at, target: e.target, name: e.path });
      },
      data: (chunk) => {
        if (fd !== null) for (let at = 0; at < chunk.length; ) at += writeSync(fd, chunk, at);
      },
      end: () => {
        if (fd !== null) closeSync(fd);
        fd = null;
      },
    });
  } finally {
    if (fd !== null) closeSync(fd);
  }
  // Links last: no file is ever written through one.
  for (const { at, target } of links) symlinkSync(target, at);
  const root = realpathSync(dest);
  for (const { at, name } of links) {
    let real: string;
    try {
      real = realpathSync(at);
    } catch {
      continue; // dangling: it leads nowhere, and the listing showed every step of it stays inside
    }
    if (real !== root && !real.startsWith(root + path.sep))
      throw new InputError(`${what}: bundle link '${name}' resolves to ${real}, out of its folder; not run.`);
  }
}
