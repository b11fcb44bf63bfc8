import { closeSync, constants, existsSync, lstatSync, openSync } from 'node:fs';
import path from 'node:path';
import { InternalError } from '../errors.js';

/** Why a file below a folder was not opened: a clause without the file's name, for the caller's sentence. */
export type InsideRefusal = { code: 'missing' | 'link' | 'outside' | 'unreadable'; detail: string };

export type OpenedInside = { ok: true; fd: number } | { ok: false; refusal: InsideRefusal };

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
/** O_NONBLOCK: a FIFO opens at once instead of waiting for a writer; O_NOCTTY: a terminal is not adopted. */
const FILE_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;

/**
 * Open `file`, which must lie below the folder `root`, following no symbolic link below `root`:
 * each folder on the way is opened relative to the one before (through `/proc/self/fd/N/name`,
 * Node's spelling of openat) with O_NOFOLLOW, and the file last with O_NOFOLLOW and O_NONBLOCK.
 * A link swapped in between two steps is refused, not followed. `root` itself may be reached
 * through links: the caller chose it. The caller checks the kind (fstat) and closes the fd.
 */
export function openInside(root: string, file: string): OpenedInside {
  const rel = path.relative(root, file);
  const parts = rel.split(path.sep);
  if (rel === '' || path.isAbsolute(rel) || parts.some((p) => p === '' || p === '.' || p === '..'))
    return { ok: false, refusal: { code: 'outside', detail: `is not inside ${root}` } };
  let dir: number;
  try {
    dir = openSync(root, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch (err) {
    return { ok: false, refusal: refusal(err, null, null) };
  }
  try {
    for (let i = 0; ; i++) {
      const at = `/proc/self/fd/${dir}/${parts[i]}`;
      const last = i === parts.length - 1;
      let next: number;
      try {
        next = openSync(at, last ? FILE_FLAGS : DIR_FLAGS);
      } catch (err) {
        if (!existsSync(`/proc/self/fd/${dir}`))
          throw new InternalError(
            '/proc/self/fd is missing, and agentguard reads run folders through it. Fix: mount /proc.',
          );
        return {
          ok: false,
          refusal: refusal(err, at, last ? null : path.join(root, ...parts.slice(0, i + 1))),
        };
      }
      if (last) return { ok: true, fd: next };
      closeSync(dir);
      dir = next;
    }
  } finally {
    closeSync(dir);
  }
}

/** `at`: the name that failed to open (null for the root); `folder`: that name, when it was a folder on the way. */
function refusal(err: unknown, at: string | null, folder: string | null): InsideRefusal {
  if (at !== null && isLink(at))
    return {
      code: 'link',
      detail:
        folder === null
          ? 'is a symbolic link, which agentguard does not follow here'
          : `is reached through ${folder}, a symbolic link, which agentguard does not follow here`,
    };
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR')
    return {
      code: 'missing',
      detail: folder && code === 'ENOTDIR' ? `is missing (${folder} is not a folder)` : 'is missing',
    };
  return { code: 'unreadable', detail: `cannot be opened (${code ?? 'error'})` };
}

function isLink(at: string): boolean {
  try {
    return lstatSync(at).isSymbolicLink();
  } catch {
    return false;
  }
}
