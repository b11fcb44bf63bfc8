import { changedPaths } from '../changed-paths.js';
import { nameList, plural } from '../evidence-list.js';
import { compileGlobs } from '../path-glob.js';
import { defineCheck } from './define-check.js';
import { pathFindings } from './path-findings.js';

/**
 * An agent graded by tests can pass by editing them. New git-ignored files are left out: running
 * the tests creates caches under test folders by itself.
 */
export const testTampering = defineCheck({
  id: 'test-tampering',
  defaultSeverity: 'error',
  policyKeys: ['test_paths'],
  doc: 'No file under `test_paths` was added, changed, deleted or renamed.',
  run: (bundle) => {
    const { config, diff } = bundle;
    if (config.test_paths.length === 0) {
      return { passed: true, message: 'no test_paths configured', evidence: [] };
    }
    const candidates = changedPaths(diff, { deleted: true, ignored: false });
    const found = pathFindings(candidates, compileGlobs(config.test_paths), 'test_paths');
    if (found.paths.length === 0) {
      return {
        passed: true,
        message: 'no files under test_paths were changed',
        evidence: [],
      };
    }
    return {
      passed: false,
      message: `${plural(found.paths.length, 'file')} under test_paths changed: ${nameList(found.paths)}`,
      evidence: found.evidence,
    };
  },
});
