import { compileGlobs } from '../analysis/path-glob.js';
import type { ResolvedConfig } from '../config/schema.js';
import { placeGraderFiles } from '../workspace/grader-files.js';
import { buildGradingCopy } from '../workspace/grading-copy.js';
import type { PreparedWorkspace } from '../workspace/prepare.js';
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

/** How the test phase grades this run's workspace. */
export function gradingOf(cfg: ResolvedConfig, ws: PreparedWorkspace): GradingSteps {
  return {
    placeGraderFiles: (dest) => placeGraderFiles(ws.grader_dir, dest),
    copy: (dest) =>
      buildGradingCopy({
        harnessGitDir: ws.harness_git_dir,
        baselineSha: ws.baseline_sha,
        dest,
        agentRepo: ws.repo_dir,
        applies: gradedChange(cfg),
        graderDir: ws.grader_dir,
        ignored: ws.ignored_hashes,
      }),
  };
}
