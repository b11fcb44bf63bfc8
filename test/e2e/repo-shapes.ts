/*
 * Repositories shaped like popular public ones, for issue 42's held-out-style runs: each goes
 * through `agentguard init` and `run --agent mock-noop` with nothing edited. The JavaScript ones
 * install from the npm registry (lockfiles as npm 10 and pnpm 9.15.9 write them); the Python ones
 * need only Debian's python3 and its pytest. Each names a test file an edit of which is tampering.
 * More shapes, and those whose tests read the repository's history, are in repo-shapes-more.ts.
 */

export type Shape = { files: Record<string, string>; test: string };

export const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

const LEFT_PAD = {
  version: '1.3.0',
  integrity:
    'sha512-XI5MPzVNApjAyhQzphX8BkmKsKUxD4LdyK24iZeQGinBN9yTQT3bFlCBy/aVx2HrNcqQGsdot8ghrjyrvMCoEA==',
  license: 'WTFPL',
};

export const nodeTest = (body: string, esm = false) =>
  esm
    ? `import test from 'node:test';\nimport assert from 'node:assert';\n${body}`
    : `const test = require('node:test');\nconst assert = require('node:assert');\n${body}`;

/** A package-lock.json (v3) for a root package and the given node_modules entries. */
export const npmLock = (root: Record<string, unknown>, packages: Record<string, unknown> = {}) =>
  json({
    name: root.name,
    version: root.version,
    lockfileVersion: 3,
    requires: true,
    packages: { '': root, ...packages },
  });

/** typescript 5.4.5 and @types/node 20.14.0 as npm 10 locks them. */
export const TYPESCRIPT_PACKAGES = {
  'node_modules/@types/node': {
    version: '20.14.0',
    integrity:
      'sha512-5cHBxFGJx6L4s56Bubp4fglrEpmyJypsqI6RgzMfBHWUJQGWAAi8cWcgetEbZXHYXo9C2Fa4EEds/uSyS4cxmA==',
    dev: true,
    license: 'MIT',
    dependencies: { 'undici-types': '~5.26.4' },
  },
  'node_modules/typescript': {
    version: '5.4.5',
    integrity:
      'sha512-vcI4UpRgg81oIRUFwR0WSIHKt11nJ7SAVlYNIu+QpqeyXP+gpQJy/Z4+F0aGxSE4MqwjyXvW/TzgkLAx2AGHwQ==',
    dev: true,
    license: 'Apache-2.0',
    bin: { tsc: 'bin/tsc', tsserver: 'bin/tsserver' },
    engines: { node: '>=14.17' },
  },
  'node_modules/undici-types': {
    version: '5.26.5',
    integrity:
      'sha512-JlCMO+ehdEIKqlFxk6IfVoAUVmgz7cU7zD/h9XZ0qzeosSHmUJVOzSQvvYSYWXkFXC+IfLKSIffhv0sVZup6pA==',
    dev: true,
    license: 'MIT',
  },
};

