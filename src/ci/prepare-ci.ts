import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { DiffEvidence } from '../evidence/types.js';
import { collectDiff } from '../workspace/diff.js';
import { commitEntries } from '../workspace/fast-import.js';
import { git } from '../workspace/git.js';
import { walkTree } from '../workspace/walk-tree.js';
import { copyWorkingTree, writeCommitTree } from './materialize.js';
import type { CiRange } from './resolve-range.js';

const MAX_PATCH_BYTES = 32 * 1024 * 1024;
const HEAD_REF = 'refs/agentguard/ci-head';

export type CiWorkspace = {
  baseline_sha: string;
  /** Files in the judged tree (the copy the tests run in). */
  files: number;
  diff: DiffEvidence;
  patch: string;
};

/**
 * Lay a CI run out like an agent run, so the same diff and analysis apply: the base tree (HEAD, or
 * the merge base) is committed into the harness's `baseline.git`, then `repoDir` is filled with the
 * judged tree (the working tree, or head) and diffed against it by `collectDiff`. The checkout
 * itself is only read.
 */
export async function prepareCiWorkspace(
  range: CiRange,
  runDir: string,
  repoDir: string,
): Promise<CiWorkspace> {
  const gitDir = path.join(runDir, 'baseline.git');
  const g = (args: string[]) => git(args, { gitDir, workTree: repoDir });
  const commitFolder = async (ref: string) => {
    const committed = await commitEntries({
      gitDir,
      workTree: repoDir,
      ref,
      // The base tree is exactly what was committed: nothing in it is "ignored".
      entries: walkTree(repoDir, () => false).entries,
    });
    if (!committed.ok) throw new Error(committed.error);
  };

  writeCommitTree(range.root, range.mode === 'commits' ? range.merge_base : range.base_sha, repoDir);
  await g(['init', '-q', '-b', 'main']);
  await commitFolder('refs/heads/main');
  const baselineSha = (await g(['rev-parse', 'refs/heads/main'])).stdout.toString('utf8').trim();

  rmSync(repoDir, { recursive: true, force: true });
  mkdirSync(repoDir, { recursive: true });
  const files =
    range.mode === 'commits'
      ? writeCommitTree(range.root, range.head_sha, repoDir)
      : copyWorkingTree(range.root, repoDir);
  // The diff lists as "ignored" what the harness index does not track and .gitignore hides. Every
  // file of the judged tree is committed or would be: index the judged tree, so none is hidden.
  await commitFolder(HEAD_REF);
  await g(['read-tree', HEAD_REF]);
  await g(['update-ref', '-d', HEAD_REF]);

  const { diff, patch } = await collectDiff({
    repoDir,
    harnessGitDir: gitDir,
    baselineSha,
    baselineIgnored: [],
    maxPatchBytes: MAX_PATCH_BYTES,
  });
  // The copy has no .git of its own by design; that is not the "agent changed .git" the flag reports.
  return { baseline_sha: baselineSha, files, diff: { ...diff, workspace_git_changed: false }, patch };
}
