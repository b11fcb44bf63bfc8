import {
  chmodSync,
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SetupError } from '../errors.js';

/*
 * How `ci` writes its outputs when the output folder is one the judged changes could reach (the
 * checkout's `.agentguard/` by default, or anywhere under a folder the job's user can write): a
 * check of the path, however thorough, is followed by writes by path, and between the two a process
 * the pull request left behind (an install script's child, say) can swap a folder on the way for a
 * link. So the check's result is kept as descriptors, not a path: the output folder and its `ci/`
 * are opened component by component from `/` with O_NOFOLLOW|O_DIRECTORY, and held. The run itself
 * is made in a private folder (a root-made folder in the sticky /tmp no other user can rename or
 * replace), and at the end it is moved, or copied without following any link, into the held `ci/`
 * through `/proc/self/fd/N/<name>`, which the kernel resolves through the descriptor and never
 * through the path. .gitignore is opened the same way, and history.db is copied out and renamed
 * back (held-history.ts). Nothing ci writes in the output folder goes by its path after the check.
 */

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** The output folder and its `ci/`, held open; every write into them goes through `at`. */
export type HeldOutput = {
  /** The output folder as named (what messages and the report call it). */
  dir: string;
  /** A path that resolves through the held descriptor of the output folder: `/proc/self/fd/N`. */
  held: string;
  /** `/proc/self/fd/M`: the held `ci/` folder. */
  heldCi: string;
  /** Closes the descriptors. */
  close: () => void;
};

/**
 * Open (making what is missing) `dir` and `dir/ci`, each component with O_NOFOLLOW: a link on the
 * way inside the checkout `root` is an error naming it. Links above it (a checkout under a linked
 * /work) are resolved once, first. The descriptors are what later writes go through.
 */
export function holdOutputFolder(dir: string, root: string): HeldOutput {
  const abs = path.resolve(dir);
  const real = realBase(abs, path.resolve(root));
  let fd = openSync('/', DIR_FLAGS);
  let out: number | undefined;
  try {
    let at = '/';
    for (const part of [...real.split(path.sep).filter(Boolean), 'ci']) {
      at = path.join(at, part);
      const child = openChild(fd, part, at);
      // The output folder's descriptor is kept; the ones above it are closed as the walk goes on.
      if (fd !== out) closeSync(fd);
      fd = child;
      if (at === real) out = fd;
      if (out !== undefined) ownedByUs(fd, at);
    }
  } catch (err) {
    for (const f of new Set([fd, out]))
      if (f !== undefined)
        try {
          closeSync(f);
        } catch {
          // closed already
        }
    throw err;
  }
  if (out === undefined) throw new Error(`the output folder ${abs} was not reached`);
  const held = [out, fd];
  return {
    dir: abs,
    held: `/proc/self/fd/${out}`,
    heldCi: `/proc/self/fd/${fd}`,
    close: () => {
      for (const f of held.splice(0))
        try {
          closeSync(f);
        } catch {
          // closed already
        }
    },
  };
}

/**
 * `abs` with the links above the checkout resolved: inside `root`, the checkout's real path and the
 * rest as written (walked without following); elsewhere, the nearest existing folder's real path.
 */
function realBase(abs: string, root: string): string {
  const rel = path.relative(root, abs);
  if (rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel)))
    return path.join(realpathSync(root), rel);
  let base = abs;
  while (!existsSync(path.dirname(base)) && path.dirname(base) !== base) base = path.dirname(base);
  const parent = path.dirname(base);
  return path.join(realpathSync(parent), path.relative(parent, abs));
}

/**
 * The output folder and its ci/ must be the harness user's (or root's) and writable by no one else:
 * another user who may write in them could plant a link under a name agentguard writes (history.db)
 * whatever descriptor is held.
 */
function ownedByUs(fd: number, at: string): void {
  const st = fstatSync(fd);
  const uid = process.geteuid?.() ?? st.uid;
  const problem =
    st.uid !== uid && st.uid !== 0
      ? `belongs to uid ${st.uid}, not to the user running agentguard (uid ${uid})`
      : (st.mode & 0o022) !== 0
        ? 'may be written by other users'
        : null;
  if (problem)
    throw new SetupError(
      `the output folder ${at} ${problem}, who could plant a link where agentguard writes its reports. Fix: remove it (agentguard makes it anew) or chmod go-w it, or pass --output-dir a folder of your own outside the checkout.`,
    );
}

