import { createHash } from 'node:crypto';
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { InputError } from '../errors.js';

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
        data: readFileSync(abs).toString('base64'),
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

/** A name that stays inside the folder it is extracted into. */
function safeName(name: string): boolean {
  return (
    name.length > 0 &&
    !name.startsWith('/') &&
    !name.includes('\0') &&
    name.split('/').every((part) => part !== '' && part !== '.' && part !== '..')
  );
}

/**
 * Check `bytes` against `sha256`, then write its entries into `dest` (which must not exist yet).
 * A digest mismatch, a name that leaves `dest` or a link that points out of it is refused before
 * anything is written.
 */
export function extractBundle(bytes: Buffer, sha256: string, dest: string, what: string): void {
  const got = sha256Of(bytes);
  if (got !== sha256)
    throw new InputError(
      `${what}: bundle digest sha256:${got} does not match the job's sha256:${sha256}; not run. Fix: enqueue the batch again from an unmodified task folder.`,
    );
  let listing: Listing;
  try {
    listing = JSON.parse(gunzipSync(bytes, { maxOutputLength: 1 << 30 }).toString('utf8')) as Listing;
  } catch (err) {
    throw new InputError(`${what}: bundle is not a gzip'd JSON listing (${(err as Error).message}).`);
  }
  if (listing.format !== BUNDLE_FORMAT || !Array.isArray(listing.entries))
    throw new InputError(
      `${what}: bundle format is not ${BUNDLE_FORMAT}. Fix: run the same agentguard version.`,
    );
  for (const e of listing.entries) {
    if (!safeName(e.path))
      throw new InputError(`${what}: bundle entry '${e.path}' leaves its folder; not run.`);
    if (e.type === 'symlink') {
      const to = path.posix.normalize(path.posix.join(path.posix.dirname(e.path), e.target));
      if (path.posix.isAbsolute(e.target) || to === '..' || to.startsWith('../'))
        throw new InputError(`${what}: bundle link '${e.path}' points out of its folder; not run.`);
    }
  }
  mkdirSync(dest, { recursive: false, mode: 0o755 });
  const links: { at: string; target: string }[] = [];
  for (const e of listing.entries) {
    const at = path.join(dest, ...e.path.split('/'));
    if (e.type === 'dir') mkdirSync(at, { recursive: true, mode: 0o755 });
    else if (e.type === 'file') {
      mkdirSync(path.dirname(at), { recursive: true, mode: 0o755 });
      writeFileSync(at, Buffer.from(e.data, 'base64'), { flag: 'wx', mode: e.exec ? 0o755 : 0o644 });
    } else links.push({ at, target: e.target });
  }
  // Links last: no file is ever written through one.
  for (const { at, target } of links) symlinkSync(target, at);
}
