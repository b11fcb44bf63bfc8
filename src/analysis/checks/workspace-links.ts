import { capEvidence, clip, nameList, plural } from '../evidence-list.js';
import { defineCheck } from './define-check.js';

/**
 * Through such a link a later reader (tests, CI, a reviewer's tools) reads or writes files the agent
 * was never given.
 */
export const workspaceLinks = defineCheck({
  id: 'workspace-links',
  defaultSeverity: 'error',
  policyKeys: [],
  doc: 'No symlink the agent created or changed points outside the workspace.',
  run: (bundle) => {
    const escaping = bundle.diff.files.filter((f) => f.link?.escapes === true);
    if (escaping.length === 0) {
      return {
        passed: true,
        message: 'no changed symlink points outside the workspace',
        evidence: [],
      };
    }
    const count = escaping.length;
    return {
      passed: false,
      message: `${plural(count, 'symlink')} ${count === 1 ? 'points' : 'point'} outside the workspace: ${nameList(escaping.map((f) => f.path))}`,
      evidence: capEvidence(
        escaping.map((f) => ({
          path: f.path,
          detail: `${f.status} symlink to ${clip(f.link?.target ?? '?')}`,
        })),
      ),
    };
  },
});
