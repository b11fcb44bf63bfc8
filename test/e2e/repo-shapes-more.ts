import { json, nodeTest, npmLock, type Shape, TYPESCRIPT_PACKAGES } from './repo-shapes.js';

/*
 * More held-out-style shapes for issue 42 (see repo-shapes.ts): what popular repositories do that the
 * first corpus did not try. `tags` are annotated tags made on the one commit, as a release has them;
 * those shapes' tests read the repository's history, which the grading copy has from the template.
 */

export type HistoryShape = Shape & { tags?: string[] };

/** cross-env 7.0.3 and its dependencies as npm 10 locks them. */
const CROSS_ENV_PACKAGES = {
  'node_modules/cross-env': {
    version: '7.0.3',
    integrity:
      'sha512-+/HKd6EgcQCJGh2PSjZuUitQBQynKor4wrFbRg4DtAgS1aWO+gU52xpH7M9ScGgXSYmAVS9bIJ8EzuaGw0oNAw==',
    dev: true,
    license: 'MIT',
    dependencies: { 'cross-spawn': '^7.0.1' },
    bin: { 'cross-env': 'src/bin/cross-env.js', 'cross-env-shell': 'src/bin/cross-env-shell.js' },
    engines: { node: '>=10.14', npm: '>=6', yarn: '>=1' },
  },
  'node_modules/cross-spawn': {
    version: '7.1.2',
    integrity:
      'sha512-8BPK2r+sKWC8sDinRwLwrFMq2lXTBBwzYYEB9LiCznfMurOi4FOvQflq3XOLGG+HPdMSVpe+k/s96+AtDEOgPg==',
    dev: true,
    license: 'MIT',
    dependencies: { 'path-key': '^3.1.0', 'shebang-command': '^2.0.0', which: '^2.0.1' },
    engines: { node: '>= 8' },
  },
  'node_modules/isexe': {
    version: '2.0.0',
    integrity:
      'sha512-RHxMLp9lnKHGHRng9QFhRCMbYAcVpn69smSGcq3f36xjgVVWThj4qqLbTLlq7Ssj8B+fIQ1EuCEGI2lKsyQeIw==',
    dev: true,
    license: 'ISC',
  },
  'node_modules/path-key': {
    version: '3.1.1',
    integrity:
      'sha512-ojmeN0qd+y0jszEtoY48r0Peq5dwMEkIlCOu6Q5f41lfkswXuKtYrhgoTpLnyIcHm24Uhqx+5Tqm2InSwLhE6Q==',
    dev: true,
    license: 'MIT',
    engines: { node: '>=8' },
  },
  'node_modules/shebang-command': {
    version: '2.0.0',
    integrity:
      'sha512-kHxr2zZpYtdmrN1qDjrrX/Z1rR1kG8Dx+gkpK1G4eXmvXswmcE1hTWBWYUzlraYw1/yZp6YuDY77YtvbN0dmDA==',
    dev: true,
    license: 'MIT',
    dependencies: { 'shebang-regex': '^3.0.0' },
    engines: { node: '>=8' },
  },
  'node_modules/shebang-regex': {
    version: '3.0.0',
    integrity:
      'sha512-7++dFhtcx3353uBaq8DDR4NuxBetBzC7ZQOhmTQInHEd6bSrXdiEyzCvG07Z44UYdLShWUyXt5M/yhz8ekcb1A==',
    dev: true,
    license: 'MIT',
    engines: { node: '>=8' },
  },
  'node_modules/which': {
    version: '2.0.2',
    integrity:
      'sha512-BLI3Tl1TW3Pvl70l3yq3Y64i+awpwXqsGBYWkkqMtnbXgrMD+yj7rhW0kuEDxzJaYXGjEW5ogapKNMEKNMjibA==',
    dev: true,
    license: 'ISC',
    dependencies: { isexe: '^2.0.0' },
    bin: { 'node-which': 'bin/node-which' },
    engines: { node: '>= 8' },
  },
};

const TS_DEV = { '@types/node': '20.14.0', typescript: '5.4.5' };

