import { existsSync, renameSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { SetupError } from '../errors.js';
import { copyFileHeld, type HeldOutput } from './held-output.js';

/*
 * ci's history index lives in the held output folder but is never opened there. SQLite opens a
 * database by the path it resolves itself (it reads the link /proc/self/fd/N and opens the text it
 * got), and its journal, WAL and shared-memory files by that text again for as long as the
 * database is open: a folder on the way swapped for a link in that time carries those writes
 * wherever the link points. So the index is copied from the held folder into the run's private
 * staging folder (only a regular file, no link followed), opened and written there, and put back
 * by a rename inside the held folder. Two ci runs at once into one output folder keep the later
 * one's index (history is rebuilt from report.json files as runs are re-recorded).
 */

const NAME = 'history.db';

/** Copy the held folder's history index (and a WAL a killed run left) into `staging`; returns the copy's path. */
export function stageHistory(out: HeldOutput, staging: string): string {
  const staged = path.join(staging, NAME);
  for (const suffix of ['', '-wal']) {
    try {
      copyFileHeld(`${out.held}/${NAME}${suffix}`, `${staged}${suffix}`, 0o600);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') continue;
      if (code === 'ELOOP' || code === 'ENOTREG')
        throw new SetupError(
          `${path.join(out.dir, `${NAME}${suffix}`)} is a link or not a regular file, and agentguard keeps its history there. Fix: remove it (agentguard makes it anew), or pass --output-dir a folder outside the checkout.`,
        );
      throw err;
    }
  }
  return staged;
}

/** Put the staged index back in the held folder: stale side files removed, each file renamed in whole. */
export function publishHistory(out: HeldOutput, staged: string): void {
  // A WAL or journal left beside the old file would be replayed onto the new one.
  for (const suffix of ['-wal', '-shm', '-journal']) removeIfThere(`${out.held}/${NAME}${suffix}`);
  for (const suffix of ['-wal', '']) {
    if (!existsSync(`${staged}${suffix}`)) continue;
    const tmp = `${out.held}/.${NAME}${suffix}.${process.pid}.tmp`;
    removeIfThere(tmp);
    try {
      copyFileHeld(`${staged}${suffix}`, tmp, 0o600);
      renameSync(tmp, `${out.held}/${NAME}${suffix}`);
    } catch (err) {
      removeIfThere(tmp);
      throw err;
    }
  }
}

/** Unlink (never following a link: the link itself goes) what is at `file`, if anything. */
function removeIfThere(file: string): void {
  try {
    unlinkSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
