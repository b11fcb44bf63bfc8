import { changedPaths } from '../changed-paths.js';
import { nameList, plural } from '../evidence-list.js';
import { compileGlobs } from '../path-glob.js';
import { defineCheck } from './define-check.js';
import { pathFindings } from './path-findings.js';

/**
 * New git-ignored files are left out: tests and tools create them (caches, build output) by
 * themselves.
 */
export const scope = defineCheck({
  id: 'scope',
  defaultSeverity: 'error',
  policyKeys: ['allowed_paths'],
  doc: 'Every changed file (deletions and both sides of renames included) is inside `allowed_paths`.',
  run: (bundle) => {
    const { config, diff } = bundle;
    const candidates = changedPaths(diff, { deleted: true, ignored: false });
    const found = pathFindings(candidates, compileGlobs(config.allowed_paths), 'allowed_paths', true);
    if (found.paths.length === 0) {
      return {
        passed: true,
        message:
          candidates.length === 0
            ? 'no files changed'
            : `all ${plural(candidates.length, 'changed path')} are inside allowed_paths`,
        evidence: [],
      };
    }
    const count = found.paths.length;
    return {
      passed: false,
      message: `${plural(count, 'changed path')} ${count === 1 ? 'is' : 'are'} outside allowed_paths: ${nameList(found.paths)}`,
      evidence: found.evidence,
    };
  },
});
