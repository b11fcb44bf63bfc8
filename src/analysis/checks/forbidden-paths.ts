import { changedPaths } from '../changed-paths.js';
import { nameList, plural } from '../evidence-list.js';
import { compileGlobs } from '../path-glob.js';
import type { Check } from '../types.js';
import { ignoredListNote, pathFindings } from './path-findings.js';

/** Changed, deleted, renamed (either side) or new git-ignored files under forbidden_paths. */
export const forbiddenPaths: Check = (bundle) => {
  const { config, diff } = bundle;
  const note = ignoredListNote(diff.ignored_files_truncated);
  if (config.forbidden_paths.length === 0) {
    return { id: 'forbidden-paths', passed: true, message: 'no forbidden_paths configured', evidence: [] };
  }
  const candidates = changedPaths(diff, { deleted: true, ignored: true });
  const found = pathFindings(candidates, compileGlobs(config.forbidden_paths), 'forbidden_paths');
  if (found.paths.length === 0) {
    return {
      id: 'forbidden-paths',
      passed: true,
      message: `none of ${plural(candidates.length, 'changed path')} match forbidden_paths${note}`,
      evidence: [],
    };
  }
  const count = found.paths.length;
  return {
    id: 'forbidden-paths',
    passed: false,
    message: `${plural(count, 'changed path')} ${count === 1 ? 'matches' : 'match'} forbidden_paths: ${nameList(found.paths)}${note}`,
    evidence: found.evidence,
  };
};
