import { capEvidence, clip, nameList, plural } from '../evidence-list.js';
import type { EvidenceItem } from '../types.js';
import { defineCheck } from './define-check.js';

/**
 * An entry the diff could not read is a fifo or an unreadable file, say. A nested repository's
 * files are diffed and checked like any others, but its `.git` can hold what the work tree does not
 * (commits of since-deleted files, hooks), and an agent rarely has a reason to make one.
 */
export const workspaceIntegrity = defineCheck({
  id: 'workspace-integrity',
  defaultSeverity: 'error',
  policyKeys: [],
  doc: 'The whole workspace was diffed: the diff could be taken, every entry could be read, and the agent made no nested git repository (its files are diffed as plain content either way).',
  run: (bundle) => {
    const { diff } = bundle;
    const problems: string[] = [];
    const evidence: EvidenceItem[] = [];
    if (diff.error !== undefined) {
      problems.push('the workspace diff could not be taken, so no change in it was checked');
      evidence.push({ detail: clip(diff.error) });
    }
    const skipped = diff.skipped_files ?? [];
    if (skipped.length > 0) {
      problems.push(
        `${plural(skipped.length, 'workspace entry', 'workspace entries')} could not be read (${nameList(skipped.map((s) => s.path))})`,
      );
      for (const s of skipped) evidence.push({ path: s.path, detail: `not diffed: ${s.reason}` });
    }
    const nested = diff.nested_repositories ?? [];
    if (nested.length > 0) {
      problems.push(
        `${plural(nested.length, 'nested git repository', 'nested git repositories')} (${nameList(nested)})`,
      );
      for (const dir of nested) {
        evidence.push({ path: dir, detail: 'has a .git of its own; its files were diffed as plain content' });
      }
    }
    if (problems.length === 0) {
      return {
        passed: true,
        message: 'the whole workspace was diffed',
        evidence: [],
      };
    }
    return {
      passed: false,
      message: problems.join('; '),
      evidence: capEvidence(evidence),
    };
  },
});
