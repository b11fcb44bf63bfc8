/**
 * The check ids, in the order every report lists them. Each check is defined in its own file,
 * `src/analysis/checks/<id>.ts` (`defineCheck`), and registered in `src/analysis/checks/index.ts`,
 * whose type demands exactly one check for every id here.
 *
 * The ids live here rather than beside the checks because the config schema validates the keys of
 * `severity` with them and config sits below analysis: importing the checks from here would load
 * the whole analysis layer into every config load and make a cycle (the checks read config types).
 */
export const CHECK_IDS = [
  'agent-exit',
  'tests-pass',
  'forbidden-paths',
  'test-tampering',
  'unsafe-commands',
  'scope',
  'diff-size',
  'budget',
  'secret-paths',
  'secret-content',
  'workspace-links',
  'grading-files',
  'skill-coverage',
  'workspace-integrity',
  'observation-complete',
] as const;
export type CheckId = (typeof CHECK_IDS)[number];
