import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';

/** One file as git would store it: a regular file (with or without its executable bit) or a symlink. */
export type TreeEntry = { rel: string; abs: string; mode: '100644' | '100755' | '120000' };

export type TreeWalk = {
  entries: TreeEntry[];
  /** Folders below the root holding a `.git` of their own (folder, gitfile or link): nested repositories. */
  nestedRepos: string[];
  /** What could not be read or is not a file git can hold (fifo, socket, device), and why. */
  skipped: { path: string; reason: string }[];
};

/**
 * Every file under `root` as plain content, in git's order. A nested repository (anything named
 * `.git` below the root) does not make its folder one opaque entry, as `git add` would: its files
 * are listed like any other, and only the `.git` itself is left out and reported. Nothing here
 * follows a symlink or throws for what the workspace holds.
 */
export function walkTree(root: string, skip: (rel: string, isDir: boolean) => boolean): TreeWalk {
  const walk: TreeWalk = { entries: [], nestedRepos: [], skipped: [] };
  const visit = (dir: string) => {
    let names: string[];
    try {
      names = readdirSync(dir).sort(byteOrder);
    } catch (err) {
      walk.skipped.push({ path: rel(root, dir), reason: errorCode(err) });
      return;
    }
    for (const name of names) {
      const abs = path.join(dir, name);
      const r = rel(root, abs);
      if (name === '.git') {
        if (dir !== root) walk.nestedRepos.push(rel(root, dir));
        continue;
      }
      let st: ReturnType<typeof lstatSync>;
      try {
        st = lstatSync(abs);
      } catch (err) {
        walk.skipped.push({ path: r, reason: errorCode(err) });
        continue;
      }
      if (skip(r, st.isDirectory())) continue;
      if (st.isDirectory()) visit(abs);
      else if (st.isSymbolicLink()) walk.entries.push({ rel: r, abs, mode: '120000' });
      else if (st.isFile()) walk.entries.push({ rel: r, abs, mode: st.mode & 0o111 ? '100755' : '100644' });
      else walk.skipped.push({ path: r, reason: 'not a regular file or symlink' });
    }
  };
  visit(root);
  return walk;
}

function rel(root: string, abs: string): string {
  return path.relative(root, abs);
}

/** git sorts by bytes; JS's default sort compares UTF-16 units, which differs outside the BMP. */
function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

export function errorCode(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? String(err);
}