/** Open (making it if missing) `part` of the folder held as `parent`; a link or a non-folder there is refused. */
function openChild(parent: number, part: string, at: string): number {
  const next = `/proc/self/fd/${parent}/${part}`;
  try {
    mkdirSync(next);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  try {
    return openSync(next, DIR_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENOTDIR')
      throw new SetupError(
        `${at} is ${isLink(next) ? 'a symlink' : 'not a folder'}, and agentguard would write its reports through it. Fix: remove it, or pass --output-dir a folder outside the checkout.`,
      );
    throw err;
  }
}

/** The staging folders' names: `agentguard-ci-<pid>-<random>`, the pid of the ci that made it. */
export const STAGING_PREFIX = 'agentguard-ci-';

/**
 * A private folder for the run: made by this process in the system's temporary folder (sticky,
 * so no other user can rename or replace it), readable by the run's user. Removed by `publishRun`
 * or on failure; one a killed ci left behind (its pid gone) is removed by the next ci.
 */
export function stagingFolder(): string {
  sweepStaging();
  const dir = mkdtempSync(path.join(os.tmpdir(), `${STAGING_PREFIX}${process.pid}-`));
  chmodSync(dir, 0o755);
  return dir;
}

/** Remove this user's staging folders whose ci process is gone (killed with SIGKILL, say). */
function sweepStaging(): void {
  const uid = process.geteuid?.();
  let names: string[];
  try {
    names = readdirSync(os.tmpdir());
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(new RegExp(`^${STAGING_PREFIX}(\\d+)-`).exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid || existsSync(`/proc/${pid}`)) continue;
    const dir = path.join(os.tmpdir(), name);
    try {
      const st = lstatSync(dir);
      if (st.isDirectory() && st.uid === uid) rmSync(dir, { recursive: true, force: true });
    } catch {
      // gone already, or not ours
    }
  }
}

/**
 * Write `name` in the held output folder with `text`, only if it is not there yet: O_EXCL and
 * O_NOFOLLOW, so a link planted under the name is never written through.
 */
export function writeNewFileHeld(out: HeldOutput, name: string, text: string): void {
  let fd: number;
  try {
    fd = openSync(
      `${out.held}/${name}`,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o644,
    );
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw err;
  }
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/**
 * Move the run folder made in `staging` into the held `ci/` as `ci/<runId>`: a rename when both are
 * on one filesystem, else a copy that makes each folder and file anew (O_EXCL, O_NOFOLLOW) under a
 * folder it holds open, and recreates links as links. The staging folder is removed either way.
 * Returns where the run folder now is, by the path the output folder was named with.
 */
export function publishRun(out: HeldOutput, staging: string, runId: string): string {
  const from = path.join(staging, runId);
  try {
    try {
      renameSync(from, `${out.heldCi}/${runId}`);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
      copyTreeHeld(from, out.heldCi, runId);
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return path.join(out.dir, 'ci', runId);
}

/** Whether the folder held is still the one at its path (a swap is said, never followed). */
export function stillAtPath(out: HeldOutput): boolean {
  try {
    const held = fstatSyncOf(out.held);
    const st = lstatSync(out.dir);
    return st.isDirectory() && st.ino === held.ino && st.dev === held.dev;
  } catch {
    return false;
  }
}

function fstatSyncOf(procPath: string) {
  const fd = Number(procPath.slice(procPath.lastIndexOf('/') + 1));
  return fstatSync(fd);
}

/** Copy `from` into the folder held at `parent` (a /proc/self/fd path) as `name`, following no link. */
function copyTreeHeld(from: string, parent: string, name: string): void {
  mkdirSync(`${parent}/${name}`, { mode: lstatSync(from).mode & 0o7777 });
  const fd = openSync(`${parent}/${name}`, DIR_FLAGS);
  try {
    const here = `/proc/self/fd/${fd}`;
    for (const entry of readdirSync(from)) {
      const src = path.join(from, entry);
      const st = lstatSync(src);
      if (st.isDirectory()) copyTreeHeld(src, here, entry);
      else if (st.isSymbolicLink()) symlinkSync(readlinkSync(src), `${here}/${entry}`);
      else if (st.isFile()) copyFileHeld(src, `${here}/${entry}`, st.mode & 0o7777);
      // Sockets, fifos and devices are never part of a run folder's record.
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Copy the regular file `src` (opened without following a link, nor waiting on a fifo) to `dest`,
 * made anew (O_EXCL, O_NOFOLLOW): anything else at `src` is an error with code ENOTREG.
 */
export function copyFileHeld(src: string, dest: string, mode: number): void {
  const input = openSync(src, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    if (!fstatSync(input).isFile())
      throw Object.assign(new Error(`${src} is not a regular file`), { code: 'ENOTREG' });
    const output = openSync(
      dest,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      mode,
    );
    try {
      const buf = Buffer.allocUnsafe(1 << 20);
      for (;;) {
        const n = readSync(input, buf, 0, buf.length, null);
        if (n === 0) break;
        let off = 0;
        while (off < n) off += writeSync(output, buf, off, n - off);
      }
    } finally {
      closeSync(output);
    }
  } finally {
    closeSync(input);
  }
}

function isLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}
