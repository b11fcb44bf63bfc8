import { type ChangedPath, describeChange } from '../changed-paths.js';
import { capEvidence } from '../evidence-list.js';
import type { PathMatcher } from '../path-glob.js';
import type { EvidenceItem } from '../types.js';

export type PathFindings = { paths: string[]; evidence: EvidenceItem[] };

/**
 * The changed paths a glob list matches (or, with `inverse`, fails to match), as evidence naming
 * the change and the pattern, so a reader sees why each path was flagged.
 */
export function pathFindings(
  candidates: readonly ChangedPath[],
  matcher: PathMatcher,
  field: string,
  inverse = false,
): PathFindings {
  const paths: string[] = [];
  const items: EvidenceItem[] = [];
  for (const item of candidates) {
    const pattern = matcher(item.path);
    if ((pattern !== null) === inverse) continue;
    paths.push(item.path);
    const why = pattern === null ? `matches no ${field} pattern` : `matches ${field} '${pattern}'`;
    items.push({ path: item.path, detail: `${describeChange(item)}; ${why}` });
  }
  return { paths, evidence: capEvidence(items) };
}

/** A note for messages when the ignored-file list was cut, so a clean result is not over-trusted. */
export function ignoredListNote(truncated: boolean): string {
  return truncated ? ' (the list of new git-ignored files was cut, so some were not checked)' : '';
}
