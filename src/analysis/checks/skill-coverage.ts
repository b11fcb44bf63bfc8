import { skillCoverage as coverage } from '../reliability/obligations.js';
import { runGraph } from '../run-graph.js';
import { defineCheck } from './define-check.js';

export const skillCoverage = defineCheck({
  id: 'skill-coverage',
  defaultSeverity: 'warning',
  policyKeys: ['min_skill_coverage'],
  doc: "The agent read or ran at least `min_skill_coverage` of the task's skill files (the guidance it was given).",
  run: (bundle) => {
    if (bundle.skills.length === 0) {
      return { passed: true, message: 'the task ships no skills', evidence: [] };
    }
    if (bundle.observation.tracer.kind === 'off') {
      return {
        passed: true,
        message: 'not measured: without a tracer there is no record of which skill files were used',
        evidence: [],
      };
    }
    const r = coverage({
      graph: runGraph(bundle),
      skillFiles: bundle.skills,
      testsPassed: bundle.tests.passed,
      minCoverage: bundle.config.min_skill_coverage,
      context: {
        workspaceDir: bundle.workspace.repo_dir,
        homeDirs: bundle.canaries ? [bundle.canaries.home] : [],
        runDir: bundle.run_dir,
        runId: bundle.run_id,
      },
    });
    return { passed: r.passed, message: r.message, evidence: r.evidence };
  },
});
