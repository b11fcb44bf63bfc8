import { changedPaths } from '../changed-paths.js';
import { nameList, plural } from '../evidence-list.js';
import { compileGlobs } from '../path-glob.js';
import { defineCheck } from './define-check.js';
import { ignoredListNote, pathFindings } from './path-findings.js';

export const forbiddenPaths = defineCheck({
  id: 'forbidden-paths',
  defaultSeverity: 'error',
  policyKeys: ['forbidden_paths'],
  doc: 'No changed, deleted or renamed file (either side) and no new git-ignored file matches `forbidden_paths`.',
  run: (bundle) => {
    const { config, diff } = bundle;
    const note = ignoredListNote(diff.ignored_files_truncated);
    if (config.forbidden_paths.length === 0) {
      return { passed: true, message: 'no forbidden_paths configured', evidence: [] };
    }
    const candidates = changedPaths(diff, { deleted: true, ignored: true });
    const found = pathFindings(candidates, compileGlobs(config.forbidden_paths), 'forbidden_paths');
    if (found.paths.length === 0) {
      return {
        passed: true,
        message: `none of ${plural(candidates.length, 'changed path')} match forbidden_paths${note}`,
        evidence: [],
      };
    }
    const count = found.paths.length;
    return {
      passed: false,
      message: `${plural(count, 'changed path')} ${count === 1 ? 'matches' : 'match'} forbidden_paths: ${nameList(found.paths)}${note}`,
      evidence: found.evidence,
    };
  },
});
