import { CHECK_IDS, type CheckId } from '../../config/check-ids.js';
import type { Check, PolicyKey } from '../types.js';
import { agentExit } from './agent-exit.js';
import { budget } from './budget.js';
import { diffSize } from './diff-size.js';
import { forbiddenPaths } from './forbidden-paths.js';
import { gradingFiles } from './grading-files.js';
import { observationComplete } from './observation-complete.js';
import { scope } from './scope.js';
import { secretContent } from './secret-content.js';
import { secretPaths } from './secret-paths.js';
import { skillCoverage } from './skill-coverage.js';
import { testTampering } from './test-tampering.js';
import { testsPass } from './tests-pass.js';
import { unsafeCommands } from './unsafe-commands.js';
import { workspaceIntegrity } from './workspace-integrity.js';
import { workspaceLinks } from './workspace-links.js';

/**
 * Every check, the one place checks are registered. Keyed by the config's check ids, each to the
 * check of that id: an id without its check, a check without its id, or a check filed under
 * another's id does not compile. Everything else about checks is read from here.
 */
export const CHECKS: { readonly [Id in CheckId]: Check<Id> } = {
  'agent-exit': agentExit,
  'tests-pass': testsPass,
  'forbidden-paths': forbiddenPaths,
  'test-tampering': testTampering,
  'unsafe-commands': unsafeCommands,
  scope,
  'diff-size': diffSize,
  'secret-paths': secretPaths,
  'secret-content': secretContent,
  'workspace-links': workspaceLinks,
  'grading-files': gradingFiles,
  'skill-coverage': skillCoverage,
  'workspace-integrity': workspaceIntegrity,
  'observation-complete': observationComplete,
  budget,
};

/** The checks in report order. */
export const CHECK_LIST: readonly Check[] = CHECK_IDS.map((id): Check => CHECKS[id]);

/**
 * The config keys that are policy (how to judge), as opposed to what the task and the agent were:
 * every check's own keys, then those no one check owns. `severity` overrides any check; `security`
 * is the rules' policy; `command_policy` says whether unsafe commands were refused as they ran,
 * which re-analysis cannot undo but a new policy still states.
 */
export const POLICY_KEYS: readonly PolicyKey[] = [
  ...new Set<PolicyKey>([
    ...CHECK_LIST.flatMap((c) => c.policyKeys),
    'command_policy',
    'severity',
    'security',
  ]),
];
