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
