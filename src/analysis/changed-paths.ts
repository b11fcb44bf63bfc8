import type { DiffEvidence } from '../evidence/types.js';
import { normalizePath } from './path-glob.js';

/** One path the run touched, and how. */
export type ChangedPath = {
  path: string;
  /** A diff status; `renamed-from` is the old side of a rename, `ignored` a new git-ignored file. */
  change: 'added' | 'modified' | 'deleted' | 'renamed' | 'type-changed' | 'renamed-from' | 'ignored';
  /** The other side of a rename. */
  other?: string;
};

export type ChangedPathOptions = {
  /** Include deleted files (a deletion is a change for scope and tampering, not a leaked secret). */
  deleted: boolean;
  /**
   * Include new git-ignored files. They are listed separately because tests and tools create many
   * of them (caches, build output) after the agent is done, so only path policies about content
   * that must never appear (forbidden, secret paths) look at them.
   */
  ignored: boolean;
};

/**
 * Every path the diff says changed, with both sides of a rename: moving a file out of a protected
 * place changes that place as much as editing it does.
 */
export function changedPaths(diff: DiffEvidence, options: ChangedPathOptions): ChangedPath[] {
  const out: ChangedPath[] = [];
  const seen = new Set<string>();
  const push = (item: ChangedPath) => {
    const path = normalizePath(item.path);
    if (seen.has(path)) return;
    seen.add(path);
    out.push({ ...item, path });
  };
  for (const file of diff.files) {
    if (file.status === 'deleted' && !options.deleted) continue;
    if (file.status === 'renamed') {
      push({ path: file.path, change: 'renamed', ...(file.old_path ? { other: file.old_path } : {}) });
      if (file.old_path) push({ path: file.old_path, change: 'renamed-from', other: file.path });
    } else {
      push({ path: file.path, change: file.status });
    }
  }
  if (options.ignored) for (const path of diff.ignored_files) push({ path, change: 'ignored' });
  return out;
}

/** "renamed to b.ts" / "deleted" / "new git-ignored file", for evidence details. */
export function describeChange(item: ChangedPath): string {
  switch (item.change) {
    case 'renamed':
      return item.other ? `renamed from ${item.other}` : 'renamed';
    case 'renamed-from':
      return `renamed to ${item.other ?? 'another path'}`;
    case 'ignored':
      return 'new git-ignored file';
    default:
      return item.change;
  }
}
