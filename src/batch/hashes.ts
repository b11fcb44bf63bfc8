import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';

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
        hash.update(readFileSync(path.join(dir, child)));
        hash.update('\0');
      }
    }
  };
  walk('');
  return hash.digest('hex');
}