export const MORE_JS_SHAPES: Record<string, HistoryShape> = {
  // TypeScript project references in an npm workspace: `tsc -b` builds core, then app against
  // core's declarations, which app imports by its package name.
  'ts-project-references': {
    files: {
      'package.json': json({
        name: 'refs',
        version: '1.0.0',
        private: true,
        workspaces: ['packages/*'],
        scripts: { build: 'tsc -b', test: 'tsc -b && node --test packages/app/dist/' },
        devDependencies: TS_DEV,
      }),
      'package-lock.json': npmLock(
        { name: 'refs', version: '1.0.0', workspaces: ['packages/*'], devDependencies: TS_DEV },
        {
          ...TYPESCRIPT_PACKAGES,
          'node_modules/@refs/app': { resolved: 'packages/app', link: true },
          'node_modules/@refs/core': { resolved: 'packages/core', link: true },
          'packages/app': { name: '@refs/app', version: '1.0.0', dependencies: { '@refs/core': '1.0.0' } },
          'packages/core': { name: '@refs/core', version: '1.0.0' },
        },
      ),
      '.gitignore': 'node_modules/\ndist/\n*.tsbuildinfo\n',
      'tsconfig.json': json({ files: [], references: [{ path: 'packages/core' }, { path: 'packages/app' }] }),
      'tsconfig.base.json': json({
        compilerOptions: {
          target: 'ES2022',
          module: 'commonjs',
          strict: true,
          esModuleInterop: true,
          composite: true,
          declaration: true,
          types: ['node'],
        },
      }),
      'packages/core/package.json': json({
        name: '@refs/core',
        version: '1.0.0',
        main: 'dist/index.js',
        types: 'dist/index.d.ts',
      }),
      'packages/core/tsconfig.json': json({
        extends: '../../tsconfig.base.json',
        compilerOptions: { rootDir: 'src', outDir: 'dist' },
        include: ['src'],
      }),
      'packages/core/src/index.ts':
        'export const clamp = (n: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, n));\n',
      'packages/app/package.json': json({
        name: '@refs/app',
        version: '1.0.0',
        dependencies: { '@refs/core': '1.0.0' },
      }),
      'packages/app/tsconfig.json': json({
        extends: '../../tsconfig.base.json',
        compilerOptions: { rootDir: '.', outDir: 'dist' },
        include: ['src', 'test'],
        references: [{ path: '../core' }],
      }),
      'packages/app/src/index.ts':
        "import { clamp } from '@refs/core';\nexport const percent = (n: number): number => clamp(Math.round(n * 100), 0, 100);\n",
      'packages/app/test/percent.test.ts':
        "import test from 'node:test';\nimport assert from 'node:assert';\nimport { percent } from '../src/index';\n\ntest('clamps', () => assert.strictEqual(percent(1.5), 100));\ntest('rounds', () => assert.strictEqual(percent(0.421), 42));\n",
    },
    test: 'packages/app/test/percent.test.ts',
  },

  // jest's layout: tests in __tests__ folders beside the code, run by node's own runner.
  'jest-style-dunder-tests': {
    files: {
      'package.json': json({ name: 'dunder', version: '1.0.0', scripts: { test: 'node --test' } }),
      'package-lock.json': npmLock({ name: 'dunder', version: '1.0.0' }),
      'src/strings/trim.js': "exports.squeeze = (s) => s.replace(/\\s+/g, ' ').trim();\n",
      'src/strings/__tests__/trim.test.js': nodeTest(
        "const { squeeze } = require('../trim.js');\ntest('squeezes', () => assert.strictEqual(squeeze('  a   b '), 'a b'));\n",
      ),
      'src/__mocks__/clock.js': 'module.exports = { now: () => 0 };\n',
    },
    test: 'src/strings/__tests__/trim.test.js',
  },

  // ESM with subpath imports (`#internal/*`, a conditional `#config`), tests importing through them.
  'esm-subpath-imports': {
    files: {
      'package.json': json({
        name: 'subpaths',
        version: '1.0.0',
        type: 'module',
        imports: {
          '#internal/*': './src/internal/*.js',
          '#config': { node: './src/config.node.js', default: './src/config.js' },
        },
        exports: './src/index.js',
        scripts: { test: 'node --test test/' },
      }),
      'package-lock.json': npmLock({ name: 'subpaths', version: '1.0.0' }),
      'src/index.js': "export { mean } from '#internal/stats';\n",
      'src/internal/stats.js': 'export const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;\n',
      'src/config.node.js': "export const runtime = 'node';\n",
      'src/config.js': "export const runtime = 'other';\n",
      'test/stats.test.js': nodeTest(
        "import { mean } from '#internal/stats';\nimport { runtime } from '#config';\ntest('mean', () => assert.strictEqual(mean([1, 2, 3]), 2));\ntest('node condition', () => assert.strictEqual(runtime, 'node'));\n",
        true,
      ),
    },
    test: 'test/stats.test.js',
  },

  // cross-env sets NODE_ENV for the runner, and a pretest lint step runs first.
  'cross-env-pretest': {
    files: {
      'package.json': json({
        name: 'envy',
        version: '1.0.0',
        scripts: { pretest: 'node scripts/lint.js', test: 'cross-env NODE_ENV=test node --test test/' },
        devDependencies: { 'cross-env': '7.0.3' },
      }),
      'package-lock.json': npmLock(
        { name: 'envy', version: '1.0.0', devDependencies: { 'cross-env': '7.0.3' } },
        Object.fromEntries(Object.entries(CROSS_ENV_PACKAGES).map(([k, v]) => [k, { ...v, dev: true }])),
      ),
      '.gitignore': 'node_modules/\n',
      'scripts/lint.js':
        "const fs = require('node:fs');\nfor (const f of fs.readdirSync('src')) if (fs.readFileSync('src/' + f, 'utf8').includes('debugger')) { console.error(f); process.exit(1); }\n",
      'src/mode.js': "exports.mode = () => process.env.NODE_ENV ?? 'development';\n",
      'test/mode.test.js': nodeTest(
        "const { mode } = require('../src/mode.js');\ntest('runs as test', () => assert.strictEqual(mode(), 'test'));\n",
      ),
    },
    test: 'test/mode.test.js',
  },

  // The test script chains npm scripts (lint, then the unit tests), as many repositories' do.
  'npm-run-chain': {
    files: {
      'package.json': json({
        name: 'chain',
        version: '1.0.0',
        scripts: {
          lint: 'node scripts/check.js',
          'test:unit': 'node --test test/unit/',
          test: 'npm run lint && npm run test:unit',
        },
      }),
      'package-lock.json': npmLock({ name: 'chain', version: '1.0.0' }),
      'scripts/check.js': "require('node:fs').accessSync('lib/index.js');\n",
      'lib/index.js': 'exports.even = (n) => n % 2 === 0;\n',
      'test/unit/even.test.js': nodeTest(
        "const { even } = require('../../lib/index.js');\ntest('even', () => { assert.ok(even(2)); assert.ok(!even(3)); });\n",
      ),
    },
    test: 'test/unit/even.test.js',
  },

  // A changelog tool whose tests ask git for the last release tag and the log since.
  'git-describe-tags': {
    files: {
      'package.json': json({ name: 'relnotes', version: '3.1.0', scripts: { test: 'node --test test/' } }),
      'package-lock.json': npmLock({ name: 'relnotes', version: '3.1.0' }),
      'lib/release.js':
        "const { execFileSync } = require('node:child_process');\nconst git = (...a) => execFileSync('git', a, { encoding: 'utf8' }).trim();\nexports.lastTag = () => git('describe', '--tags', '--abbrev=0');\nexports.subjects = () => git('log', '--format=%s').split('\\n');\n",
      'test/release.test.js': nodeTest(
        "const { lastTag, subjects } = require('../lib/release.js');\nconst { version } = require('../package.json');\ntest('the tag is the package version', () => assert.strictEqual(lastTag(), 'v' + version));\ntest('the log', () => assert.deepStrictEqual(subjects(), ['initial']));\n",
      ),
    },
    tags: ['v3.1.0'],
    test: 'test/release.test.js',
  },
};

