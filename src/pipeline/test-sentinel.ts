import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { SentinelEvidence, TestResults } from '../evidence/types.js';
import { splitEnvPrefix } from './env-prefix.js';
import { drawName, fileWords, insertAmongTests, inText, jsTwins, pythonTwins } from './test-twins.js';

/** The runners a sentinel test can be planted for: the harness reads their reports by name. */
export type SentinelRunner = 'pytest' | 'unittest' | 'node-test' | 'vitest';

/** Each runner's arguments that run only some tests: a sentinel the selection leaves out would be missed honestly. */
const SELECTS: Record<SentinelRunner, RegExp> = {
  pytest: /^(-k|-m|--deselect|--lf|--last-failed|--sw|--stepwise|--co|--collect-only)(=|$)|::/,
  unittest: /^(-k)(=|$)/,
  'node-test': /^--test-(name-pattern|skip-pattern|only|shard)(=|$)/,
  vitest: /^(-t|--testNamePattern|--shard|--changed|--related)(=|$)/,
};

/**
 * Each runner's arguments that stop at the first failure: the failing sentinel would stop the
 * task's own tests (`-x` also in a short-option cluster such as `-qx`).
 */
const STOPS: Record<SentinelRunner, RegExp> = {
  pytest: /^(-[a-wyz]*x[a-z]*|--exitfirst|--maxfail|--sw|--stepwise)(=|$)/,
  unittest: /^(-[a-eg-z]*f[a-z]*|--failfast)$/,
  'node-test': /^--test-bail$/,
  vitest: /^--bail(=|$)/,
};

