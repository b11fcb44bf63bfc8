import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PYPROJECT_INSTALL } from './pyproject-script.js';

const PY = '/usr/bin/python3';
const ok = spawnSync(PY, ['-c', 'import venv, ensurepip']).status === 0;
if (!ok)
  console.warn('pyproject-script tests skipped: /usr/bin/python3 has no venv module (Debian: python3-venv)');

const root = mkdtempSync(path.join(tmpdir(), 'ag-pyproject-script-'));
const venv = path.join(root, 'venv');
const empty = path.join(root, 'no-wheels');
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Runs the program on a pyproject (and lockfile) with the venv's python, pip finding no package. */
function install(pyproject: string, opts: { lock?: string; groups?: string[] } = {}) {
  const dir = mkdtempSync(path.join(root, 'p-'));
  writeFileSync(path.join(dir, 'pyproject.toml'), pyproject);
  if (opts.lock !== undefined) writeFileSync(path.join(dir, 'x.lock'), opts.lock);
  const argv = [
    '-c',
    PYPROJECT_INSTALL,
    path.join(dir, 'pyproject.toml'),
    opts.lock !== undefined ? path.join(dir, 'x.lock') : '',
    JSON.stringify(opts.groups ?? []),
    '0',
    '0',
    '--no-index',
    '--find-links',
    empty,
    '--only-binary',
    ':all:',
  ];
  const r = spawnSync(path.join(venv, 'bin/python'), argv, { encoding: 'utf8', cwd: dir });
  const read = (name: string) => {
    const file = path.join(venv, name);
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    rmSync(file, { force: true });
    return text;
  };
  return {
    code: r.status,
    stderr: r.stderr,
    requirements: read('agentguard-requirements.txt'),
    pins: read('agentguard-constraints.txt'),
  };
}

describe.skipIf(!ok)('the pyproject install program', () => {
  beforeAll(() => {
    mkdirSync(empty);
    // A venv as setup makes one: its pip brings the packaging and TOML parser the program uses.
    execFileSync(PY, ['-m', 'venv', venv]);
  }, 120_000);

  it('refuses what is not a plain requirement: a direct URL, an option, a poetry git source, a lockfile name that is not one, a missing group', () => {
    const url = install('[project]\ndependencies = ["evil @ https://evil.example/evil.whl"]\n');
    expect([url.code, url.stderr]).toEqual([
      3,
      expect.stringMatching(/is a direct URL; setup installs from the mirror or cache only/),
    ]);
    const option = install('[project]\ndependencies = ["--index-url=http://evil.example/"]\n');
    expect([option.code, option.stderr]).toEqual([3, expect.stringMatching(/is not a requirement/)]);
    const git = install(
      '[tool.poetry.dependencies]\npython = "^3.9"\nx = { git = "https://evil.example/x.git" }\n',
    );
    expect([git.code, git.stderr]).toEqual([3, expect.stringMatching(/x comes from a git/)]);
    const lock = install('[project]\ndependencies = ["x"]\n', {
      lock: '[[package]]\nname = "x --index-url"\nversion = "1"\n',
    });
    expect([lock.code, lock.stderr]).toEqual([3, expect.stringMatching(/is not a name and version/)]);
    const group = install('[project]\ndependencies = []\n', { groups: ['docs'] });
    expect([group.code, group.stderr]).toEqual([
      3,
      expect.stringMatching(/has no extra or dependency group named 'docs'/),
    ]);
  });

  it("reads poetry's constraints as poetry does, groups that include each other once, the project's own extras, and one pin per locked package", () => {
    const r = install(
      [
        '[project]',
        'name = "me"',
        'dependencies = ["a>=1"]',
        '[project.optional-dependencies]',
        'test = ["me[extra]", "b"]',
        'extra = ["c; python_version >= \'3\'"]',
        '[dependency-groups]',
        'dev = [{include-group = "lint"}, "d"]',
        'lint = [{include-group = "dev"}, "e"]',
        '[tool.poetry.dependencies]',
        'python = "^3.9"',
        'f = "^1.2"',
        'g = "^0.3.1"',
        'h = "~1.2.3"',
        'i = { version = "2.0", extras = ["x"], markers = "sys_platform == \'linux\'" }',
        'j = { version = "*", optional = true }',
      ].join('\n'),
      {
        groups: ['test', 'dev'],
        lock: '[[package]]\nname = "a"\nversion = "1.5"\n[[package]]\nname = "me"\nversion = "0"\n[[package]]\nname = "k"\nversion = "1"\n[[package]]\nname = "k"\nversion = "2"\n[[package]]\nname = "l"\nversion = "3"\nsource = { git = "https://x.example/l" }\n',
      },
    );
    expect(r.code).not.toBe(0); // pip finds none of them in an empty folder
    expect(r.requirements.trim().split('\n')).toEqual([
      'a>=1',
      'f<2,>=1.2',
      'g<0.4,>=0.3.1',
      'h<1.3,>=1.2.3',
      'i[x]==2.0; sys_platform == "linux"',
      'c; python_version >= "3"',
      'b',
      'e',
      'd',
    ]);
    expect(r.pins).toBe('a==1.5\n');
  });
});
