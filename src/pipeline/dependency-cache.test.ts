import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DependencySchema, type PipDependency } from '../config/setup-schema.js';
import {
  dependencyCacheKey,
  installInputs,
  restoreDependencies,
  saveDependencies,
} from './dependency-cache.js';

const root = mkdtempSync(path.join(tmpdir(), 'agentguard-dep-cache-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const venvWorks = spawnSync('/usr/bin/python3', ['-c', 'import venv']).status === 0;
if (!venvWorks) console.warn('the venv cache test is skipped: /usr/bin/python3 has no venv module');

const pnpm = DependencySchema.parse({ manager: 'pnpm', mirror: 'https://registry.npmjs.org/' });
const CLIENT = ['corepack', 'pnpm'];

function workspace(name: string, lock = "lockfileVersion: '9.0'\n") {
  const repoDir = path.join(root, name, 'repo');
  const hostHome = path.join(root, name, 'home');
  mkdirSync(repoDir, { recursive: true });
  mkdirSync(hostHome, { recursive: true });
  writeFileSync(path.join(repoDir, 'pnpm-lock.yaml'), lock);
  writeFileSync(path.join(repoDir, 'package.json'), '{"name":"x"}');
  return { repoDir, hostHome };
}

describe('the dependency cache', () => {
  it('is keyed by what decides the install: the same inputs give the same key, any change another', () => {
    const a = workspace('a');
    const key = dependencyCacheKey(pnpm, a.repoDir, CLIENT);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(dependencyCacheKey(pnpm, workspace('b').repoDir, CLIENT)).toBe(key);
    expect(dependencyCacheKey(pnpm, workspace('c', "lockfileVersion: '6.0'\n").repoDir, CLIENT)).not.toBe(
      key,
    );
    expect(dependencyCacheKey(pnpm, a.repoDir, ['pnpm'])).not.toBe(key);
    expect(dependencyCacheKey({ ...pnpm, scripts: true }, a.repoDir, CLIENT)).not.toBe(key);
    expect(dependencyCacheKey({ ...pnpm, mirror: 'https://r.example/' }, a.repoDir, CLIENT)).not.toBe(key);
  });

  it("keys a venv by its manifests (and the files a requirements file pulls in), groups and interpreter; none without the interpreter's name", () => {
    const a = workspace('pip-a');
    writeFileSync(path.join(a.repoDir, 'requirements.txt'), '-r requirements/base.txt\npytest==8.0\n');
    mkdirSync(path.join(a.repoDir, 'requirements'));
    writeFileSync(path.join(a.repoDir, 'requirements/base.txt'), 'tinywheel==1.0\n');
    writeFileSync(path.join(a.repoDir, 'pyproject.toml'), '[project]\ndependencies = ["x"]\n');
    writeFileSync(path.join(a.repoDir, 'uv.lock'), 'version = 1\n');
    const PY = '/usr/bin/python3.11\n3.11.2';
    const reqs = DependencySchema.parse({
      manager: 'pip',
      requirements: 'requirements.txt',
      mirror: 'https://pypi.org/simple/',
    });
    const key = dependencyCacheKey(reqs, a.repoDir, ['python3'], PY);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(dependencyCacheKey(reqs, a.repoDir, ['python3'], null)).toBeNull();
    expect(dependencyCacheKey(reqs, a.repoDir, ['python3'], '/usr/bin/python3.12\n3.12.1')).not.toBe(key);
    writeFileSync(path.join(a.repoDir, 'requirements/base.txt'), 'tinywheel==2.0\n');
    expect(dependencyCacheKey(reqs, a.repoDir, ['python3'], PY)).not.toBe(key);
    const pyproject = DependencySchema.parse({
      manager: 'pip',
      pyproject: 'pyproject.toml',
      lockfile: 'uv.lock',
      groups: ['dev'],
      mirror: 'https://pypi.org/simple/',
    }) as PipDependency;
    const pkey = dependencyCacheKey(pyproject, a.repoDir, ['python3'], PY);
    expect(dependencyCacheKey({ ...pyproject, groups: [] }, a.repoDir, ['python3'], PY)).not.toBe(pkey);
    expect(dependencyCacheKey({ ...pyproject, editable: false }, a.repoDir, ['python3'], PY)).not.toBe(pkey);
    writeFileSync(path.join(a.repoDir, 'uv.lock'), 'version = 2\n');
    expect(dependencyCacheKey(pyproject, a.repoDir, ['python3'], PY)).not.toBe(pkey);
  });

  it("names each file an install reads with its sha256 (setup.json's inputs), and the key follows them: a changed lockfile is a new key, the same bytes the same key", () => {
    const a = workspace('inputs');
    const sha = (text: string) => createHash('sha256').update(text).digest('hex');
    expect(installInputs(pnpm, a.repoDir)).toEqual([
      { path: 'pnpm-lock.yaml', sha256: sha("lockfileVersion: '9.0'\n") },
      { path: 'package.json', sha256: sha('{"name":"x"}') },
    ]);
    const key = dependencyCacheKey(pnpm, a.repoDir, CLIENT);
    writeFileSync(path.join(a.repoDir, 'pnpm-lock.yaml'), "lockfileVersion: '9.1'\n");
    expect(installInputs(pnpm, a.repoDir)[0]?.sha256).toBe(sha("lockfileVersion: '9.1'\n"));
    expect(dependencyCacheKey(pnpm, a.repoDir, CLIENT)).not.toBe(key);
    writeFileSync(path.join(a.repoDir, 'pnpm-lock.yaml'), "lockfileVersion: '9.0'\n");
    expect(dependencyCacheKey(pnpm, a.repoDir, CLIENT)).toBe(key);
    const uv = DependencySchema.parse({
      manager: 'pip',
      pyproject: 'sub/pyproject.toml',
      lockfile: 'sub/uv.lock',
      mirror: 'https://pypi.org/simple/',
    });
    expect(installInputs(uv, a.repoDir)).toEqual([
      { path: 'sub/pyproject.toml', sha256: null },
      { path: 'sub/uv.lock', sha256: null },
    ]);
  });

  it.skipIf(!venvWorks)(
    'restores a venv moved to the new workspace: its scripts and editable paths name the new one, none the run that made it',
    () => {
      const pip = DependencySchema.parse({
        manager: 'pip',
        pyproject: 'pyproject.toml',
        mirror: 'https://pypi.org/simple/',
      });
      const first = workspace('venv-first');
      const venv = path.join(first.repoDir, '.venv');
      execFileSync('/usr/bin/python3', ['-m', 'venv', '--without-pip', venv]);
      mkdirSync(path.join(first.repoDir, 'src/mine'), { recursive: true });
      writeFileSync(path.join(first.repoDir, 'src/mine/__init__.py'), 'WHERE = __file__\n');
      const site = execFileSync(
        path.join(venv, 'bin/python'),
        ['-c', 'import sysconfig; print(sysconfig.get_paths()["purelib"])'],
        { encoding: 'utf8' },
      ).trim();
      writeFileSync(path.join(site, '__editable__.mine-1.0.pth'), `${first.repoDir}/src\n`);
      writeFileSync(
        path.join(venv, 'bin/where'),
        `#!${venv}/bin/python\nimport sys, mine\nprint(sys.prefix)\nprint(mine.WHERE)\n`,
        { mode: 0o755 },
      );
      const cacheDir = path.join(root, 'cache', 'venv');
      saveDependencies(cacheDir, pip, first, ['python3']);
      rmSync(path.join(root, 'venv-first'), { recursive: true, force: true });

      const second = workspace('venv-second');
      mkdirSync(path.join(second.repoDir, 'src/mine'), { recursive: true });
      writeFileSync(path.join(second.repoDir, 'src/mine/__init__.py'), 'WHERE = __file__\n');
      expect(restoreDependencies(cacheDir, pip, second, ['python3'])).toBe(true);
      const moved = path.join(second.repoDir, '.venv');
      expect(execFileSync(path.join(moved, 'bin/where'), { encoding: 'utf8' }).trim().split('\n')).toEqual([
        moved,
        path.join(second.repoDir, 'src/mine/__init__.py'),
      ]);
      expect(lstatSync(path.join(moved, 'bin/python')).isSymbolicLink()).toBe(true);
      // The copy is the run's own: a change to it does not reach the cache.
      writeFileSync(path.join(moved, 'bin/where'), '#!/bin/sh\necho poisoned\n');
      const third = workspace('venv-third');
      restoreDependencies(cacheDir, pip, third, ['python3']);
      expect(readFileSync(path.join(third.repoDir, '.venv/bin/where'), 'utf8')).toContain(
        `#!${third.repoDir}/.venv/bin/python`,
      );
    },
  );

  it('saves node_modules and corepack, and restores copies: links stay links, files are not shared', () => {
    const first = workspace('first');
    const pkg = path.join(first.repoDir, 'node_modules/.pnpm/left-pad@1.3.0/node_modules/left-pad');
    mkdirSync(pkg, { recursive: true });
    writeFileSync(path.join(pkg, 'index.js'), 'module.exports = 1;\n');
    symlinkSync(
      '.pnpm/left-pad@1.3.0/node_modules/left-pad',
      path.join(first.repoDir, 'node_modules/left-pad'),
    );
    const corepack = path.join(first.hostHome, '.cache/node/corepack/v1/pnpm/9.15.9');
    mkdirSync(corepack, { recursive: true });
    writeFileSync(path.join(corepack, 'package.json'), '{}');
    const cacheDir = path.join(root, 'cache', 'k1');
    const second = workspace('second');
    expect(restoreDependencies(cacheDir, pnpm, second, CLIENT)).toBe(false);
    saveDependencies(cacheDir, pnpm, first, CLIENT);
    expect(restoreDependencies(cacheDir, pnpm, second, CLIENT)).toBe(true);
    const link = path.join(second.repoDir, 'node_modules/left-pad');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe('.pnpm/left-pad@1.3.0/node_modules/left-pad');
    expect(readFileSync(path.join(link, 'index.js'), 'utf8')).toBe('module.exports = 1;\n');
    expect(
      readFileSync(path.join(second.hostHome, '.cache/node/corepack/v1/pnpm/9.15.9/package.json'), 'utf8'),
    ).toBe('{}');
    // What the agent writes in its copy does not reach the cache.
    writeFileSync(path.join(link, 'index.js'), 'module.exports = "poisoned";\n');
    const third = workspace('third');
    restoreDependencies(cacheDir, pnpm, third, CLIENT);
    expect(readFileSync(path.join(third.repoDir, 'node_modules/left-pad/index.js'), 'utf8')).toBe(
      'module.exports = 1;\n',
    );
  });

  it("a workspace's install: every package's node_modules is kept and restored where it was, none from a nested node_modules twice", () => {
    const first = workspace('ws-first');
    const files = {
      'node_modules/.modules.yaml': 'root\n',
      'packages/pad/node_modules/left-pad/index.js': 'pad\n',
      'packages/app/node_modules/.bin/x': 'bin\n',
      'packages/app/src/index.js': 'source, not an install\n',
    };
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(first.repoDir, rel)), { recursive: true });
      writeFileSync(path.join(first.repoDir, rel), text);
    }
    symlinkSync('../../pad', path.join(first.repoDir, 'packages/app/node_modules/pad'));
    const cacheDir = path.join(root, 'cache', 'ws');
    saveDependencies(cacheDir, pnpm, first, CLIENT);
    const second = workspace('ws-second');
    expect(restoreDependencies(cacheDir, pnpm, second, CLIENT)).toBe(true);
    for (const rel of Object.keys(files).filter((f) => f.includes('node_modules')))
      expect(readFileSync(path.join(second.repoDir, rel), 'utf8')).toBe(files[rel as keyof typeof files]);
    expect(readlinkSync(path.join(second.repoDir, 'packages/app/node_modules/pad'))).toBe('../../pad');
    expect(existsSync(path.join(second.repoDir, 'packages/app/src/index.js'))).toBe(false);
  });
});
