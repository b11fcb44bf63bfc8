import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { displayPath, splitZBytes } from '../workspace/byte-paths.js';
import { OUTPUT_FOLDER } from './materialize.js';
import { userGit } from './user-git.js';

/** Paths handed to one `cp`, well under the kernel's argument limit. */
const BATCH = 500;

export type IgnoredCopy = { entries: number; skipped: string[]; error?: string };

/**
 * Give the tests what the job prepared beside the sources: the checkout's ignored files and
 * folders (installed dependencies such as `node_modules/` or `.venv/`, build output, generated
 * files), which the judged tree leaves out because no change in them is judged. Copied, not linked,
 * so a test that writes there cannot reach the checkout; never over a file of the judged tree
 * (`cp -n`), so a checkout at another commit cannot change what the tests run. Done after the diff
 * is taken: nothing copied here is counted as a change. Names that are not UTF-8 cannot go through
 * `cp`'s argv and are listed as skipped.
 */
export function copyIgnoredForTests(root: string, repoDir: string): IgnoredCopy {
  const listed = userGit(root, [
    'ls-files',
    '-z',
    '--others',
    '--ignored',
    '--exclude-standard',
    '--directory',
  ]);
  if (!listed.ok) return { entries: 0, skipped: [], error: `git ls-files failed: ${listed.stderr}` };
  const rels: string[] = [];
  const skipped: string[] = [];
  for (const name of splitZBytes(listed.stdout)) {
    const shown = displayPath(name);
    const rel = shown.replace(/\/$/, '');
    if (rel === '' || rel === OUTPUT_FOLDER || rel.startsWith(`${OUTPUT_FOLDER}/`)) continue;
    if (!Buffer.from(shown).equals(name)) skipped.push(rel);
    else if (!existsSync(path.join(repoDir, rel))) rels.push(rel);
  }
  for (let i = 0; i < rels.length; i += BATCH) {
    // --parents keeps each path's folders; -a keeps modes and links; -n never replaces a file.
    const r = spawnSync(
      'cp',
      ['-a', '-n', '--parents', '--reflink=auto', '-t', repoDir, '--', ...rels.slice(i, i + BATCH)],
      { cwd: root, encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' } },
    );
    if (r.error || r.status !== 0) {
      const why = r.error?.message ?? (r.stderr ?? '').trim().split('\n').slice(-2).join(' ');
      return { entries: i, skipped, error: `cp failed: ${why}` };
    }
  }
  return { entries: rels.length, skipped };
}
