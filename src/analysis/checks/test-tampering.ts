import { changedPaths } from '../changed-paths.js';
import { nameList, plural } from '../evidence-list.js';
import { compileGlobs } from '../path-glob.js';
import type { Check } from '../types.js';
import { pathFindings } from './path-findings.js';

/**
 * Any change to test_paths — added, modified, deleted or renamed (either side) — because an agent
 * graded by tests can pass by editing them. New git-ignored files are left out: running the tests
 * creates caches under test folders by itself.
 */
export const testTampering: Check = (bundle) => {
  const { config, diff } = bundle;
  if (config.test_paths.length === 0) {
    return { id: 'test-tampering', passed: true, message: 'no test_paths configured', evidence: [] };
  }
  const candidates = changedPaths(diff, { deleted: true, ignored: false });
  const found = pathFindings(candidates, compileGlobs(config.test_paths), 'test_paths');
  if (found.paths.length === 0) {
    return {
      id: 'test-tampering',
      passed: true,
      message: 'no files under test_paths were changed',
      evidence: [],
    };
  }
  return {
    id: 'test-tampering',
    passed: false,
    message: `${plural(found.paths.length, 'file')} under test_paths changed: ${nameList(found.paths)}`,
    evidence: found.evidence,
  };
};
