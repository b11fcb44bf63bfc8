import { gradingFilesRead } from '../reliability/obligations.js';
import { runGraph } from '../run-graph.js';
import type { Check } from '../types.js';

/** Grader-only files (config grader_paths) must not be read or run during the agent window. */
export const gradingFiles: Check = (bundle) => {
  if (bundle.config.grader_paths.length === 0) {
    return {
      id: 'grading-files',
      passed: true,
      message: 'the task declares no grader-only files',
      evidence: [],
    };
  }
  if (bundle.observation.tracer.kind === 'off') {
    return {
      id: 'grading-files',
      passed: true,
      message: 'not measured: without a tracer there is no record of which files were read',
      evidence: [],
    };
  }
  // git hashes every changed-looking file for `git status`/`diff` (agents run these constantly);
  // that is bookkeeping, not reading the answers. `git show HEAD:file` reads the object store, not
  // the path, so nothing that reads a grader file through git is hidden by this.
  // Listing the grader folder itself (agents scan the tree for context) shows no answer either.
  const folders = new Set(
    bundle.config.grader_paths.map((g) => `${bundle.workspace.repo_dir}/${g.replace(/\/\*\*$/, '')}`),
  );
  const notGit = bundle.syscalls.filter((e) => !/(^|\/)git$/.test(e.exe) && !(e.path && folders.has(e.path)));
  const r = gradingFilesRead({
    graph: runGraph({ ...bundle, syscalls: notGit }),
    graderOnly: bundle.config.grader_paths,
    fair: bundle.config.test_paths,
  });
  return { id: 'grading-files', passed: r.passed, message: r.message, evidence: r.evidence };
};
