import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detectProject, makeRunsPythonTests } from './detect-project.js';

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function repo(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'ag-detect-'));
  made.push(dir);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

describe('detectProject', () => {
  it('names the file that configures pytest: tox.ini [pytest], setup.cfg [tool:pytest], pyproject [tool.pytest]', () => {
    const tox = repo({
      'setup.py': '',
      'tox.ini': '[tox]\nenvlist = py311\n\n[pytest]\ntestpaths = tests\n',
    });
    expect(detectProject(tox).test_source).toBe('tox.ini');
    const cfg = repo({ 'setup.py': '', 'setup.cfg': '[tool:pytest]\naddopts = -ra\n' });
    expect(detectProject(cfg).test_source).toBe('setup.cfg');
    const py = repo({
      'pyproject.toml': '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
      'conftest.py': '',
    });
    expect(detectProject(py).test_source).toBe('pyproject.toml');
  });
});

describe('detectProject: pytest named elsewhere than its own config', () => {
  const test = (files: Record<string, string>) => detectProject(repo(files));
  it("tox's or nox's test command, setup.cfg's or a requirements list's test dependencies, a Pipfile: pytest, named by that file", () => {
    const tests = { 'tests/test_a.py': 'import unittest\n' };
    const cases: [Record<string, string>, string][] = [
      [
        { 'tox.ini': '[tox]\nenvlist = py3\n\n[testenv]\ndeps = pytest\ncommands = pytest {posargs}\n' },
        'tox.ini [testenv] commands',
      ],
      [{ 'tox.ini': '[testenv:py3]\ncommands =\n    python -m pytest -q\n' }, 'tox.ini [testenv] commands'],
      [
        { 'noxfile.py': 'import nox\n@nox.session\ndef tests(session):\n    session.run("pytest")\n' },
        'noxfile.py',
      ],
      [{ 'setup.py': '', 'setup.cfg': '[options.extras_require]\ntesting =\n    pytest>=7\n' }, 'setup.cfg'],
      [{ Pipfile: '[dev-packages]\npytest = "*"\n' }, 'Pipfile'],
      [{ 'setup.py': '', 'requirements-dev.txt': 'black\npytest==8.0\n' }, 'requirements-dev.txt'],
    ];
    for (const [files, source] of cases)
      expect(test({ ...tests, ...files }), source).toMatchObject({
        test_command: ['python3', '-m', 'pytest'],
        test_source: source,
      });
  });
  it("test modules written for pytest (bare test functions, or importing it) with no packaging at all: pytest; unittest's TestCases: unittest", () => {
    expect(
      test({
        'calc.py': '',
        'tests/test_calc.py': 'from calc import add\n\ndef test_add():\n    assert add(1, 1) == 2\n',
      }),
    ).toMatchObject({
      test_command: ['python3', '-m', 'pytest'],
      test_source: 'tests/test_calc.py',
    });
    expect(test({ 'tests/test_x.py': 'import pytest\n' }).test_command).toEqual(['python3', '-m', 'pytest']);
    // tests/ is no package: the top is not given as the top-level folder (unittest could not import it).
    expect(
      test({
        'tests/test_x.py':
          'import unittest\n\nclass T(unittest.TestCase):\n    def test_x(self):\n        pass\n',
      }).test_command,
    ).toEqual(['python3', '-m', 'unittest', 'discover', '-s', 'tests']);
    expect(test({ 'tests/__init__.py': '', 'tests/test_x.py': 'import unittest\n' }).test_command).toEqual([
      'python3',
      '-m',
      'unittest',
      'discover',
      '-s',
      'tests',
      '-t',
      '.',
    ]);
    // unittest's load_tests protocol: the package gathers modules of any name (check_*.py).
    expect(
      test({
        'tests/__init__.py': 'def load_tests(loader, tests, pattern):\n    return tests\n',
        'tests/check_x.py': 'import unittest\n',
      }).test_command,
    ).toEqual(['python3', '-m', 'unittest', 'discover', '-s', 'tests', '-t', '.']);
    // A tox whose command is not pytest says nothing of pytest.
    expect(
      test({
        'tox.ini': '[testenv]\ncommands = python -m unittest\n',
        'tests/test_x.py': 'import unittest\n',
      }).test_command?.[2],
    ).toBe('unittest');
  });
});

describe('makeRunsPythonTests', () => {
  const make = (recipe: string) => makeRunsPythonTests(repo({ Makefile: recipe }));
  it('is true for a test target running only Python test tools, with settings before them', () => {
    expect(make('.PHONY: test\ntest:\n\tAPP_ENV=test python -m pytest -q\n')).toBe(true);
    expect(make('test:\n\t@pytest --cov=pkg\n\tcoverage report\n')).toBe(true);
    expect(make('PYTHON ?= python3\ntest:\n\t$(PYTHON) -m pytest\n')).toBe(true);
  });
  it('is false with a prerequisite (an install step needs the network) or another program', () => {
    expect(make('test: install\n\tpytest\n')).toBe(false);
    expect(make('test:\n\ttox -e py311\n')).toBe(false);
    expect(make('test:\n\tpoetry run pytest\n')).toBe(false);
    expect(make('test:\n\tpip install -e . && pytest\n')).toBe(false);
    expect(make('build:\n\tpython -m build\n')).toBe(false);
  });
});
