import { lstatSync, readdirSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../errors.js';
import { checkEntryName, linkRoot, linkStaysInside } from './entry-names.js';

/** One thing a pack carries: a regular file (from disk or built in memory) or a relative symlink. */
export type PackSource =
  | { type: 'file'; mode: 0o644 | 0o755; from: string }
  | { type: 'file'; mode: 0o644 | 0o755; bytes: Buffer }
  | { type: 'symlink'; target: string };

/**
 * Every file below `dir` as pack sources under `prefix`, the way a run would copy a template:
 * `.git` is skipped (the harness makes its own baseline repository, and a packed `.git` would carry
 * hooks), symlinks must stay inside `dir`, and sockets, fifos and devices are refused. Only the
 * executable bit survives of a file's mode.
 */
export function walkFolder(dir: string, prefix: string, into: Map<string, PackSource>): void {
  const walk = (abs: string, rel: string) => {
    for (const name of readdirSync(abs).sort()) {
      if (name === '.git') continue;
      const src = path.join(abs, name);
      const packPath = `${prefix}/${rel === '' ? name : `${rel}/${name}`}`;
      const problem = checkEntryName(packPath);
      if (problem !== null)
        throw new InputError(`${src}: cannot go into a pack: ${problem}. Fix: rename it.`);
      const st = lstatSync(src);
      const childRel = rel === '' ? name : `${rel}/${name}`;
      if (st.isDirectory()) walk(src, childRel);
      else if (st.isFile())
        into.set(packPath, { type: 'file', mode: st.mode & 0o111 ? 0o755 : 0o644, from: src });
      else if (st.isSymbolicLink()) {
        const target = readlinkSync(src);
        const resolved = path.resolve(path.dirname(src), target);
        const inside = path.relative(dir, resolved);
        if (
          path.isAbsolute(target) ||
          inside.startsWith('..') ||
          path.isAbsolute(inside) ||
          !linkStaysInside(packPath, target, linkRoot(packPath))
        )
          throw new InputError(
            `${src}: a symlink to ${target}, outside ${dir} (or climbing with '..' after a name), cannot go into a pack. Fix: replace it with a regular file or a relative link inside the folder.`,
          );
        into.set(packPath, { type: 'symlink', target });
      } else
        throw new InputError(
          `${src}: is a socket, fifo or device, which a pack cannot carry. Fix: remove it from ${dir}.`,
        );
    }
  };
  walk(dir, '');
}
