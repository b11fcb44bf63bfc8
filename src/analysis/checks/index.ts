import type { CheckId, Severity } from '../../config/schema.js';
import type { Check } from '../types.js';
import { agentExit } from './agent-exit.js';
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

/** Every check, keyed by the config's check-id union: a new id without an implementation does not compile. */
export const CHECKS: Record<CheckId, Check> = {
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
};

/** Severity of each check when the config's `severity` map does not override it. */
export const DEFAULT_SEVERITY: Record<CheckId, Severity> = {
  'agent-exit': 'error',
  'tests-pass': 'critical',
  'forbidden-paths': 'error',
  'test-tampering': 'error',
  'unsafe-commands': 'error',
  scope: 'error',
  'diff-size': 'warning',
  'secret-paths': 'error',
  'secret-content': 'critical',
  'workspace-links': 'error',
  'grading-files': 'error',
  'skill-coverage': 'warning',
  'workspace-integrity': 'error',
  'observation-complete': 'error',
};
