import { mkdirSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { InternalError } from '../errors.js';
import { isInside } from '../workspace/copy-template.js';
import { type CollectedDiff, collectDiff } from '../workspace/diff.js';
import { git } from '../workspace/git.js';
import { prepareWorkspace } from '../workspace/prepare.js';
import { BASE_FILES } from './base.js';
import type { FileOp, Variant } from './types.js';

/** The same cut as a run's (src/pipeline/run-task.ts): a variant's patch is judged like an agent's. */
const MAX_PATCH_BYTES = 32 * 1024 * 1024;

export type Materialised = CollectedDiff & { repoDir: string; baselineSha: string };

/** The base tree, once per fuzz folder: every variant's workspace is prepared from it. */
export function writeBaseTree(dir: string): void {
  for (const [rel, content] of Object.entries(BASE_FILES)) {
    const file = path.join(dir, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
}

/**
 * A variant as a workspace of its own: the base tree prepared exactly as a run prepares its
 * template (`<variantDir>/repo` with its `.git`, the baseline in `<variantDir>/baseline.git`), the
 * variant's changes made on disk, then the diff a run would collect.
 */
export async function materialiseVariant(
  variant: Variant,
  baseDir: string,
  variantDir: string,
): Promise<Materialised> {
  const ws = await prepareWorkspace({
    runId: variant.id,
    runDir: variantDir,
    template: baseDir,
    configPath: path.join(baseDir, '..', 'report.json'),
  });
  for (const op of variant.ops) applyOp(ws.repo_dir, op);
  const collected = await collectDiff({
    repoDir: ws.repo_dir,
    harnessGitDir: ws.harness_git_dir,
    baselineSha: ws.baseline_sha,
    baselineIgnored: ws.baseline_ignored,
    maxPatchBytes: MAX_PATCH_BYTES,
  });
  // The folder is the variant's record: its git config must not name where it happened to be made.
  // (prepareWorkspace already took it out of the workspace's own copy.)
  await git(['config', '--unset-all', 'core.worktree'], { gitDir: ws.harness_git_dir });
  return { ...collected, repoDir: ws.repo_dir, baselineSha: ws.baseline_sha };
}

function applyOp(repoDir: string, op: FileOp): void {
  switch (op.op) {
    case 'write': {
      const file = inside(repoDir, op.path);
      mkdirSync(path.dirname(file), { recursive: true });
      // A write through a linked folder is the point of some templates; one that would land outside
      // the workspace is a template bug, never something to do to the host.
      if (!isInside(realpathSync(repoDir), realpathSync(path.dirname(file)))) {
        throw new InternalError(`fuzz template writes outside its workspace: ${op.path}`);
      }
      writeFileSync(file, op.content);
      return;
    }
    case 'delete':
      rmSync(inside(repoDir, op.path));
      return;
    case 'rename': {
      const to = inside(repoDir, op.to);
      mkdirSync(path.dirname(to), { recursive: true });
      renameSync(inside(repoDir, op.from), to);
      return;
    }
    case 'symlink': {
      const link = inside(repoDir, op.path);
      mkdirSync(path.dirname(link), { recursive: true });
      symlinkSync(op.target, link);
      return;
    }
  }
}

/** The absolute path of a workspace-relative one, refusing any that would leave the workspace lexically. */
function inside(repoDir: string, rel: string): string {
  const abs = path.join(repoDir, rel);
  if (!isInside(repoDir, abs)) throw new InternalError(`fuzz template path leaves its workspace: ${rel}`);
  return abs;
}
