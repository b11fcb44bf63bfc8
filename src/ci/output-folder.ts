import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { SetupError } from '../errors.js';
import { splitZBytes } from '../workspace/byte-paths.js';
import { userGit } from './user-git.js';

/*
 * `ci` writes its reports, history database and run folders into the checkout's `.agentguard/` by
 * default: a folder the changes being judged can hold. A link committed there (`.agentguard` itself,
 * `.agentguard/ci`, `.agentguard/history.db`) would carry every write to wherever it points, as the
 * user running the job. So before anything is written: no part of the output folder's path inside
 * the checkout may be a link or a committed file, and nothing agentguard writes by a fixed name in
 * it may be anything but a plain file or folder. `runCi` then makes its run folder exclusively,
 * so a planted one is not written into either.
 */

/** Names agentguard writes by a fixed name in its output folder (history.db's SQLite side files too). */
const FIXED_NAMES = /^(\.gitignore|ci|history\.db(-wal|-shm|-journal)?)$/;

const OUTSIDE = 'or pass --output-dir a folder outside the checkout';

/** Refuse an output folder the judged checkout could have pointed elsewhere; one sentence names the path and the fix. */
export function checkCiOutputFolder(root: string, outputDir: string): void {
  const rel = path.relative(root, outputDir);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) {
    checkEntries(outputDir);
    return;
  }
  const committed = userGit(root, ['ls-files', '-z', '--', rel]);
  const first = committed.ok ? splitZBytes(committed.stdout)[0] : undefined;
  if (first !== undefined)
    throw new SetupError(
      `the output folder ${outputDir} is committed in the checkout (${first.toString('utf8')}), so the changes judged could point agentguard's writes anywhere. Fix: remove it from the repository (agentguard writes there; it is never part of a change), ${OUTSIDE}.`,
    );
  let at = root;
  for (const part of rel.split(path.sep)) {
    at = path.join(at, part);
    const st = lstatOrNull(at);
    if (st === null) break;
    if (st.isSymbolicLink())
      throw new SetupError(
        `${at} is a symlink, and agentguard would write its reports through it. Fix: remove the link, ${OUTSIDE}.`,
      );
  }
  checkEntries(outputDir);
}

/** What agentguard writes by name in the folder, and every run folder under ci/, must be no link or special file. */
function checkEntries(outputDir: string): void {
  for (const dir of [outputDir, path.join(outputDir, 'ci')]) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue; // not there yet: made by agentguard
    }
    for (const name of names) {
      if (dir === outputDir && !FIXED_NAMES.test(name)) continue;
      const full = path.join(dir, name);
      const st = lstatOrNull(full);
      if (st === null || st.isFile() || st.isDirectory()) continue;
      throw new SetupError(
        `${full} is ${st.isSymbolicLink() ? 'a symlink' : 'not a plain file or folder'}, and agentguard would write through it. Fix: remove it, ${OUTSIDE}.`,
      );
    }
  }
}

function lstatOrNull(p: string) {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
}
