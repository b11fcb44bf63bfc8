import {
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
import { DependencySchema } from '../config/setup-schema.js';
import { dependencyCacheKey, restoreDependencies, saveDependencies } from './dependency-cache.js';

const root = mkdtempSync(path.join(tmpdir(), 'agentguard-dep-cache-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

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
    const pip = DependencySchema.parse({ manager: 'pip', mirror: 'https://pypi.org/simple/' });
    expect(dependencyCacheKey(pip, a.repoDir, ['python3'])).toBeNull();
  });

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
});
