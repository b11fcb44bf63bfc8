import { once } from 'node:events';
import {
  closeSync,
  constants,
  createWriteStream,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
} from 'node:fs';
import path from 'node:path';
import { createGzip } from 'node:zlib';
import { InputError } from '../errors.js';
import { sha256File } from '../provenance/digest.js';

/*
 * A tree bundle (tree-bundle.ts) written to a file a chunk at a time: the listing is walked first
 * (names, kinds, sizes; no content), then each record's header and its file's bytes go through gzip
 * into the file, one chunk in memory however large the tree. Deflate's output does not depend on how
 * its input is cut into chunks, so the bytes, and the digest that names them, are the ones an
 * in-memory bundle of the same tree has.
 */

/** One record's header: a folder, a file (its executable bit and size) or a link (its target). */
export type Entry =
  | { path: string; type: 'dir' }
  | { path: string; type: 'file'; exec: boolean; size: number }
  | { path: string; type: 'symlink'; target: string };

/** The record header line of every bundle's start. */
export const BUNDLE_FORMAT = 'agentguard-tree-bundle/2';

/** Read this much of a file per step. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * The sorted listing of `paths` (each relative to `root`), parent folders first, `skip` names left
 * out at any depth: every header, with each file's size as lstat saw it.
 */
export function listBundle(root: string, paths: readonly string[], skip: ReadonlySet<string>): Entry[] {
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
      entries.set(rel, { path: rel, type: 'file', exec: (st.mode & 0o111) !== 0, size: st.size });
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
  return [...entries.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Each chunk of a listed file's content, exactly its listed size: opened without following a link
 * or blocking on a FIFO, and refused when it is no longer that regular file of that size.
 */
export function* fileChunks(
  root: string,
  e: Extract<Entry, { type: 'file' }>,
  reuse?: Buffer,
): Generator<Buffer> {
  const changed = () =>
    new InputError(
      `${path.join(root, e.path)} changed while it was bundled. Fix: leave the folder alone while it is bundled.`,
    );
  const fd = openSync(
    path.join(root, e.path),
    constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
  );
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size !== e.size) throw changed();
    // With `reuse`, each chunk is a view of it, valid until the next is asked for.
    const buf = reuse ?? Buffer.alloc(Math.min(CHUNK_BYTES, Math.max(e.size, 1)));
    for (let at = 0; at < e.size; ) {
      const n = readSync(fd, buf, 0, Math.min(buf.length, e.size - at), at);
      if (n === 0) throw changed();
      at += n;
      yield reuse ? buf.subarray(0, n) : Buffer.from(buf.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Write the bundle of `paths` (relative to `root`) into `file` (created here, mode 0600; it must not
 * exist) a chunk at a time; resolves with its sha256 and size.
 */
export async function writeBundleFile(
  root: string,
  paths: readonly string[],
  file: string,
  skip: ReadonlySet<string> = new Set(),
): Promise<{ sha256: string; bytes: number }> {
  const entries = listBundle(root, paths, skip);
  const gzip = createGzip({ level: 6 });
  const out = createWriteStream(file, { flags: 'wx', mode: 0o600 });
  gzip.pipe(out);
  const closed = once(out, 'close');
  // Each write is awaited until gzip has taken its bytes, so one buffer serves every chunk and the
  // memory used is that chunk and zlib's window, whatever the size of the tree.
  const write = (chunk: Buffer) =>
    new Promise<void>((resolve, reject) => gzip.write(chunk, (err) => (err ? reject(err) : resolve())));
  const buf = Buffer.alloc(CHUNK_BYTES);
  try {
    await write(Buffer.from(`${JSON.stringify({ format: BUNDLE_FORMAT })}\n`));
    for (const e of entries) {
      await write(Buffer.from(`${JSON.stringify(e)}\n`));
      if (e.type === 'file') for (const chunk of fileChunks(root, e, buf)) await write(chunk);
    }
    gzip.end();
    await closed;
  } catch (err) {
    gzip.destroy();
    out.destroy();
    throw err;
  }
  return sha256File(file);
}
