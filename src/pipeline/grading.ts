import { rmSync } from 'node:fs';
import path from 'node:path';
import { compileGlobs } from '../analysis/path-glob.js';
import type { ResolvedConfig } from '../config/schema.js';
import type { TestEvidence } from '../evidence/types.js';
import { displayPath } from '../workspace/byte-paths.js';
import { placeGraderFiles } from '../workspace/grader-files.js';
import { type BlobTree, buildGradingCopy, lsTree } from '../workspace/grading-copy.js';
import type { PreparedWorkspace } from '../workspace/prepare.js';
import { hidePlanted, linkHistoryPacks } from '../workspace/template-history.js';
import { expectedTests } from './test-baseline.js';
import type { GradingSteps } from './test-phase.js';

/** Grader-only files: under grader_paths and not also under test_paths (those the agent may read). */
export function graderOnlyMatcher(cfg: ResolvedConfig): ((rel: string) => boolean) | undefined {
  if (cfg.grader_paths.length === 0) return undefined;
  const grader = compileGlobs(cfg.grader_paths);
  const fair = compileGlobs(cfg.test_paths);
  return (rel) => grader(rel) !== null && fair(rel) === null;
}

/**
 * Which of the agent's changes the grading copy takes: those under allowed_paths, and none to a test
 * file, a grader file or a forbidden path (those fail their checks; they never reach the tests).
 */
export function gradedChange(cfg: ResolvedConfig): (rel: string) => boolean {
  const allowed = compileGlobs(cfg.allowed_paths);
  const kept = compileGlobs([...cfg.test_paths, ...cfg.grader_paths, ...cfg.forbidden_paths]);
  return (rel) => allowed(rel) !== null && kept(rel) === null;
}

/**
 * How the test phase grades this run's workspace. `baseline` runs the tests in a folder it is given
 * (at the workspace's path, in the sandbox, untraced): it is given a grading copy of the baseline
 * itself, to learn which tests the task has when the config declares no count.
 */
export function gradingOf(
  cfg: ResolvedConfig,
  ws: PreparedWorkspace,
  baseline?: { cacheDir: string; runIn: (dir: string) => Promise<TestEvidence> },
  /** Gives a folder the harness made for the tests to the user they run as (the run user). */
  own: (dir: string) => void = () => {},
): GradingSteps {
  const guarded = compileGlobs([...cfg.test_paths, ...cfg.grader_paths]);
  // The baseline commit's tree, read once for every copy and the sentinel's list of files.
  let baseTree: Promise<BlobTree> | undefined;
  const baselineTree = () => {
    baseTree ??= lsTree(ws.harness_git_dir, ws.baseline_sha);
    return baseTree;
  };
  const copy = async (dest: string, agentRev?: string) => {
    const made = await buildGradingCopy({
      baseTree: baselineTree(),
      harnessGitDir: ws.harness_git_dir,
      baselineSha: ws.baseline_sha,
      ...(agentRev ? { agentRev } : {}),
      dest,
      agentRepo: ws.repo_dir,
      applies: gradedChange(cfg),
      graderDir: ws.grader_dir,
      ignored: ws.ignored_hashes,
      guarded: (rel) => guarded(rel) !== null,
      history: ws.template_history,
    });
    own(dest);
    // After `own`: the packs stay root's and read-only in the run user's copy.
    if (ws.template_history) linkHistoryPacks(dest, ws.template_history);
    return made;
  };
  return {
    placeGraderFiles: (dest) => {
      const placed = placeGraderFiles(ws.grader_dir, dest);
      own(dest);
      return placed;
    },
    copy: (dest) => copy(dest),
    ...(ws.template_history ? { planted: hidePlanted } : {}),
    trackedFiles: async () => [...(await baselineTree()).values()].map((item) => displayPath(item.rel)),
    ...(baseline
      ? {
          expected: () =>
            expectedTests({
              cfg,
              ws,
              cacheDir: baseline.cacheDir,
              runOnBaseline: async () => {
                const dir = path.join(path.dirname(ws.repo_dir), 'grading-baseline');
                try {
                  await copy(dir, ws.baseline_sha);
                  return await baseline.runIn(dir);
                } finally {
                  rmSync(dir, { recursive: true, force: true });
                }
              },
            }),
        }
      : {}),
  };
}