export const JS_SHAPES: Record<string, Shape> = {
  // The root runs every workspace's own test (`npm test --workspaces`); one workspace uses the other.
  'npm-workspaces': {
    files: {
      'package.json': json({
        name: 'npmws',
        version: '1.0.0',
        private: true,
        workspaces: ['packages/*'],
        scripts: { test: 'npm test --workspaces' },
      }),
      'package-lock.json': npmLock(
        { name: 'npmws', version: '1.0.0', workspaces: ['packages/*'] },
        {
          'node_modules/@npmws/app': { resolved: 'packages/app', link: true },
          'node_modules/@npmws/pad': { resolved: 'packages/pad', link: true },
          'node_modules/left-pad': LEFT_PAD,
          'packages/app': { name: '@npmws/app', version: '1.0.0', dependencies: { '@npmws/pad': '1.0.0' } },
          'packages/pad': { name: '@npmws/pad', version: '1.0.0', dependencies: { 'left-pad': '1.3.0' } },
        },
      ),
      '.gitignore': 'node_modules/\n',
      'packages/pad/package.json': json({
        name: '@npmws/pad',
        version: '1.0.0',
        main: 'index.js',
        scripts: { test: 'node --test' },
        dependencies: { 'left-pad': '1.3.0' },
      }),
      'packages/pad/index.js':
        "const leftPad = require('left-pad');\nexports.pad3 = (s) => leftPad(s, 3, '0');\n",
      'packages/pad/test/pad.test.js': nodeTest(
        "const { pad3 } = require('..');\ntest('pads', () => assert.strictEqual(pad3('7'), '007'));\n",
      ),
      'packages/app/package.json': json({
        name: '@npmws/app',
        version: '1.0.0',
        scripts: { test: 'node --test' },
        dependencies: { '@npmws/pad': '1.0.0' },
      }),
      'packages/app/test/app.test.js': nodeTest(
        "const { pad3 } = require('@npmws/pad');\ntest('uses the workspace', () => assert.strictEqual(pad3('42'), '042'));\n",
      ),
    },
    test: 'packages/app/test/app.test.js',
  },

  // pnpm catalogs in pnpm-workspace.yaml, and an .npmrc that hoists everything into one node_modules.
  'pnpm-catalog-hoisted': {
    files: {
      'package.json': json({
        name: 'pnpmcat',
        version: '1.0.0',
        private: true,
        packageManager: 'pnpm@9.15.9',
        scripts: { test: 'pnpm -r --workspace-concurrency=1 test' },
      }),
      'pnpm-workspace.yaml': "packages:\n  - 'packages/*'\n\ncatalog:\n  left-pad: 1.3.0\n",
      '.npmrc': 'shamefully-hoist=true\nnode-linker=hoisted\n',
      'pnpm-lock.yaml': `lockfileVersion: '9.0'\n\nsettings:\n  autoInstallPeers: true\n  excludeLinksFromLockfile: false\n\ncatalogs:\n  default:\n    left-pad:\n      specifier: 1.3.0\n      version: 1.3.0\n\nimporters:\n\n  .: {}\n\n  packages/pad:\n    dependencies:\n      left-pad:\n        specifier: 'catalog:'\n        version: 1.3.0\n\npackages:\n\n  left-pad@1.3.0:\n    resolution: {integrity: ${LEFT_PAD.integrity}}\n\nsnapshots:\n\n  left-pad@1.3.0: {}\n`,
      '.gitignore': 'node_modules/\n',
      'packages/pad/package.json': json({
        name: '@cat/pad',
        version: '1.0.0',
        scripts: { test: 'node --test' },
        dependencies: { 'left-pad': 'catalog:' },
      }),
      'packages/pad/test/pad.test.js': nodeTest(
        "const leftPad = require('left-pad');\nconst fs = require('node:fs');\nconst path = require('node:path');\ntest('hoisted to the root', () => assert.ok(fs.existsSync(path.join(__dirname, '../../../node_modules/left-pad'))));\ntest('pads', () => assert.strictEqual(leftPad('1', 2, '0'), '01'));\n",
      ),
    },
    test: 'packages/pad/test/pad.test.js',
  },

  // TypeScript compiled first by the test script, then node's runner over the output.
  'ts-tsc-node-test': {
    files: {
      'package.json': json({
        name: 'tsrepo',
        version: '1.0.0',
        private: true,
        scripts: { test: 'tsc -p tsconfig.json && node --test dist/test/' },
        devDependencies: { typescript: '5.4.5', '@types/node': '20.14.0' },
      }),
      'package-lock.json': npmLock(
        {
          name: 'tsrepo',
          version: '1.0.0',
          devDependencies: { '@types/node': '20.14.0', typescript: '5.4.5' },
        },
        TYPESCRIPT_PACKAGES,
      ),
      '.gitignore': 'node_modules/\ndist/\n',
      'tsconfig.json': json({
        compilerOptions: {
          target: 'ES2022',
          module: 'commonjs',
          strict: true,
          esModuleInterop: true,
          outDir: 'dist',
          rootDir: '.',
          types: ['node'],
        },
        include: ['src', 'test'],
      }),
      'src/slug.ts':
        "export function slug(s: string): string {\n  return s.toLowerCase().trim().replace(/[^a-z0-9]+/g, '-');\n}\n",
      'test/slug.test.ts':
        "import test from 'node:test';\nimport assert from 'node:assert';\nimport { slug } from '../src/slug';\n\ntest('slugs', () => assert.strictEqual(slug(' Hello World '), 'hello-world'));\n",
    },
    test: 'test/slug.test.ts',
  },

  // ESM only: "type": "module", an exports map, and tests importing the package by its own name.
  'esm-exports': {
    files: {
      'package.json': json({
        name: 'esm-pkg',
        version: '2.0.0',
        type: 'module',
        exports: { '.': './src/index.js', './util': './src/util.js' },
        files: ['src'],
        scripts: { test: 'node --test' },
      }),
      'package-lock.json': npmLock({ name: 'esm-pkg', version: '2.0.0' }),
      'src/index.js': "export { twice } from './util.js';\nexport const name = 'esm-pkg';\n",
      'src/util.js': 'export const twice = (n) => n * 2;\n',
      'test/index.test.js': nodeTest(
        "import { twice, name } from 'esm-pkg';\nimport { twice as t2 } from 'esm-pkg/util';\ntest('self-reference', () => { assert.strictEqual(twice(2), 4); assert.strictEqual(t2(3), 6); assert.strictEqual(name, 'esm-pkg'); });\n",
        true,
      ),
    },
    test: 'test/index.test.js',
  },

  // The Node version pinned three ways, none of which this machine's node matches exactly.
  'engines-nvmrc': {
    files: {
      'package.json': json({
        name: 'pinned-node',
        version: '1.0.0',
        engines: { node: '>=18' },
        scripts: { test: 'node --test test/' },
        dependencies: { 'left-pad': '1.3.0' },
      }),
      'package-lock.json': npmLock(
        {
          name: 'pinned-node',
          version: '1.0.0',
          dependencies: { 'left-pad': '1.3.0' },
          engines: { node: '>=18' },
        },
        { 'node_modules/left-pad': LEFT_PAD },
      ),
      '.nvmrc': 'lts/iron\n',
      '.node-version': '20.11.0\n',
      '.gitignore': 'node_modules/\n',
      'index.js': "module.exports = (s) => require('left-pad')(s, 4, ' ');\n",
      'test/index.test.js': nodeTest(
        "const pad = require('..');\ntest('pads', () => assert.strictEqual(pad('ab'), '  ab'));\n",
      ),
    },
    test: 'test/index.test.js',
  },

  // Tests read fixtures next to them (__dirname) and write a snapshot when none is committed.
  'fixtures-snapshots': {
    files: {
      'package.json': json({ name: 'render', version: '1.0.0', scripts: { test: 'node --test test/' } }),
      'package-lock.json': npmLock({ name: 'render', version: '1.0.0' }),
      'index.js': "exports.render = (o) => Object.entries(o).map(([k, v]) => k + '=' + v).join('\\n');\n",
      'test/fixtures/input.json': '{"a": 1, "b": "two"}\n',
      'test/__snapshots__/render.snap': 'a=1\nb=two\n',
      'test/render.test.js': nodeTest(
        "const fs = require('node:fs');\nconst path = require('node:path');\nconst { render } = require('..');\nconst input = JSON.parse(fs.readFileSync(path.join(__dirname, 'fixtures/input.json'), 'utf8'));\nfunction snapshot(name, value) {\n  const file = path.join(__dirname, '__snapshots__', name + '.snap');\n  if (!fs.existsSync(file)) fs.writeFileSync(file, value);\n  assert.strictEqual(value, fs.readFileSync(file, 'utf8'));\n}\ntest('renders', () => snapshot('render', render(input) + '\\n'));\ntest('renders empty', () => snapshot('empty', render({}) + '\\n'));\n",
      ),
    },
    test: 'test/render.test.js',
  },

  // husky's `prepare` and a `postinstall` that generates a file the tests need.
  'husky-postinstall': {
    files: {
      'package.json': json({
        name: 'hooked',
        version: '1.0.0',
        private: true,
        scripts: { prepare: 'husky', postinstall: 'node scripts/generate.js', test: 'node --test test/' },
        devDependencies: { husky: '9.1.7' },
      }),
      'package-lock.json': npmLock(
        { name: 'hooked', version: '1.0.0', hasInstallScript: true, devDependencies: { husky: '9.1.7' } },
        {
          'node_modules/husky': {
            version: '9.1.7',
            integrity:
              'sha512-5gs5ytaNjBrh5Ow3zrvdUUY+0VxIuWVL4i9irt6friV+BqdCfmV11CQTWMiBYWHbXhco+J1kHfTOUkePhCDvMA==',
            dev: true,
            license: 'MIT',
            bin: { husky: 'bin.js' },
            engines: { node: '>=18' },
          },
        },
      ),
      '.gitignore': 'node_modules/\nsrc/generated.js\n',
      '.husky/pre-commit': 'npm test\n',
      'scripts/generate.js':
        "const fs = require('node:fs');\nconst path = require('node:path');\nfs.writeFileSync(path.join(__dirname, '../src/generated.js'), 'module.exports = { answer: 42 };\\n');\n",
      'src/index.js': "module.exports = () => require('./generated.js').answer;\n",
      'test/index.test.js': nodeTest(
        "const answer = require('../src/index.js');\ntest('generated at install', () => assert.strictEqual(answer(), 42));\n",
      ),
    },
    test: 'test/index.test.js',
  },

  // A Makefile whose test target calls npm.
  'make-npm-test': {
    files: {
      Makefile: '.PHONY: test build\n\nbuild:\n\tnode build.js\n\ntest:\n\tnpm test\n',
      'package.json': json({ name: 'mk', version: '1.0.0', scripts: { test: 'node --test test/' } }),
      'package-lock.json': npmLock({ name: 'mk', version: '1.0.0' }),
      'build.js': "console.log('built');\n",
      'lib/sum.js': 'module.exports = (a, b) => a + b;\n',
      'test/sum.test.js': nodeTest(
        "const sum = require('../lib/sum.js');\ntest('sums', () => assert.strictEqual(sum(2, 3), 5));\n",
      ),
    },
    test: 'test/sum.test.js',
  },
};