/** pytest's options from its config files (addopts): `-x` there stops the run as on the command line. */
export function configStopsPytest(dir: string): boolean {
  for (const name of ['pytest.ini', '.pytest.ini', 'pyproject.toml', 'setup.cfg', 'tox.ini']) {
    let text: string;
    try {
      text = readFileSync(path.join(dir, name), 'utf8');
    } catch {
      continue;
    }
    for (const m of text.matchAll(/^\s*addopts\s*=\s*(.*(?:\n[ \t]+.*)*)/gm)) {
      const words = (m[1] ?? '').replace(/[[\]",']/g, ' ').split(/\s+/);
      if (words.some((w) => STOPS.pytest.test(w))) return true;
    }
  }
  return false;
}

/**
 * The runner the test command is, when a sentinel can be planted for it: the plan asked it for a
 * report by name, and the command selects no subset of the tests (unittest only as `discover`,
 * or with no test names, which is the same).
 */
export function sentinelRunner(words: readonly string[], format: string | undefined): SentinelRunner | null {
  const argv = splitEnvPrefix(words).command;
  const exe = path.basename(argv[0] ?? '');
  const module = /^python(\d+(\.\d+)?)?$/.test(exe) && argv[1] === '-m' ? argv[2] : undefined;
  const runner: SentinelRunner | null =
    (exe === 'pytest' || exe === 'py.test' || module === 'pytest') && format === 'junit'
      ? 'pytest'
      : module === 'unittest' && format === 'unittest'
        ? 'unittest'
        : exe === 'node' && argv.includes('--test') && format === 'junit'
          ? 'node-test'
          : argv.slice(0, 3).some((a) => path.basename(a) === 'vitest') && format === 'junit'
            ? 'vitest'
            : null;
  if (!runner) return null;
  const own = argv.slice(module ? 3 : 1);
  if (own.some((a) => SELECTS[runner].test(a) || STOPS[runner].test(a))) return null;
  if (runner === 'unittest' && own[0] !== 'discover' && own.some((a) => !a.startsWith('-'))) return null;
  return runner;
}

/** Which files of the tree a runner loads as tests: by name, and by what they import. */
const TEST_FILE: Record<SentinelRunner, { name: RegExp; content: RegExp }> = {
  pytest: { name: /(^|\/)(test_[^/]*|[^/]*_test)\.py$/, content: /^\s*(def test|class Test)/m },
  unittest: { name: /(^|\/)test[^/]*\.py$/, content: /\bunittest\b/ },
  'node-test': { name: /\.[cm]?js$/, content: /['"]node:test['"]/ },
  vitest: { name: /\.(test|spec)\.[cm]?[jt]sx?$/, content: /['"]vitest['"]|\b(test|it|describe)\(/ },
};

/** Folders whose files are never the task's tests. */
const NOT_TESTS = /(^|\/)(node_modules|\.git|\.venv|venv|site-packages|__pycache__|dist|build)\//;

/**
 * Plant the harness's sentinel test in every test file of `rels` (paths relative to `dir`, the grading
 * copy) that the runner loads: a test whose probes call the framework's assertions with arguments
 * that must fail, and which then fails by its own `throw` only when every probe failed. In an
 * honest run it fails, named by `token`, beside the task's own tests, in their process and after
 * their imports; a test framework, assertion library or report the code under test changed to make
 * failures pass makes it pass or vanish. Null when the runner has no test file here.
 */
export function plantSentinels(
  dir: string,
  rels: readonly string[],
  runner: SentinelRunner,
  argv: readonly string[],
): SentinelEvidence | null {
  if (runner === 'pytest' && configStopsPytest(dir)) return null;
  const token = `t${randomBytes(6).toString('hex')}`;
  const match = TEST_FILE[runner];
  const named = namedPaths(splitEnvPrefix(argv).command, dir);
  const found: { rel: string; text: string }[] = [];
  for (const rel of rels) {
    if (!match.name.test(rel) || NOT_TESTS.test(rel)) continue;
    if (named.length > 0 && !named.some((p) => p === '' || rel === p || rel.startsWith(`${p}/`))) continue;
    let text: string;
    try {
      text = readFileSync(path.join(dir, rel), 'utf8');
    } catch {
      continue;
    }
    if (match.content.test(text)) found.push({ rel, text });
  }
  if (found.length === 0) return null;
  // Every name planted is new to every planted file, so a report's case is the harness's or the task's, never both.
  const all = found.map((f) => f.text).join('\n');
  const used = new Set<string>();
  const taken = (name: string) => used.has(name) || inText(all, name);
  const claim = (name: string | null) => {
    if (name) used.add(name);
    return name;
  };
  const python = runner === 'pytest' || runner === 'unittest';
  const sentinel: SentinelEvidence = { ...emptySentinel(token), files: [], names: [], twins: [] };
  for (const { rel, text } of found) {
    const doubled = (python ? pythonTwins : jsTwins)(text, (n) => taken(n));
    for (const t of doubled.twins) {
      used.add(t.name);
      sentinel.twins?.push({ ...t, file: rel });
    }
    const words = fileWords(text);
    const drawn = (make: (a: string, b: string) => string) => claim(drawName(words, taken, make));
    const probe = sentinelSource(runner, moduleKind(dir, rel), drawn);
    if (!probe) continue;
    writeFileSync(path.join(dir, rel), insertAmongTests(doubled.text, probe.source, python));
    sentinel.files.push(rel);
    sentinel.names?.push(probe.name);
  }
  return sentinel.files.length > 0 ? sentinel : null;
}

function emptySentinel(token: string): SentinelEvidence {
  return { token, files: [], exit_code: 1, failed: [], passed: [], skipped: [] };
}

/**
 * The folders and files the command names (its arguments that are paths in `dir`): a runner given
 * paths runs only the tests under them, so the sentinel goes only there.
 */
function namedPaths(argv: readonly string[], dir: string): string[] {
  const out: string[] = [];
  for (const arg of argv.slice(1)) {
    if (arg.startsWith('-') || arg.includes('\0')) continue;
    const rel = path.relative(dir, path.resolve(dir, arg));
    if (rel.startsWith('..') || path.isAbsolute(rel) || !existsSync(path.join(dir, rel))) continue;
    out.push(rel.split(path.sep).join('/'));
  }
  return out;
}

/** Whether a JS file is an ES module: by its extension, else by the nearest package.json's `type`. */
function moduleKind(dir: string, rel: string): 'esm' | 'cjs' {
  if (rel.endsWith('.mjs')) return 'esm';
  if (rel.endsWith('.cjs')) return 'cjs';
  for (let at = path.dirname(path.join(dir, rel)); at.startsWith(dir); at = path.dirname(at)) {
    const pkg = path.join(at, 'package.json');
    if (!existsSync(pkg)) {
      if (at === dir) break;
      continue;
    }
    try {
      return (JSON.parse(readFileSync(pkg, 'utf8')) as { type?: string }).type === 'module' ? 'esm' : 'cjs';
    } catch {
      return 'cjs';
    }
  }
  return 'cjs';
}

/** node:assert's calls, each given arguments that must throw. */
const NODE_ASSERT_CALLS = [
  '(false)',
  '.ok(false)',
  '.equal(1, 2)',
  '.notEqual(1, 1)',
  '.strictEqual(1, 2)',
  '.notStrictEqual(1, 1)',
  '.deepEqual([1], [2])',
  '.notDeepEqual([1], [1])',
  '.deepStrictEqual([1], [2])',
  '.notDeepStrictEqual([1], [1])',
  '.throws(() => {})',
  '.doesNotThrow(() => { throw new Error(); })',
  ".match('a', /b/)",
  ".doesNotMatch('a', /a/)",
  '.ifError(1)',
  ".fail('probe')",
];

/** Each call on node:assert and on its strict form (`node:assert/strict` is the same object as `.strict`). */
const NODE_ASSERT_PROBES = (a: string) =>
  [a, `${a}.strict`].flatMap((on) => NODE_ASSERT_CALLS.map((call) => `() => ${on}${call}`));

const EXPECT_PROBES = (e: string) => [
  `() => ${e}(1).toBe(2)`,
  `() => ${e}([1]).toEqual([2])`,
  `() => ${e}([1]).toStrictEqual([2])`,
  `() => ${e}(0).toBeTruthy()`,
  `() => ${e}(1).toBeFalsy()`,
  `() => ${e}([]).toContain(1)`,
  `() => ${e}(() => {}).toThrow()`,
  `() => ${e}(1).not.toBe(1)`,
  `() => ${e}('a').toMatch(/b/)`,
  `() => ${e}(1).toBeNull()`,
];

/** A JS test body: count the probes that threw; throw, as an ordinary assertion would, only when all did. */
function jsBody(probes: string[]): string {
  return [
    '() => {',
    '  let failed = 0;',
    `  for (const probe of [${probes.join(', ')}]) {`,
    '    try { probe(); } catch { failed += 1; }',
    '  }',
    `  if (failed === ${probes.length}) throw new Error(\`expected \${failed} to be below ${probes.length}\`);`,
    '}',
  ].join('\n');
}

const PY_PROBES = [
  'self.assertEqual(1, 2)',
  'self.assertNotEqual(1, 1)',
  'self.assertTrue(False)',
  'self.assertFalse(True)',
  'self.assertIs(1, None)',
  'self.assertIsNone(1)',
  'self.assertIn(1, ())',
  'self.assertAlmostEqual(1, 2)',
  'self.assertListEqual([1], [2])',
  'self.assertDictEqual({}, {1: 2})',
  'self.assertCountEqual([1], [2])',
  'self.assertRaises(ValueError, int, 1)',
  'self.assertRegex("a", "b")',
  'self.assertGreater(1, 2)',
  'self.fail("probe")',
];

/** pytest's own helpers, each given arguments that must fail. */
const PYTEST_PROBES = (m: string) => [
  `${m}_pytest.fail("probe")`,
  `${m}_pytest.raises(ValueError, int, 1)`,
  `assert 1 == ${m}_pytest.approx(2)`,
];

/** A drawn name: two of the file's words made into one, new to every planted file (null when none is). */
type Draw = (make: (a: string, b: string) => string) => string | null;

const cap = (w: string) => `${w[0]?.toUpperCase() ?? ''}${w.slice(1)}`;

/**
 * The probe test for one file, named and aliased with the file's own words (no mark of the
 * harness a forger could look for), and the name the report gives it.
 */
export function sentinelSource(
  runner: SentinelRunner,
  kind: 'esm' | 'cjs',
  draw: Draw,
): { source: string; name: string } | null {
  if (runner === 'pytest' || runner === 'unittest') return pythonProbe(runner, draw);
  const title = draw((x, y) => `${x} ${y}`);
  const a = draw((x, y) => `${x}${cap(y)}`);
  const t = draw((x, y) => `${y}${cap(x)}`);
  if (!title || !a || !t) return null;
  if (runner === 'vitest') {
    const e = draw((x, y) => `${x}${cap(y)}Of`);
    if (!e) return null;
    const source = [
      '',
      `import ${a} from 'node:assert';`,
      `import { test as ${t}, expect as ${e} } from 'vitest';`,
      `${t}('${title}', ${jsBody([...EXPECT_PROBES(e), ...NODE_ASSERT_PROBES(a)])});`,
      '',
    ].join('\n');
    return { source, name: title };
  }
  const body = jsBody(NODE_ASSERT_PROBES(a));
  const source =
    kind === 'esm'
      ? [
          '',
          `import ${a} from 'node:assert';`,
          `import { test as ${t} } from 'node:test';`,
          `${t}('${title}', ${body});`,
          '',
        ]
      : [
          '',
          ';{',
          `  const ${a} = require('node:assert');`,
          `  require('node:test').test('${title}', ${body});`,
          '}',
          '',
        ];
  return { source: source.join('\n'), name: title };
}

function pythonProbe(runner: 'pytest' | 'unittest', draw: Draw): { source: string; name: string } | null {
  const cls = draw((x, y) => `Test${cap(x)}${cap(y)}`);
  const method = draw((x, y) => `test_${x}_${y}`);
  const m = draw((x, y) => `_${x}_${y}`);
  if (!cls || !method || !m) return null;
  const probes = runner === 'pytest' ? [...PY_PROBES, ...PYTEST_PROBES(m)] : PY_PROBES;
  const source = [
    '',
    '',
    `import sys as ${m}_sys`,
    `import unittest as ${m}_unittest`,
    ...(runner === 'pytest' ? [`import pytest as ${m}_pytest`] : []),
    '',
    '',
    `class ${cls}(${m}_unittest.TestCase):`,
    `    def ${method}(self):`,
    '        failed = 0',
    ...probes.flatMap((p) => [
      '        try:',
      `            ${p}`,
      '        except BaseException:',
      '            failed += 1',
    ]),
    // A plain assert too (pytest rewrites it), unless python runs with -O, which drops every assert.
    '        try:',
    '            assert failed < 0',
    '        except AssertionError:',
    '            failed += 1',
    `        if ${m}_sys.flags.optimize:`,
    '            failed += 1',
    // Every assertion of TestCase must still be unittest's own: one replaced by any name counts.
    `        case = ${m}_sys.modules["unittest.case"]`,
    '        for name in dir(case.TestCase):',
    '            if name.startswith(("assert", "fail")) and name != "failureException":',
    '                code = getattr(getattr(case.TestCase, name), "__code__", None)',
    '                if code is None or code.co_filename != case.__file__:',
    '                    failed -= 1',
    `        if failed == ${probes.length + 1}:`,
    `            raise AssertionError("%d != %d" % (failed, ${probes.length + 2}))`,
    '',
    '',
  ].join('\n');
  return { source, name: method };
}

/**
 * Take the sentinel's tests out of the report's cases (they are the harness's, not the task's) and
 * record how the report shows them.
 */
export function sortSentinel(results: TestResults, planted: SentinelEvidence): TestResults {
  const sentinel: SentinelEvidence = { ...planted, failed: [], passed: [], skipped: [] };
  const probes = planted.names ?? [];
  const twins = (planted.twins ?? []).map((t) => ({ ...t }));
  const byName = new Map(results.cases.map((c) => [c.name, c.status]));
  const cases = results.cases.filter((c) => {
    if (probes.some((n) => isNamed(c.name, n))) {
      sentinel[c.status].push(c.name);
      return false;
    }
    const twin = twins.find((t) => isNamed(c.name, t.name));
    if (!twin) return true;
    twin.status = c.status;
    const original = byName.get(`${c.name.slice(0, -twin.name.length)}${twin.of}`);
    if (original) twin.original = original;
    return false;
  });
  return { ...results, cases, sentinel: twins.length > 0 ? { ...sentinel, twins } : sentinel };
}

/** Whether a report's case is the test of this name (the last part of its name: ` > ` or `.` before it). */
function isNamed(caseName: string, name: string): boolean {
  return caseName === name || caseName.endsWith(` > ${name}`) || caseName.endsWith(`.${name}`);
}
