import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  openSync,
  readSync,
  realpathSync,
  statSync,
} from 'node:fs';
import path from 'node:path';

const ELF = Buffer.from([0x7f, 0x45, 0x4c, 0x46]);

function isExecutableElf(file: string): boolean {
  try {
    const real = realpathSync(file);
    if (!statSync(real).isFile()) return false;
    accessSync(real, constants.X_OK);
    const head = Buffer.alloc(4);
    const fd = openSync(real, 'r');
    try {
      readSync(fd, head, 0, 4, 0);
    } finally {
      closeSync(fd);
    }
    return head.equals(ELF);
  } catch {
    return false;
  }
}

/**
 * A virtual environment's link to the interpreter it was made from (`.venv/bin/python3 ->
 * /usr/bin/python3`): named python, in the bin/ of a folder with a pyvenv.cfg, to an executable
 * program. The one kind of link out of a template that is copied: it reaches a program the sandbox
 * shows (or hides) as it would anyway, never a file to read.
 */
export function isVenvInterpreterLink(link: string, target: string): boolean {
  const bin = path.dirname(link);
  if (path.basename(bin) !== 'bin' || !/^python(\d+(\.\d+)?)?$/.test(path.basename(link))) return false;
  if (!existsSync(path.join(path.dirname(bin), 'pyvenv.cfg'))) return false;
  return isExecutableElf(target);
}
