import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DependencySchema } from '../../src/config/setup-schema.js';
import { pipInstall } from '../../src/pipeline/pip-install.js';
import { relocateVenv } from '../../src/workspace/venv-relocate.js';

/*
 * The hashes a lockfile pins are the files installed: pip fetches from a wheel folder (as from a
 * mirror), and a file whose bytes the lockfile does not list stops the install before anything is
 * installed, with a message naming the package and the lockfile. A requirements file's --hash is
 * pip's own hash-checking mode.
 */

const PY = '/usr/bin/python3';
const ok = spawnSync(PY, ['-c', 'import venv, ensurepip']).status === 0;
if (!ok) console.warn('lockfile hash tests skipped: /usr/bin/python3 has no venv or ensurepip');

const root = mkdtempSync(path.join(tmpdir(), 'agentguard-lock-hashes-'));
const wheels = path.join(root, 'wheels');
afterAll(() => rmSync(root, { recursive: true, force: true }));

const WHEEL = String.raw`
import sys, zipfile
out, version = sys.argv[1:3]
info = f'tinywheel-{version}.dist-info'
with zipfile.ZipFile(f'{out}/tinywheel-{version}-py3-none-any.whl', 'w') as z:
    z.writestr('tinywheel/__init__.py', f'V = {version!r}\n')
    z.writestr(f'{info}/METADATA', f'Metadata-Version: 2.1\nName: tinywheel\nVersion: {version}\n')
    z.writestr(f'{info}/WHEEL', 'Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n')
    z.writestr(f'{info}/RECORD', '')
`;
let good = '';
const baseVenv = path.join(root, 'base-venv');
const bad = `sha256:${'0'.repeat(64)}`;

/**
 * Runs a pip entry's install steps as setup does (outside the sandbox): exit code and output. The
 * venv is a copy of one made once (making one with its pip takes seconds), moved as the cache moves it.
 */
function install(repo: string, entry: Record<string, unknown>): { code: number | null; output: string } {
  const dep = DependencySchema.parse({ manager: 'pip', cache: wheels, ...entry });
  if (dep.manager !== 'pip') throw new Error('a pip entry');
  const [create, ...steps] = pipInstall(dep, repo);
  expect(create?.argv).toEqual(['python3', '-m', 'venv', path.join(repo, '.venv')]);
  cpSync(baseVenv, path.join(repo, '.venv'), { recursive: true, verbatimSymlinks: true });
  relocateVenv(path.join(repo, '.venv'), baseVenv, path.join(repo, '.venv'));
  let output = '';
  for (const step of steps) {
    const r = spawnSync(step.argv[0] as string, step.argv.slice(1), {
      cwd: step.cwd,
      encoding: 'utf8',
      env: { PATH: '/usr/bin:/bin', HOME: root },
    });
    output += r.stdout + r.stderr;
    if (r.status !== 0) return { code: r.status, output };
  }
  return { code: 0, output };
}

