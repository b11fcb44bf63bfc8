import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DependencySchema } from '../config/setup-schema.js';
import { installCommands } from './install-dependencies.js';
import { jsClient, pinnedManager, projectScripts } from './js-install.js';

const ws = mkdtempSync(path.join(tmpdir(), 'agentguard-js-install-'));
afterAll(() => rmSync(ws, { recursive: true, force: true }));

const dep = (raw: object) => DependencySchema.parse(raw);

describe('installCommands', () => {
  it('npm: npm ci in the lockfile folder, offline from the cache, no install scripts unless allowed', () => {
    const [ci, ...rest] = installCommands(
      dep({ manager: 'npm', lockfile: 'web/package-lock.json', cache: '/c' }),
      '/ws',
    );
    expect(rest).toEqual([]);
    expect(ci?.cwd).toBe('/ws/web');
    expect(ci?.argv).toEqual(
      expect.arrayContaining(['npm', 'ci', '--offline', '--cache', '/c', '--ignore-scripts']),
    );
    const scripted = installCommands(
      dep({ manager: 'npm', mirror: 'https://r.example/', scripts: true }),
      '/ws',
    );
    expect(scripted[0]?.argv).toContain('--registry');
    expect(scripted[0]?.argv).not.toContain('--ignore-scripts');
    expect(scripted[0]?.argv).not.toContain('--offline');
  });

  it('pip: a venv in the workspace, then its pip from the wheels only, or from the mirror', () => {
    const [venv, pip] = installCommands(dep({ manager: 'pip', cache: '/wheels', target: 'env' }), '/ws');
    expect(venv?.argv).toEqual(['python3', '-m', 'venv', '/ws/env']);
    expect(pip?.argv.slice(0, 4)).toEqual(['/ws/env/bin/python', '-m', 'pip', 'install']);
    expect(pip?.argv).toEqual(
      expect.arrayContaining(['--no-index', '--find-links', '/wheels', '--only-binary', ':all:']),
    );
    expect(pip?.argv.slice(-2)).toEqual(['-r', '/ws/requirements.txt']);
    const mirrored = installCommands(
      dep({ manager: 'pip', mirror: 'https://p.example/simple/', scripts: true }),
      '/ws',
    );
    expect(mirrored[1]?.argv).toEqual(expect.arrayContaining(['--index-url', 'https://p.example/simple/']));
    expect(mirrored[1]?.argv).not.toContain('--only-binary');
    expect(mirrored[1]?.argv).not.toContain('--no-index');
  });

  it('bun: frozen from bun.lock, from the mirror (flag and BUN_CONFIG_REGISTRY), no scripts unless allowed', () => {
    const [step, ...rest] = installCommands(
      dep({ manager: 'bun', lockfile: 'app/bun.lock', mirror: 'https://r.example/' }),
      '/ws',
      ['bun'],
    );
    expect(rest).toEqual([]);
    expect(step?.cwd).toBe('/ws/app');
    expect(step?.argv).toEqual([
      'bun',
      'install',
      '--frozen-lockfile',
      '--no-progress',
      '--registry',
      'https://r.example/',
      '--ignore-scripts',
    ]);
    expect(step?.env).toMatchObject({ BUN_CONFIG_REGISTRY: 'https://r.example/' });
    const scripts = installCommands(
      dep({ manager: 'bun', lockfile: 'bun.lockb', mirror: 'https://r.example/', scripts: true }),
      '/ws',
      ['bun'],
    );
    expect(scripts[0]?.argv).not.toContain('--ignore-scripts');
  });

  it('pnpm: frozen, from the mirror, no scripts, reading no user config (the canary ~/.npmrc)', () => {
    const [step, ...rest] = installCommands(
      dep({ manager: 'pnpm', lockfile: 'web/pnpm-lock.yaml', mirror: 'https://r.example/' }),
      '/ws',
      ['corepack', 'pnpm'],
    );
    expect(rest).toEqual([]);
    expect(step?.cwd).toBe('/ws/web');
    expect(step?.argv.slice(0, 4)).toEqual(['corepack', 'pnpm', 'install', '--frozen-lockfile']);
    expect(step?.argv).toEqual(
      expect.arrayContaining(['--registry', 'https://r.example/', '--ignore-scripts']),
    );
    expect(step?.env).toMatchObject({
      COREPACK_NPM_REGISTRY: 'https://r.example',
      npm_config_userconfig: '/dev/null',
    });
  });

  it('yarn: classic flags for a v1 lockfile, berry settings for a berry one', () => {
    mkdirSync(path.join(ws, 'classic'));
    mkdirSync(path.join(ws, 'berry'));
    writeFileSync(path.join(ws, 'classic/yarn.lock'), '# yarn lockfile v1\n');
    writeFileSync(path.join(ws, 'berry/yarn.lock'), '__metadata:\n  version: 8\n');
    const mirror = 'https://r.example/';
    const [classic] = installCommands(dep({ manager: 'yarn', lockfile: 'classic/yarn.lock', mirror }), ws, [
      'yarn',
    ]);
    expect(classic?.argv).toEqual(
      expect.arrayContaining([
        'yarn',
        'install',
        '--frozen-lockfile',
        '--registry',
        mirror,
        '--ignore-scripts',
      ]),
    );
    const [berry] = installCommands(
      dep({ manager: 'yarn', lockfile: 'berry/yarn.lock', mirror, scripts: true }),
      ws,
      ['corepack', 'yarn'],
    );
    expect(berry?.argv).toEqual(['corepack', 'yarn', 'install', '--immutable']);
    expect(berry?.env).toMatchObject({
      YARN_NPM_REGISTRY_SERVER: 'https://r.example',
      YARN_ENABLE_SCRIPTS: 'true',
    });
  });

  it("the client: corepack when package.json pins it, else the one on PATH, else corepack's default", () => {
    const bin = path.join(ws, 'bin');
    mkdirSync(bin);
    const tool = (name: string) => writeFileSync(path.join(bin, name), '#!/bin/sh\n', { mode: 0o755 });
    const pkg = path.join(ws, 'pkg');
    mkdirSync(pkg);
    expect(jsClient('pnpm', pkg, bin)).toBeNull();
    tool('pnpm');
    expect(jsClient('pnpm', pkg, bin)).toEqual(['pnpm']);
    writeFileSync(path.join(pkg, 'package.json'), '{"packageManager":"pnpm@9.15.9+sha512.abc"}');
    expect(pinnedManager(pkg)).toEqual({ name: 'pnpm', version: '9.15.9' });
    expect(jsClient('pnpm', pkg, bin)).toEqual(['pnpm']);
    tool('corepack');
    expect(jsClient('pnpm', pkg, bin)).toEqual(['corepack', 'pnpm']);
    expect(jsClient('yarn', pkg, bin)).toEqual(['corepack', 'yarn']);
  });
});

