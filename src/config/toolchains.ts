import { statSync } from 'node:fs';
import path from 'node:path';
import { systemFolder } from './load.js';

type Issue = (field: string, message: string, fix: string) => void;

/**
 * `toolchains`: interpreters and toolchains the user chose (a pyenv version, an nvm node, a JDK)
 * that live where the sandbox hides them, shown read-only at their own paths. Each is an absolute
 * folder that exists; never `/`, a system folder or the harness user's HOME (or a folder holding
 * it), whose credentials the sandbox exists to hide.
 */
export function checkToolchains(list: readonly string[], home: string | undefined, issue: Issue): void {
  list.forEach((dir, index) => {
    const field = `toolchains[${index}]`;
    if (!path.isAbsolute(dir)) {
      issue(
        field,
        `'${dir}' is not an absolute path`,
        'name the folder by its absolute path, e.g. /root/.pyenv/versions/3.12.4',
      );
      return;
    }
    const resolved = path.resolve(dir);
    const system = systemFolder(resolved);
    if (system) {
      issue(
        field,
        `${resolved} is ${system}, which the sandbox already shows or must not show whole`,
        "name the toolchain's own folder",
      );
      return;
    }
    const rel = home ? path.relative(resolved, path.resolve(home)) : '..';
    if (!rel.startsWith('..') && !path.isAbsolute(rel)) {
      issue(
        field,
        `${resolved} holds your HOME (${home}), whose credentials the sandbox hides`,
        'name only the toolchain inside it, e.g. ~/.pyenv/versions/3.12.4 written out in full',
      );
      return;
    }
    try {
      if (statSync(resolved).isDirectory()) return;
    } catch {
      // reported below
    }
    issue(field, `folder ${resolved} does not exist`, 'install the toolchain there, or fix the path');
  });
}
