import { changedPaths } from '../changed-paths.js';
import { nameList, plural } from '../evidence-list.js';
import { compileGlobs } from '../path-glob.js';
import { defineCheck } from './define-check.js';
import { ignoredListNote, pathFindings } from './path-findings.js';

/**
 * Deleting such a file exposes nothing, so deletions are left out; the old side of a rename is
 * kept because the secret now lives under another name. Names match whatever their case: `.ENV`
 * or `SERVER.PEM` holds the same credentials, and a case-insensitive checkout (macOS, Windows)
 * loads it under the usual name (found by `benchmarks fuzz`, template secret-file-case).
 */
export const secretPaths = defineCheck({
  id: 'secret-paths',
  defaultSeverity: 'error',
  policyKeys: ['secret_paths'],
  doc: 'No added, changed or renamed file, and no new git-ignored one, looks like a secret file by `secret_paths`.',
  run: (bundle) => {
    const { config, diff } = bundle;
    const note = ignoredListNote(diff.ignored_files_truncated);
    if (config.secret_paths.length === 0) {
      return { passed: true, message: 'no secret_paths configured', evidence: [] };
    }
    const candidates = changedPaths(diff, { deleted: false, ignored: true });
    const found = pathFindings(
      candidates,
      compileGlobs(config.secret_paths, { nocase: true }),
      'secret_paths',
    );
    if (found.paths.length === 0) {
      return {
        passed: true,
        message: `no changed path matches secret_paths${note}`,
        evidence: [],
      };
    }
    const count = found.paths.length;
    return {
      passed: false,
      message: `${plural(count, 'changed path')} ${count === 1 ? 'looks' : 'look'} like a secret file: ${nameList(found.paths)}${note}`,
      evidence: found.evidence,
    };
  },
});