function project(name: string, files: Record<string, string>): string {
  const dir = path.join(root, name);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

const installed = (repo: string) =>
  spawnSync(path.join(repo, '.venv/bin/python'), ['-c', 'import tinywheel; print(tinywheel.V)'], {
    encoding: 'utf8',
  }).stdout.trim();

const PYPROJECT = '[project]\nname = "calc"\nversion = "0.1.0"\ndependencies = ["tinywheel>=1"]\n';
const uvLock = (hash: string) =>
  `version = 1\n\n[[package]]\nname = "tinywheel"\nversion = "1.0"\nsource = { registry = "https://pypi.org/simple" }\nwheels = [\n  { url = "https://files.example/tinywheel-1.0-py3-none-any.whl", hash = "${hash}", size = 1 },\n]\n`;
const poetryLock = (hash: string) =>
  `[[package]]\nname = "tinywheel"\nversion = "1.0"\ndescription = ""\noptional = false\npython-versions = "*"\nfiles = [\n  {file = "tinywheel-1.0-py3-none-any.whl", hash = "${hash}"},\n]\n\n[metadata]\nlock-version = "2.0"\npython-versions = "^3.9"\ncontent-hash = "0"\n`;
const poetry1Lock = (hash: string) =>
  `[[package]]\nname = "tinywheel"\nversion = "1.0"\ndescription = ""\ncategory = "main"\noptional = false\npython-versions = "*"\n\n[metadata]\nlock-version = "1.1"\npython-versions = "^3.9"\ncontent-hash = "0"\n\n[metadata.files]\ntinywheel = [\n  {file = "tinywheel-1.0-py3-none-any.whl", hash = "${hash}"},\n]\n`;

describe.skipIf(!ok)('lockfile hashes', () => {
  beforeAll(() => {
    mkdirSync(wheels, { recursive: true });
    execFileSync(PY, ['-c', WHEEL, wheels, '1.0']);
    execFileSync(PY, ['-m', 'venv', baseVenv]);
    const bytes = readFileSync(path.join(wheels, 'tinywheel-1.0-py3-none-any.whl'));
    good = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
  }, 120_000);

  for (const [lockfile, lock] of [
    ['uv.lock', uvLock],
    ['poetry.lock', poetryLock],
    ['poetry.lock', poetry1Lock],
  ] as const) {
    it(`${lockfile} (${lock === poetry1Lock ? 'poetry 1.x [metadata.files]' : 'per package'}): the locked file installs; another file under the same name and version installs nothing and names the package and the lockfile`, () => {
      const tag = `${lockfile}-${lock.name}`;
      const fine = project(`${tag}-good`, { 'pyproject.toml': PYPROJECT, [lockfile]: lock(good) });
      const r = install(fine, { pyproject: 'pyproject.toml', lockfile, editable: false });
      expect(r.code, r.output).toBe(0);
      expect(r.output).toContain(`the files fetched match the hashes in ${lockfile}`);
      expect(installed(fine)).toBe('1.0');

      const tampered = project(`${tag}-bad`, { 'pyproject.toml': PYPROJECT, [lockfile]: lock(bad) });
      const t = install(tampered, { pyproject: 'pyproject.toml', lockfile, editable: false });
      expect(t.code).toBe(4);
      expect(t.output).toContain(`${path.join(tampered, lockfile)}: tinywheel does not match the lockfile`);
      expect(t.output).toContain(good);
      expect(installed(tampered)).toBe('');
    }, 120_000);
  }

  it('a lockfile without hashes installs its pins as before (nothing to check)', () => {
    const lock = uvLock(good).replace(/wheels = \[[^\]]*\]\n/, '');
    const dir = project('no-hashes', { 'pyproject.toml': PYPROJECT, 'uv.lock': lock });
    const r = install(dir, { pyproject: 'pyproject.toml', lockfile: 'uv.lock', editable: false });
    expect(r.code, r.output).toBe(0);
    expect(r.output).not.toContain('match the hashes');
    expect(installed(dir)).toBe('1.0');
  }, 120_000);

  it("a requirements file's --hash: pip's hash-checking mode installs the pinned file and refuses another", () => {
    const fine = project('req-good', { 'requirements.txt': `tinywheel==1.0 --hash=${good}\n` });
    expect(install(fine, { requirements: 'requirements.txt' }).code).toBe(0);
    expect(installed(fine)).toBe('1.0');
    const tampered = project('req-bad', { 'requirements.txt': `tinywheel==1.0 --hash=${bad}\n` });
    const t = install(tampered, { requirements: 'requirements.txt' });
    expect(t.code).not.toBe(0);
    expect(t.output).toMatch(/DO NOT MATCH THE HASHES[\s\S]*tinywheel/);
    expect(existsSync(path.join(tampered, '.venv/bin/python'))).toBe(true);
    expect(installed(tampered)).toBe('');
  }, 120_000);
});