export const PY_SHAPES: Record<string, Shape> = {
  // A module at the top and pytest-style tests in tests/, no packaging and no pytest config at all.
  'py-flat-bare': {
    files: {
      'calc.py': 'def add(a, b):\n    return a + b\n',
      'tests/test_calc.py': 'from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n',
      'README.md': '# calc\n\nRun the tests with `pytest`.\n',
    },
    test: 'tests/test_calc.py',
  },

  // src/ layout packaged by setup.cfg, tests run by tox (`commands = pytest`), tox not installed.
  'py-setupcfg-tox': {
    files: {
      'setup.py': 'from setuptools import setup\n\nsetup()\n',
      'setup.cfg':
        '[metadata]\nname = shout\nversion = 1.0\n\n[options]\npackage_dir =\n    = src\npackages = find:\n\n[options.packages.find]\nwhere = src\n\n[options.extras_require]\ntesting =\n    pytest\n',
      'tox.ini': '[tox]\nenvlist = py3\n\n[testenv]\ndeps = pytest\ncommands = pytest {posargs}\n',
      'src/shout/__init__.py': 'def shout(s):\n    return s.upper() + "!"\n',
      'tests/test_shout.py':
        'from shout import shout\n\n\ndef test_shout():\n    assert shout("hi") == "HI!"\n',
    },
    test: 'tests/test_shout.py',
  },

  // nox runs the tests (a session installing pytest), nox not installed.
  'py-noxfile': {
    files: {
      'noxfile.py':
        'import nox\n\n\n@nox.session\ndef tests(session):\n    session.install("pytest")\n    session.run("pytest", *session.posargs)\n',
      'pyproject.toml':
        '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n[project]\nname = "greet"\nversion = "0.1"\n',
      'greet.py': 'def greet(n):\n    return f"hello {n}"\n',
      'tests/test_greet.py':
        'from greet import greet\n\n\ndef test_greet():\n    assert greet("x") == "hello x"\n',
    },
    test: 'tests/test_greet.py',
  },

  // pytest.ini with testpaths and --strict-markers, markers declared.
  'py-pytest-ini-strict': {
    files: {
      'pytest.ini':
        '[pytest]\ntestpaths = tests\naddopts = --strict-markers -ra\nmarkers =\n    slow: takes a while\n',
      'mathx/__init__.py': 'def sq(x):\n    return x * x\n',
      'tests/test_sq.py':
        'import pytest\n\nfrom mathx import sq\n\n\n@pytest.mark.slow\ndef test_sq():\n    assert sq(3) == 9\n',
      'scripts/test_not_collected.py': 'def test_outside_testpaths():\n    assert False\n',
    },
    test: 'tests/test_sq.py',
  },

  // unittest only: TestCase classes, `python -m unittest discover` in the README.
  'py-unittest-only': {
    files: {
      'wordcount/__init__.py': 'def count(s):\n    return len(s.split())\n',
      'tests/__init__.py': '',
      'tests/test_count.py':
        'import unittest\n\nfrom wordcount import count\n\n\nclass CountTest(unittest.TestCase):\n    def test_count(self):\n        self.assertEqual(count("a b c"), 3)\n\n\nif __name__ == "__main__":\n    unittest.main()\n',
      'README.md': '# wordcount\n\n    python -m unittest discover\n',
    },
    test: 'tests/test_count.py',
  },

  // .python-version names the interpreter (pyenv's way); pytest configured in pyproject.
  'py-python-version': {
    files: {
      '.python-version': '3.11\n',
      'pyproject.toml':
        '[project]\nname = "pv"\nversion = "1"\nrequires-python = ">=3.10"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n',
      'pv/__init__.py': 'import sys\n\n\ndef minor():\n    return sys.version_info[:2]\n',
      'tests/test_pv.py': 'from pv import minor\n\n\ndef test_minor():\n    assert minor() >= (3, 10)\n',
    },
    test: 'tests/test_pv.py',
  },
};
