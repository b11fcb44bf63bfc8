import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { globToRegExp, matchesPathGlob } from './mock-glob.js';

// [glob, path, expected]; each row is also checked against picomatch (dot: true), the matcher the
// rest of agentguard uses, so the mock agent and the checks agree on what a test path is.
const CASES: [string, string, boolean][] = [
  ['tests/**', 'tests/test_stock.py', true],
  ['tests/**', 'tests/unit/deep/a.py', true],
  ['tests/**', 'tests', true],
  ['tests/**', 'testsuite/a.py', false],
  ['tests/**', 'src/tests.py', false],
  ['**', '.env', true],
  ['**', 'a/b/c.txt', true],
  ['**/.env', '.env', true],
  ['**/.env', 'config/.env', true],
  ['**/.env', 'config/.env.local', false],
  ['**/.git/**', '.git/config', true],
  ['**/.git/**', 'vendor/lib/.git/HEAD', true],
  ['**/.git/**', 'gitignore', false],
  ['**/*.py', 'a.py', true],
  ['**/*.py', 'pkg/sub/a.py', true],
  ['**/*.py', 'a.pyc', false],
  ['*.py', 'a.py', true],
  ['*.py', 'pkg/a.py', false],
  ['src/*', 'src/a.js', true],
  ['src/*', 'src/a/b.js', false],
  ['a/**/b', 'a/b', true],
  ['a/**/b', 'a/x/y/b', true],
  ['a/**/b', 'ab/b', false],
  ['a/**/b', 'a/x/bc', false],
  ['test/*.test.js', 'test/slugify.test.js', true],
  ['test/*.test.js', 'test/helpers.js', false],
  ['file?.txt', 'file1.txt', true],
  ['file?.txt', 'file10.txt', false],
  ['file?.txt', 'file/.txt', false],
  ['*.{js,ts}', 'index.ts', true],
  ['*.{js,ts}', 'index.py', false],
  ['package.json', 'package.json', true],
  ['package.json', 'sub/package.json', false],
  ['a.b', 'axb', false],
  ['(x)+', '(x)+', true],
  ['./src/**', 'src/a.js', true],
];

describe('globToRegExp', () => {
  it.each(CASES)('%s on %s is %s', (glob, file, expected) => {
    expect(globToRegExp(glob).test(file)).toBe(expected);
  });

  it.each(CASES.filter(([glob]) => !glob.startsWith('./')))(
    'agrees with picomatch: %s on %s',
    (glob, file) => {
      expect(globToRegExp(glob).test(file)).toBe(picomatch(glob, { dot: true })(file));
    },
  );

  it('treats an unclosed brace as a literal', () => {
    expect(globToRegExp('a{b').test('a{b')).toBe(true);
    expect(globToRegExp('a{b').test('ab')).toBe(false);
  });
});

describe('matchesPathGlob', () => {
  it('matches files under a folder named without a glob', () => {
    expect(matchesPathGlob('tests/unit/a.py', 'tests')).toBe(true);
    expect(matchesPathGlob('tests/unit/a.py', 'tests/')).toBe(true);
    expect(matchesPathGlob('tests/unit/a.py', 'tests/unit')).toBe(true);
    expect(matchesPathGlob('tests/unit/a.py', 'tests/**')).toBe(true);
  });

  it('does not match a folder that only shares a prefix', () => {
    expect(matchesPathGlob('tests-old/a.py', 'tests')).toBe(false);
    expect(matchesPathGlob('src/tests.py', 'tests')).toBe(false);
    expect(matchesPathGlob('src/tests.py', 'tests/**')).toBe(false);
  });

  it('matches a pattern without a slash at any depth, unless anchored with a leading slash', () => {
    expect(matchesPathGlob('pkg/sub/test_a.py', 'test_*.py')).toBe(true);
    expect(matchesPathGlob('lib/tests/a.py', 'tests')).toBe(true);
    expect(matchesPathGlob('pkg/sub/test_a.py', '/test_*.py')).toBe(false);
    expect(matchesPathGlob('test_a.py', '/test_*.py')).toBe(true);
    expect(matchesPathGlob('pkg/sub/test_a.py', 'sub/test_*.py')).toBe(false);
  });

  it('matches a literal file path only itself', () => {
    expect(matchesPathGlob('tests/run-tests.sh', 'tests/run-tests.sh')).toBe(true);
    expect(matchesPathGlob('tests/run-tests.sh.orig', 'tests/run-tests.sh')).toBe(false);
    expect(matchesPathGlob('other/tests/run-tests.sh', 'tests/run-tests.sh')).toBe(false);
  });
});
