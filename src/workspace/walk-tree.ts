import { lstatSync, readdirSync } from 'node:fs';
import { displayPath, joinBytes } from './byte-paths.js';

/**
 * One file as git would store it: a regular file (with or without its executable bit) or a symlink.
 * `rel` and `abs` are the name's bytes, so a name that is not UTF-8 is read, committed and diffed
 * like any other (as text it would become U+FFFD and no longer name the file).
 */
export type TreeEntry = { rel: Buffer; abs: Buffer; mode: '100644' | '100755' | '120000' };

export type TreeWalk = {
  entries: TreeEntry[];
  /** Folders below the root holding a `.git` of their own (folder, gitfile or link): nested repositories. */
  nestedRepos: string[];
  /** What could not be read or is not a file git can hold (fifo, socket, device), and why. */
  skipped: { path: string; reason: string }[];
};

const GIT = Buffer.from('.git');

/**
 * Every file under `root` as plain content, in git's order. A nested repository (anything named
 * `.git` below the root) does not make its folder one opaque entry, as `git add` would: its files
 * are listed like any other, and only the `.git` itself is left out and reported. Nothing here
 * follows a symlink or throws for what the workspace holds. `skip` gets the name's bytes.
 */
export function walkTree(root: string, skip: (rel: Buffer, isDir: boolean) => boolean): TreeWalk {
  const walk: TreeWalk = { entries: [], nestedRepos: [], skipped: [] };
  const visit = (abs: Buffer, rel: Buffer) => {
    let names: Buffer[];
    try {
      names = readdirSync(abs, { encoding: 'buffer' }).sort(Buffer.compare);
    } catch (err) {
      walk.skipped.push({ path: displayPath(rel), reason: errorCode(err) });
      return;
    }
    for (const name of names) {
      const childAbs = joinBytes(abs, name);
      const r = joinBytes(rel, name);
      if (name.equals(GIT)) {
        if (rel.length > 0) walk.nestedRepos.push(displayPath(rel));
        continue;
      }
      let st: ReturnType<typeof lstatSync>;
      try {
        st = lstatSync(childAbs);
      } catch (err) {
        walk.skipped.push({ path: displayPath(r), reason: errorCode(err) });
        continue;
      }
      if (skip(r, st.isDirectory())) continue;
      if (st.isDirectory()) visit(childAbs, r);
      else if (st.isSymbolicLink()) walk.entries.push({ rel: r, abs: childAbs, mode: '120000' });
      else if (st.isFile())
        walk.entries.push({ rel: r, abs: childAbs, mode: st.mode & 0o111 ? '100755' : '100644' });
      else walk.skipped.push({ path: displayPath(r), reason: 'not a regular file or symlink' });
    }
  };
  visit(Buffer.from(root), Buffer.alloc(0));
  return walk;
}

export function errorCode(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? String(err);
}
