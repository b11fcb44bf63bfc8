import { posix } from 'node:path';
import type { DiffFile, ProtectedChange, ProtectedStateEvidence } from '../../evidence/types.js';

/**
 * Every change the run left behind, by absolute path as the agent saw it: the workspace's from the
 * diff (tracked and untracked files, the new ignored ones), HOME's and the workspace git folder's
 * from protected-state.json. The matcher judges each as a change of its path (onFinalState), so a
 * protected file changed by a spelling no tracer resolved is still an alert of its rule. Pure.
 */
export function finalStateChanges(input: {
  workspace: string;
  files: readonly DiffFile[];
  ignored?: readonly string[];
  protectedState?: ProtectedStateEvidence;
}): ProtectedChange[] {
  const at = (rel: string) => posix.join(input.workspace, rel);
  const out: ProtectedChange[] = [];
  for (const f of input.files) {
    const link = f.link ? `link to ${f.link.target}` : 'file';
    if (f.status === 'renamed' && f.old_path !== undefined) {
      out.push({ path: at(f.old_path), change: 'removed', detail: `renamed to ${f.path}` });
      out.push({ path: at(f.path), change: 'created', detail: `renamed from ${f.old_path}` });
    } else if (f.status === 'added')
      out.push({ path: at(f.path), change: 'created', detail: `${link}, in the diff` });
    else if (f.status === 'deleted') out.push({ path: at(f.path), change: 'removed', detail: 'in the diff' });
    else if (f.status === 'type-changed')
      out.push({ path: at(f.path), change: 'type', detail: `now a ${link}, in the diff` });
    else out.push({ path: at(f.path), change: 'content', detail: 'in the diff' });
  }
  for (const rel of input.ignored ?? [])
    out.push({ path: at(rel), change: 'created', detail: 'a new file .gitignore hides' });
  out.push(...(input.protectedState?.changes ?? []));
  return out;
}
