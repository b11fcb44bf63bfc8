import { copyFileSync, lstatSync, mkdirSync, readdirSync, readlinkSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../errors.js';

/** True when `target` is `root` or lies under it (both absolute, normalised). */
export function isInside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Copy a task template into a fresh workspace. Symlinks are copied as links, but only when they
 * stay inside the template: a hostile template must not smuggle a link to the host into the
 * agent's workspace. Sockets, fifos and devices are refused. Any `.git` folder is skipped
 * because the harness creates the baseline repository itself.
 */
export function copyTemplate(template: string, dest: string, configPath: string): { files: number } {
  const root = path.resolve(template);
  let files = 0;
  const walk = (from: string, to: string) => {
    mkdirSync(to, { recursive: true });
    for (const name of readdirSync(from)) {
      if (name === '.git') continue;
      const src = path.join(from, name);
      const dst = path.join(to, name);
      const st = lstatSync(src);
      if (st.isDirectory()) {
        walk(src, dst);
      } else if (st.isFile()) {
        copyFileSync(src, dst);
        files++;
      } else if (st.isSymbolicLink()) {
        const target = readlinkSync(src);
        const resolved = path.resolve(path.dirname(src), target);
        if (!isInside(root, resolved)) {
          throw new ConfigError(
            `${configPath}: field 'repo': the template's symlink ${path.relative(root, src)} points outside ` +
              `the template (to ${target}). Fix: replace it with a regular file or a link inside the template.`,
          );
        }
        symlinkSync(target, dst);
        files++;
      } else {
        throw new ConfigError(
          `${configPath}: field 'repo': ${path.relative(root, src)} in the template is a socket, fifo or device. ` +
            'Fix: remove it from the template.',
        );
      }
    }
  };
  walk(root, dest);
  return { files };
}
