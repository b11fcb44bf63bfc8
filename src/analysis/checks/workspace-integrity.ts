import { capEvidence, clip, nameList, plural } from '../evidence-list.js';
import type { Check, EvidenceItem } from '../types.js';

/**
 * What in the workspace the diff could not vouch for: a diff that could not be taken at all, entries
 * it could not read (a fifo, an unreadable file), and nested repositories. A nested repository's
 * files are diffed and checked like any others, but its `.git` can hold what the work tree does not
 * (commits of since-deleted files, hooks), and an agent rarely has a reason to make one.
 */
export const workspaceIntegrity: Check = (bundle) => {
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
      id: 'workspace-integrity',
      passed: true,
      message: 'the whole workspace was diffed',
      evidence: [],
    };
  }
  return {
    id: 'workspace-integrity',
    passed: false,
    message: problems.join('; '),
    evidence: capEvidence(evidence),
  };
};
