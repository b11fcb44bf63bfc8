import { createHash } from 'node:crypto';
import { closeSync, lstatSync, readdirSync, readFileSync, readlinkSync, readSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../errors.js';
import { openRegularFile } from '../evidence/read.js';

export function fileSha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** sha256 over a folder tree: every entry's relative path, kind and content, in sorted order. */
export function treeSha256(dir: string): string {
  const hash = createHash('sha256');
  const walk = (rel: string) => {
    const abs = path.join(dir, rel);
    for (const name of readdirSync(abs).sort()) {
      const child = rel ? `${rel}/${name}` : name;
      const st = lstatSync(path.join(dir, child));
      if (st.isSymbolicLink()) hash.update(`L ${child}\0${readlinkSync(path.join(dir, child))}\0`);
      else if (st.isDirectory()) {
        hash.update(`D ${child}\0`);
        walk(child);
      } else if (st.isFile()) {
        hash.update(`F ${child}\0${st.mode & 0o111 ? 'x' : '-'}\0`);
        hashContent(hash, dir, path.join(dir, child));
        hash.update('\0');
      }
    }
  };
  walk('');
  return hash.digest('hex');
}

const CHUNK = 1024 * 1024;

/**
 * A file of the tree into `hash`, a chunk at a time (a template may be a pull request's checkout:
 * a huge file costs no memory), opened as the walk saw it: no link followed below `dir`, and a
 * FIFO swapped in after the lstat is refused instead of blocking.
 */
function hashContent(hash: ReturnType<typeof createHash>, dir: string, file: string): void {
  const opened = openRegularFile(file, dir);
  if (!opened.ok)
    throw new InputError(
      `${opened.error.message}, though it was a regular file a moment before. Fix: hash ${dir} again when nothing writes to it.`,
    );
  try {
    const buf = Buffer.allocUnsafe(CHUNK);
    for (
      let n = readSync(opened.fd, buf, 0, CHUNK, null);
      n > 0;
      n = readSync(opened.fd, buf, 0, CHUNK, null)
    )
      hash.update(buf.subarray(0, n));
  } finally {
    closeSync(opened.fd);
  }
}