describe('projectScripts', () => {
  it("the root package's own install-time scripts, in npm's order, by the project's client; none when scripts are on (the client ran them)", () => {
    const dir = path.join(ws, 'hooked');
    mkdirSync(path.join(dir, 'app'), { recursive: true });
    writeFileSync(
      path.join(dir, 'app/package.json'),
      JSON.stringify({
        scripts: {
          test: 'node --test',
          prepare: 'husky',
          postinstall: 'node gen.js',
          build: 'tsc',
          install: ' ',
        },
      }),
    );
    const npm = projectScripts(
      dep({ manager: 'npm', lockfile: 'app/package-lock.json', cache: '/c' }),
      dir,
      [],
    );
    expect(npm.map((s) => s.argv)).toEqual([
      ['npm', 'run', 'postinstall'],
      ['npm', 'run', 'prepare'],
    ]);
    expect(npm[0]?.cwd).toBe(path.join(dir, 'app'));
    expect(npm[0]?.env?.npm_config_userconfig).toBe('/dev/null');
    const pnpm = projectScripts(
      dep({ manager: 'pnpm', lockfile: 'app/pnpm-lock.yaml', mirror: 'https://r.example/' }),
      dir,
      ['corepack', 'pnpm'],
    );
    expect(pnpm[0]?.argv).toEqual(['corepack', 'pnpm', 'run', 'postinstall']);
    expect(
      projectScripts(
        dep({ manager: 'npm', lockfile: 'app/package-lock.json', cache: '/c', scripts: true }),
        dir,
        [],
      ),
    ).toEqual([]);
    expect(
      projectScripts(dep({ manager: 'npm', lockfile: 'none/package-lock.json', cache: '/c' }), dir, []),
    ).toEqual([]);
  });
});