export const MORE_PY_SHAPES: Record<string, HistoryShape> = {
  // versioneer's way: a vendored _version.py asks `git describe` at import; the test pins the release.
  'py-versioneer-describe': {
    files: {
      'setup.py': 'from setuptools import setup\n\nsetup(name="vers", packages=["vers"])\n',
      'vers/__init__.py': 'from ._version import get_version\n\n__version__ = get_version()\n',
      'vers/_version.py':
        'import os\nimport subprocess\n\n\ndef get_version():\n    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))\n    try:\n        out = subprocess.run(\n            ["git", "describe", "--tags", "--dirty", "--always", "--long"],\n            cwd=root, capture_output=True, text=True, check=True,\n        ).stdout.strip()\n    except (OSError, subprocess.CalledProcessError):\n        return "0+unknown"\n    dirty = out.endswith("-dirty")\n    if dirty:\n        out = out[: -len("-dirty")]\n    tag, distance, sha = out.rsplit("-", 2)\n    version = tag.lstrip("v")\n    if distance != "0" or dirty:\n        version += f"+{distance}.{sha}" + (".dirty" if dirty else "")\n    return version\n',
      'tests/test_version.py':
        'import vers\n\n\ndef test_release_version():\n    assert vers.__version__ == "1.4.2"\n',
    },
    tags: ['v1.4.2'],
    test: 'tests/test_version.py',
  },

  // A conftest.py at the root whose fixtures read data files under tests/fixtures.
  'py-root-conftest-fixtures': {
    files: {
      'conftest.py':
        'import json\nfrom pathlib import Path\n\nimport pytest\n\nFIXTURES = Path(__file__).parent / "tests" / "fixtures"\n\n\n@pytest.fixture\ndef order():\n    return json.loads((FIXTURES / "order.json").read_text())\n',
      'tests/fixtures/order.json': '{"items": [{"price": 3, "qty": 2}, {"price": 5, "qty": 1}]}\n',
      'shop/__init__.py': '',
      'shop/total.py': 'def total(order):\n    return sum(i["price"] * i["qty"] for i in order["items"])\n',
      'tests/test_total.py':
        'from shop.total import total\n\n\ndef test_total(order):\n    assert total(order) == 11\n',
    },
    test: 'tests/test_total.py',
  },

  // hatchling as the build backend, a src/ layout, pytest configured in pyproject, nothing to install.
  'py-hatch-src': {
    files: {
      'pyproject.toml':
        '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n\n[project]\nname = "hx"\nversion = "0.3.0"\nrequires-python = ">=3.9"\n\n[tool.hatch.build.targets.wheel]\npackages = ["src/hx"]\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
      'src/hx/__init__.py': 'def hexed(n):\n    return format(n, "x")\n',
      'tests/test_hx.py': 'from hx import hexed\n\n\ndef test_hexed():\n    assert hexed(255) == "ff"\n',
    },
    test: 'tests/test_hx.py',
  },

  // flit's flat module at the root (docstring and __version__ as flit wants), its test at the root too.
  'py-flit-root-tests': {
    files: {
      'pyproject.toml':
        '[build-system]\nrequires = ["flit_core >=3.2,<4"]\nbuild-backend = "flit_core.buildapi"\n\n[project]\nname = "flatmod"\ndynamic = ["version", "description"]\n',
      'flatmod.py':
        '"""Reverse words."""\n\n__version__ = "1.0"\n\n\ndef rev(s):\n    return " ".join(reversed(s.split()))\n',
      'test_flatmod.py': 'from flatmod import rev\n\n\ndef test_rev():\n    assert rev("a b") == "b a"\n',
    },
    test: 'test_flatmod.py',
  },

  // A PEP 420 namespace package (no __init__.py) under src/.
  'py-namespace-src': {
    files: {
      'setup.cfg':
        '[metadata]\nname = acme.textkit\n\n[options]\npackage_dir =\n    = src\npackages = find_namespace:\n\n[options.packages.find]\nwhere = src\n',
      'setup.py': 'from setuptools import setup\n\nsetup()\n',
      'src/acme/textkit/words.py': 'def words(s):\n    return s.split()\n',
      'tests/test_words.py':
        'from acme.textkit.words import words\n\n\ndef test_words():\n    assert words("a b") == ["a", "b"]\n',
    },
    test: 'tests/test_words.py',
  },

  // Doctests collected with --doctest-modules beside ordinary tests.
  'py-doctest-modules': {
    files: {
      'pytest.ini': '[pytest]\naddopts = --doctest-modules\ntestpaths = romans tests\n',
      'romans/__init__.py':
        'def to_roman(n):\n    """\n    >>> to_roman(14)\n    \'XIV\'\n    """\n    out = ""\n    for v, s in [(10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]:\n        while n >= v:\n            out += s\n            n -= v\n    return out\n',
      'tests/test_romans.py':
        'from romans import to_roman\n\n\ndef test_three():\n    assert to_roman(3) == "III"\n',
    },
    test: 'tests/test_romans.py',
  },

  // unittest's load_tests protocol: the tests package gathers modules named check_*.py.
  'py-unittest-load-tests': {
    files: {
      'parse/__init__.py': 'def pairs(s):\n    return dict(p.split("=") for p in s.split(";") if p)\n',
      'tests/__init__.py':
        'import os\n\n\ndef load_tests(loader, standard_tests, pattern):\n    here = os.path.dirname(__file__)\n    standard_tests.addTests(loader.discover(here, pattern="check_*.py", top_level_dir=os.path.dirname(here)))\n    return standard_tests\n',
      'tests/check_pairs.py':
        'import unittest\n\nfrom parse import pairs\n\n\nclass PairsTest(unittest.TestCase):\n    def test_pairs(self):\n        self.assertEqual(pairs("a=1;b=2"), {"a": "1", "b": "2"})\n',
      'README.md': '# parse\n\n    python -m unittest\n',
    },
    test: 'tests/check_pairs.py',
  },
};
