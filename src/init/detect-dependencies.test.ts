import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detectDependencies } from './detect-dependencies.js';
import { detectProject } from './detect-project.js';

const root = mkdtempSync(path.join(tmpdir(), 'ag-init-deps-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A PATH with only the named programs (scripts that do nothing). */
function bin(...programs: string[]): string {
  const dir = mkdtempSync(path.join(root, 'bin-'));
  for (const p of programs) writeFileSync(path.join(dir, p), '#!/bin/sh\n', { mode: 0o755 });
  return dir;
}

function repo(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(root, 'repo-'));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

const detect = (dir: string, env: Record<string, string | undefined>) =>
  detectDependencies(dir, detectProject(dir), env);

const PKG = (extra: object = {}) =>
  JSON.stringify({ name: 'x', scripts: { test: 'node --test' }, dependencies: { a: '1' }, ...extra });

describe('init: dependencies', () => {
  it('pnpm pinned in packageManager: corepack runs the install and the tests; no corepack, a note', () => {
    const dir = repo({ 'package.json': PKG({ packageManager: 'pnpm@9.15.9' }), 'pnpm-lock.yaml': '' });
    const found = detect(dir, {
      PATH: bin('corepack', 'node'),
      NODE_EXTRA_CA_CERTS: '/ca.pem',
      SECRET_TOKEN: 'x',
    });
    expect(found.entries).toEqual([
      { manager: 'pnpm', lockfile: 'pnpm-lock.yaml', mirror: 'https://registry.npmjs.org/' },
    ]);
    expect(found.test_command).toEqual(['corepack', 'pnpm', 'test']);
    expect(found.environment).toEqual(['NODE_EXTRA_CA_CERTS']);
    expect(found.notes).toEqual([]);
    const none = detect(dir, { PATH: bin('node') });
    expect(none.test_command).toEqual(['pnpm', 'test']);
    expect(none.notes).toEqual([
      'pnpm is not installed: run `corepack enable` (corepack ships with Node.js), or `npm install -g pnpm`',
      "the test command's program 'pnpm' is not on PATH: install it, or edit test_command",
    ]);
  });

  it('yarn on PATH and npm: their lockfiles, their test commands as found', () => {
    const yarn = detect(repo({ 'package.json': PKG(), 'yarn.lock': '' }), { PATH: bin('yarn', 'corepack') });
    expect(yarn.entries).toMatchObject([{ manager: 'yarn', lockfile: 'yarn.lock' }]);
    expect(yarn.test_command).toEqual(['yarn', 'test']);
    const npm = detect(repo({ 'package.json': PKG(), 'package-lock.json': '{}' }), { PATH: bin('npm') });
    expect(npm.entries).toMatchObject([{ manager: 'npm', lockfile: 'package-lock.json' }]);
    expect(npm.test_command).toEqual(['npm', 'test']);
  });

  it('dependencies without a lockfile: a note, no entry', () => {
    const none = detect(repo({ 'package.json': PKG() }), { PATH: bin('npm') });
    expect(none.entries).toEqual([]);
    expect(none.notes[0]).toMatch(/no lockfile: setup installs from a lockfile only/);
  });

  it('a bun lockfile: a bun entry from the registry; without bun on PATH, a note saying how to get it', () => {
    for (const lockfile of ['bun.lock', 'bun.lockb']) {
      const dir = repo({ 'package.json': PKG(), [lockfile]: '' });
      const found = detect(dir, { PATH: bin('bun') });
      expect(found.entries).toEqual([{ manager: 'bun', lockfile, mirror: 'https://registry.npmjs.org/' }]);
      expect(found.notes).toEqual([]);
      const missing = detect(dir, { PATH: bin('npm') });
      expect(missing.entries).toEqual([{ manager: 'bun', lockfile, mirror: 'https://registry.npmjs.org/' }]);
      expect(missing.notes[0]).toMatch(/^bun is not installed: run `npm install -g bun`/);
    }
  });

  it('Python: requirements files into .venv, its python runs the tests, PYTHONPATH=src for a src/ layout', () => {
    const dir = repo({
      'pyproject.toml': '[tool.pytest.ini_options]\n',
      'requirements.txt': 'pytest==8.0\n',
      'requirements-dev.txt': 'ruff\n',
      'src/adder/__init__.py': '',
      'tests/test_add.py': '',
    });
    const found = detect(dir, { PATH: bin('python3') });
    // The base list first: the others build on it in the same venv.
    expect(found.entries).toEqual([
      {
        manager: 'pip',
        requirements: 'requirements.txt',
        target: '.venv',
        mirror: 'https://pypi.org/simple/',
      },
      {
        manager: 'pip',
        requirements: 'requirements-dev.txt',
        target: '.venv',
        mirror: 'https://pypi.org/simple/',
      },
    ]);
    expect(found.test_command).toEqual(['env', 'PYTHONPATH=src', '.venv/bin/python', '-m', 'pytest']);
    expect(found.notes).toEqual([]);
  });

  it('Python: PYTHONPATH=src for every src/ layout (a package, a PEP 420 namespace package, a single module), not for src/ with no Python', () => {
    const layouts: Record<string, Record<string, string>> = {
      package: { 'src/adder/__init__.py': '' },
      namespace: { 'src/acme/textkit/words.py': '' },
      module: { 'src/adder.py': '' },
      none: { 'src/data/words.txt': '' },
    };
    const found = Object.entries(layouts).map(([name, files]) => [
      name,
      detect(repo({ 'pytest.ini': '[pytest]\n', 'tests/test_a.py': '', ...files }), { PATH: bin('python3') })
        .test_command?.[0],
    ]);
    expect(found).toEqual([
      ['package', 'env'],
      ['namespace', 'env'],
      ['module', 'env'],
      ['none', 'python3'],
    ]);
  });

  it("Python: a Pipfile's packages other than pytest are named, with how to install them", () => {
    const dir = repo({
      Pipfile:
        '[[source]]\nurl = "https://pypi.org/simple"\n\n[packages]\nrequests = "*"\n\n[dev-packages]\npytest = "*"\n"flake8" = "*"\n',
      'tests/test_a.py': 'def test_a():\n    pass\n',
    });
    expect(detect(dir, { PATH: bin('python3') }).notes).toContainEqual(
      expect.stringMatching(
        /^Pipfile: setup does not install a Pipfile's packages \(flake8, requests\); export them with `pipenv requirements --dev > requirements\.txt`/,
      ),
    );
    const onlyPytest = repo({
      Pipfile: '[dev-packages]\npytest = "*"\n',
      'tests/test_a.py': 'def test_a():\n    pass\n',
    });
    expect(detect(onlyPytest, { PATH: bin('python3') }).notes.filter((n) => n.startsWith('Pipfile'))).toEqual(
      [],
    );
  });

  it("Python: requirements files by every usual name (test-requirements.txt, requirements_test.txt, requirements/), not the docs' or linters'", () => {
    const dir = repo({
      'setup.py': '',
      'tox.ini': '[pytest]\n',
      'test-requirements.txt': 'pytest\n',
      'requirements_test.txt': 'mock\n',
      'docs-requirements.txt': 'sphinx\n',
      'requirements-lint.txt': 'ruff\n',
      'requirements/base.txt': 'six\n',
      'requirements/docs.txt': 'sphinx\n',
      'requirements/test.txt': 'pytest\n',
    });
    const found = detect(dir, { PATH: bin('python3') });
    expect(found.entries.map((e) => e.requirements)).toEqual([
      'requirements_test.txt',
      'test-requirements.txt',
      'requirements/base.txt',
      'requirements/test.txt',
    ]);
  });

  it('Python with uv.lock and no requirements: how to export one; a project venv is used with its base shown', () => {
    const dir = repo({
      'pyproject.toml': '[tool.pytest.ini_options]\n',
      'uv.lock': '',
      'tests/test_a.py': '',
    });
    const base = path.join(root, 'home/.pyenv/versions/3.12.4');
    mkdirSync(path.join(base, 'bin'), { recursive: true });
    mkdirSync(path.join(dir, '.venv/bin'), { recursive: true });
    writeFileSync(path.join(dir, '.venv/pyvenv.cfg'), `home = ${base}/bin\n`);
    writeFileSync(path.join(dir, '.venv/bin/python'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    symlinkSync('python', path.join(dir, '.venv/bin/python3'));
    const found = detect(dir, { PATH: bin('python3'), HOME: path.join(root, 'home') });
    expect(found.entries).toEqual([]);
    expect(found.notes).toEqual([]);
    expect(found.test_command).toEqual(['.venv/bin/python', '-m', 'pytest']);
    expect(found.toolchains).toEqual([base]);
  });

  it("pyproject-only dependencies (uv, poetry, PEP 621): a pip entry over the pyproject at the lockfile's versions, with the test groups, no PYTHONPATH", () => {
    const uv = repo({
      'pyproject.toml':
        '[project]\nname = "a"\ndependencies = [\n  "tinywheel>=1",\n]\n\n[project.optional-dependencies]\ndocs = ["x"]\ntest = ["pytest"]\n\n[dependency-groups]\ndev = ["pytest"]\n',
      'uv.lock': 'version = 1\n',
      'src/a/__init__.py': '',
      'tests/test_a.py': '',
    });
    const found = detect(uv, { PATH: bin('python3'), PIP_INDEX_URL: 'http://127.0.0.1:9/simple/' });
    expect(found.entries).toEqual([
      {
        manager: 'pip',
        pyproject: 'pyproject.toml',
        lockfile: 'uv.lock',
        groups: ['dev', 'test'],
        target: '.venv',
        mirror: 'http://127.0.0.1:9/simple/',
      },
    ]);
    expect(found.test_command).toEqual(['.venv/bin/python', '-m', 'pytest']);
    expect(found.notes).toEqual(['uv.lock: setup installs its locked versions with pip into .venv']);

    const poetry = repo({
      'pyproject.toml':
        '[tool.poetry]\nname = "a"\n\n[tool.poetry.dependencies]\npython = "^3.9"\nrequests = "^2"\n\n[tool.poetry.group.test.dependencies]\npytest = "*"\n\n[tool.pytest.ini_options]\n',
      'poetry.lock': '',
    });
    expect(
      detect(poetry, { PATH: bin('python3'), PIP_INDEX_URL: 'https://u:p@mirror.example/' }),
    ).toMatchObject({
      entries: [
        {
          pyproject: 'pyproject.toml',
          lockfile: 'poetry.lock',
          groups: ['test'],
          mirror: 'https://pypi.org/simple/',
        },
      ],
      notes: [
        expect.stringMatching(/^PIP_INDEX_URL is not a plain/),
        expect.stringMatching(/^poetry\.lock: /),
      ],
    });

    // Only python pinned, and uv's legacy dev list: the dev group alone is what there is to install.
    const legacy = repo({
      'pyproject.toml':
        '[tool.poetry.dependencies]\npython = "^3.9"\n\n[tool.uv]\ndev-dependencies = ["pytest"]\n[tool.pytest.ini_options]\n',
    });
    expect(detect(legacy, { PATH: bin('python3') })).toMatchObject({
      entries: [{ groups: ['dev'] }],
      notes: [],
    });
    const noRunner = repo({
      'pyproject.toml': '[project]\ndependencies = ["requests"]\n[tool.pytest.ini_options]\n',
    });
    expect(detect(noRunner, { PATH: bin('python3') }).notes).toEqual([
      'pytest is not among the dependencies pyproject.toml declares, so .venv will not have it: add it to a dev or test group',
    ]);
    const nothing = repo({
      'pyproject.toml': '[project]\nname = "a"\ndependencies = []\n[tool.pytest.ini_options]\n',
      'uv.lock': '',
    });
    const none = detect(nothing, { PATH: bin('python3') });
    expect(none.entries).toEqual([]);
    expect(none.notes[0]).toMatch(
      /^uv\.lock: pyproject\.toml declares no dependencies for setup to install; export one/,
    );
    // poetry: Debian's 1.3.2 has no export; the fix named first is the one it can do (an in-project venv).
    const poetryNothing = repo({
      'pyproject.toml':
        '[tool.poetry]\nname = "a"\n\n[tool.poetry.dependencies]\npython = "^3.9"\n\n[tool.pytest.ini_options]\n',
      'poetry.lock': '',
    });
    expect(detect(poetryNothing, { PATH: bin('python3') }).notes[0]).toMatch(
      /^poetry\.lock: .*`poetry config virtualenvs\.in-project true && poetry env remove --all; poetry install` \(this works with Debian's poetry 1\.3\.2.*poetry self add poetry-plugin-export/,
    );
    // Poetry's own sources are not read by pip: said, with the mirror setup uses.
    const sourced = repo({
      'pyproject.toml':
        '[tool.poetry.dependencies]\npython = "^3.9"\nrequests = "^2"\n\n[[tool.poetry.source]]\nname = "corp"\nurl = "https://pypi.corp.example/simple/"\n\n[tool.pytest.ini_options]\n',
      'poetry.lock': '',
    });
    expect(detect(sourced, { PATH: bin('python3') }).notes).toContainEqual(
      expect.stringMatching(
        /names \[\[tool\.poetry\.source\]\] indexes, which pip does not read: setup installs from https:\/\/pypi\.org\/simple\//,
      ),
    );
  });
});
