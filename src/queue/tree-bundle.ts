import { createHash } from 'node:crypto';
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { errorMessage, InputError } from '../errors.js';
import { READ_LIMITS, readEvidenceBytes } from '../evidence/read.js';

/*
 * A content-addressed bundle of folder trees and files: one gzip of a canonical JSON listing
 * (sorted paths, file bytes in base64, executable bit, symlink targets). The same content always
 * gives the same bytes, so their sha256 names the content: a job names its task bundle by digest,
 * and a worker refuses bytes whose digest differs. JSON rather than tar: nothing to parse but JSON,
 * no device files, owners or absolute names to defend against.
 */

export const BUNDLE_FORMAT = 'agentguard-tree-bundle/1';

type Entry =
  | { path: string; type: 'dir' }
  | { path: string; type: 'file'; exec: boolean; data: string }
  | { path: string; type: 'symlink'; target: string };

type Listing = { format: typeof BUNDLE_FORMAT; entries: Entry[] };

export type Bundle = { bytes: Buffer; sha256: string };

export function sha256Of(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Bundle `paths` (files or folders, each given relative to `root`, which holds them all). `skip`
 * names folder entries left out wherever they are (an output folder inside a task folder).
 */
export function bundlePaths(
  root: string,
  paths: readonly string[],
  skip: ReadonlySet<string> = new Set(),
): Bundle {
  const entries = new Map<string, Entry>();
  const add = (rel: string) => {
    if (entries.has(rel)) return;
    const abs = path.join(root, rel);
    const st = lstatSync(abs);
    if (st.isSymbolicLink()) entries.set(rel, { path: rel, type: 'symlink', target: readlinkSync(abs) });
    else if (st.isDirectory()) {
      entries.set(rel, { path: rel, type: 'dir' });
      for (const name of readdirSync(abs)) if (!skip.has(name)) add(`${rel}/${name}`);
    } else if (st.isFile())
      entries.set(rel, {
        path: rel,
        type: 'file',
        exec: (st.mode & 0o111) !== 0,
        // A file swapped for a fifo or device since its lstat is refused, not waited on or read forever.
        data: readEvidenceBytes(abs, {
          maxBytes: READ_LIMITS.jsonl,
          fix: 'leave the folder alone while it is bundled',
        }).toString('base64'),
      });
  };
  for (const p of paths) {
    const rel = p.split(path.sep).join('/');
    // Parent folders first, so extraction never writes through a path it has not made itself.
    const parts = rel.split('/');
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      if (!entries.has(dir)) entries.set(dir, { path: dir, type: 'dir' });
    }
    add(rel);
  }
  const listing: Listing = {
    format: BUNDLE_FORMAT,
    entries: [...entries.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
  };
  const bytes = gzipSync(Buffer.from(JSON.stringify(listing)), { level: 6 });
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

/** An entry of the listing as the bundle's own writer makes it; anything else is refused. */
function wellFormed(e: unknown): e is Entry {
  if (e === null || typeof e !== 'object') return false;
  const x = e as Record<string, unknown>;
  if (x.type === 'dir') return true;
  if (x.type === 'file') return typeof x.exec === 'boolean' && typeof x.data === 'string';
  return x.type === 'symlink' && typeof x.target === 'string' && x.target.length > 0;
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

/** The listing inside `bytes`, gunzipped no further than the limit: a gzip bomb stops there. */
function readListing(bytes: Buffer, what: string, limits: ExtractLimits): Listing {
  let text: string;
  try {
    text = gunzipSync(bytes, { maxOutputLength: limits.expandedBytes }).toString('utf8');
  } catch (err) {
    if (err instanceof RangeError || (err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
      throw new InputError(
        `${what}: bundle expands past ${limits.expandedBytes} bytes; not extracted. Fix: send a smaller tree.`,
      );
    throw new InputError(`${what}: bundle is not a gzip'd JSON listing (${errorMessage(err)}).`);
  }
  let listing: Listing;
  try {
    listing = JSON.parse(text) as Listing;
  } catch (err) {
    throw new InputError(`${what}: bundle is not a gzip'd JSON listing (${errorMessage(err)}).`);
  }
  if (listing === null || listing.format !== BUNDLE_FORMAT || !Array.isArray(listing.entries))
    throw new InputError(
      `${what}: bundle format is not ${BUNDLE_FORMAT}. Fix: run the same agentguard version.`,
    );
  return listing;
}

/** Every entry's name, kind and link checked against the listing, before anything is written. */
function checkEntries(listing: Listing, what: string, limits: ExtractLimits): void {
  if (listing.entries.length > limits.entries)
    throw new InputError(
      `${what}: bundle holds ${listing.entries.length} entries, over the ${limits.entries} allowed; not extracted.`,
    );
  const byPath = new Map<string, Entry>();
  for (const e of listing.entries as unknown[]) {
    const name = (e as { path?: unknown } | null)?.path;
    if (!safeName(name))
      throw new InputError(`${what}: bundle entry '${String(name)}' leaves its folder; not run.`);
    if (!wellFormed(e))
      throw new InputError(`${what}: bundle entry '${name}' is not a file, folder or link; not run.`);
    if (byPath.has(name)) throw new InputError(`${what}: bundle entry '${name}' appears twice; not run.`);
    byPath.set(name, e);
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

/**
 * Check `bytes` against `sha256`, then write its entries into `dest` (which must not exist yet).
 * A digest mismatch, a listing that expands past the limit, a name that leaves `dest`, or a link
 * that leads out of it at any step of its resolution is refused before anything is written; once
 * written, each link is resolved on disk too and must stay under `dest` (else `dest` is removed).
 */
export function extractBundle(
  bytes: Buffer,
  sha256: string,
  dest: string,
  what: string,
  limits: ExtractLimits,
): void {
  const got = sha256Of(bytes);
  if (got !== sha256)
    throw new InputError(
      `${what}: bundle digest sha256:${got} does not match the job's sha256:${sha256}; not run. Fix: enqueue the batch again from an unmodified task folder.`,
    );
  const listing = readListing(bytes, what, limits);
  checkEntries(listing, what, limits);
  mkdirSync(dest, { recursive: false, mode: 0o755 });
  try {
    writeEntries(listing, dest, what);
  } catch (err) {
    // Nothing half-written is left for a later job or a resumed coordinator to trust.
    rmSync(dest, { recursive: true, force: true });
    throw err;
  }
}

function writeEntries(listing: Listing, dest: string, what: string): void {
  const links: { at: string; target: string; name: string }[] = [];
  for (const e of listing.entries) {
    const at = path.join(dest, ...e.path.split('/'));
    if (e.type === 'dir') mkdirSync(at, { recursive: true, mode: 0o755 });
    else if (e.type === 'file') {
      mkdirSync(path.dirname(at), { recursive: true, mode: 0o755 });
      writeFileSync(at, Buffer.from(e.data, 'base64'), { flag: 'wx', mode: e.exec ? 0o755 : 0o644 });
    } else links.push({ at, target: e.target, name: e.path });
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
