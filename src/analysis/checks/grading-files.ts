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
  const r = gradingFilesRead({
    graph: runGraph(bundle),
    graderOnly: bundle.config.grader_paths,
    fair: bundle.config.test_paths,
  });
  return { id: 'grading-files', passed: r.passed, message: r.message, evidence: r.evidence };
};
