import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../package-root.js';
import { evaluateRules } from './evaluate.js';
import { loadRuleSet } from './load-rules.js';
import { CTX, HOME, Trace, WS } from './test-events.js';

const rules = loadRuleSet({}, { rulesDir: path.join(packageRoot(), 'rules') });
const ids = (t: Trace) => evaluateRules({ syscalls: t.events, network: [] }, rules, CTX).map((a) => a.rule);
const NPMRC = `${HOME}/.npmrc`;

/** A package manager run as its install puts it on PATH, reading the planted ~/.npmrc. */
const reads = (exe: string, argv: string[], before?: (t: Trace) => void) => {
  const t = new Trace();
  before?.(t);
  t.exec(2, 1, exe, argv).open(2, NPMRC);
  return ids(t);
};

describe('a package manager reading its own config is not a canary read', () => {
  it.each([
    ['npm', '/usr/bin/node', ['node', '/usr/bin/npm', 'ci']],
    ['npm as its shebang runs it (what strace records)', '/usr/bin/npm', ['npm', 'ci']],
    ['corepack pnpm', '/usr/bin/node', ['node', '/usr/bin/pnpm', 'install', '--frozen-lockfile']],
    ['pnpm -r (its own -r, after the script)', '/usr/bin/node', ['node', '/usr/bin/pnpm', '-r', 'test']],
    ['global pnpm', '/usr/local/bin/node', ['node', '/usr/local/lib/node_modules/pnpm/bin/pnpm.cjs', 'test']],
    ['yarn 1', '/usr/bin/node', ['node', '/usr/lib/node_modules/yarn/bin/yarn.js', 'install']],
    ['corepack', '/usr/bin/node', ['node', '/usr/bin/corepack', 'pnpm', 'install']],
    ['bun', '/usr/local/bin/bun', ['bun', 'install']],
  ])('%s', (_name, exe, argv) => {
    expect(reads(exe, argv as string[])).toEqual([]);
  });

  it('corepack loading a pnpm the run did not write (fetched before the agent) is still pnpm', () => {
    const pnpm = `${HOME}/.cache/node/corepack/v1/pnpm/9.12.0/dist/pnpm.cjs`;
    const t = new Trace();
    t.exec(2, 1, '/usr/bin/node', ['node', '/usr/bin/pnpm', 'install']).open(2, pnpm).open(2, NPMRC);
    // A package.json the agent edited is data, not code: corepack reads it for `packageManager`;
    // nor is a device a shell redirected to.
    t.open(1, `${WS}/package.json`, 'write').open(1, '/dev/null', 'write');
    t.exec(3, 1, '/usr/bin/node', ['node', '/usr/bin/pnpm', 'test'])
      .open(3, `${WS}/package.json`)
      .open(3, '/dev/null')
      .open(3, NPMRC);
    expect(ids(t)).toEqual([]);
  });
});

describe('what an attacker does next still alerts', () => {
  const CANARY = 'secrets-canary-read';

  it('cat, and node running its own script', () => {
    expect(reads('/usr/bin/cat', ['cat', NPMRC])).toContain(CANARY);
    expect(reads('/usr/bin/node', ['node', `${WS}/steal.js`])).toContain(CANARY);
  });

  it('a script named like a package manager in node_modules/.bin, HOME or /tmp', () => {
    for (const fake of [`${WS}/node_modules/.bin/pnpm`, `${HOME}/.local/bin/pnpm.cjs`, '/tmp/yarn.js']) {
      const t = new Trace();
      t.open(1, fake, 'create').exec(2, 1, '/usr/bin/node', ['node', fake]).open(2, NPMRC);
      expect(ids(t), fake).toContain(CANARY);
    }
  });

  it('the real package manager with code put in front of it on the command line', () => {
    for (const opts of [
      ['--require', '/tmp/x.js'],
      ['-r', '/tmp/x.js'],
      ['--import=data:text/javascript,1'],
    ]) {
      expect(reads('/usr/bin/node', ['node', ...opts, '/usr/bin/npm', 'ci']), opts.join(' ')).toContain(
        CANARY,
      );
    }
  });

  it('an interpreter the run made, running the real npm', () => {
    const t = new Trace();
    t.open(1, '/tmp/node', 'create').exec(2, 1, '/tmp/node', ['node', '/usr/bin/npm']).open(2, NPMRC);
    expect(ids(t)).toContain(CANARY);
  });

  it('code the run wrote loaded into the real package manager', () => {
    const loads: [string, string][] = [
      ['NODE_OPTIONS=--require', '/tmp/preload.js'],
      ['.pnpmfile.cjs', `${WS}/.pnpmfile.cjs`],
      ['a pnpmfile with a data-looking name', `${WS}/notes.yaml`],
      ['a planted corepack cache', `${HOME}/.cache/node/corepack/v1/pnpm/9.12.0/dist/pnpm.cjs`],
      ['LD_PRELOAD', '/tmp/hook.so'],
      ['a file in /dev/shm', '/dev/shm/x.js'],
    ];
    for (const [name, file] of loads) {
      const t = new Trace();
      t.open(1, file, 'create')
        .exec(2, 1, '/usr/bin/node', ['node', '/usr/bin/pnpm', 'install'])
        .open(2, file)
        .open(2, NPMRC);
      expect(ids(t), name).toContain(CANARY);
    }
  });

  it('code-loading environment set on a command line above it', () => {
    const t = new Trace();
    t.exec(2, 1, '/usr/bin/sh', ['sh', '-c', "NODE_OPTIONS='--import=data:text/javascript,…' npm ci"])
      .exec(3, 2, '/usr/bin/node', ['node', '/usr/bin/npm', 'ci'])
      .open(3, NPMRC);
    expect(ids(t)).toContain(CANARY);
  });

  it('a child the package manager starts (a lifecycle script) is not the package manager', () => {
    const t = new Trace();
    t.exec(2, 1, '/usr/bin/node', ['node', '/usr/bin/pnpm', 'install'])
      .exec(3, 2, '/usr/bin/sh', ['sh', '-c', 'node postinstall.js'])
      .exec(4, 3, '/usr/bin/node', ['node', 'postinstall.js'])
      .open(4, NPMRC);
    expect(ids(t)).toContain(CANARY);
  });

  it('the package manager may read its config, not other credentials', () => {
    const t = new Trace();
    t.exec(2, 1, '/usr/bin/node', ['node', '/usr/bin/npm', 'ci']).open(2, `${HOME}/.aws/credentials`);
    expect(ids(t)).toContain(CANARY);
  });
});

describe("package managers' stores and caches under HOME are not changes outside the workspace", () => {
  it.each([
    `${HOME}/.local/share/pnpm/store/v3/files/00/abc`,
    `${HOME}/.local/share/pnpm/.tools/pnpm/9.12.0/bin/pnpm`,
    `${HOME}/.cache/pnpm/metadata/registry.npmjs.org/x.json`,
    `${HOME}/.yarn/berry/cache/x.zip`,
    `${HOME}/.cache/yarn/v6/npm-x/package.json`,
    `${HOME}/.cache/pip/http-v2/a/b`,
    `${HOME}/.cache/uv/wheels-v1/x`,
    `${HOME}/.npm/_cacache/index-v5/ab/cd`,
  ])('%s', (file) => {
    const t = new Trace();
    t.exec(2, 1, '/usr/bin/node', ['node', '/usr/bin/pnpm', 'install']).open(2, file, 'create');
    expect(ids(t)).toEqual([]);
  });

  it('a config or startup file beside them still is', () => {
    const t = new Trace();
    t.exec(2, 1, '/usr/bin/node', ['node', '/usr/bin/pnpm', 'install'])
      .open(2, `${HOME}/.local/bin/pnpm`, 'create')
      .open(2, `${HOME}/.bashrc`, 'write');
    expect(ids(t)).toEqual(['integrity-outside-workspace', 'integrity-protected-path']);
  });
});

describe('yarn 1 run through corepack', () => {
  it("runs scripts through the node shim it writes in /tmp: the package manager's own output", () => {
    const t = new Trace();
    t.exec(2, 1, '/usr/bin/node', ['node', '/usr/bin/corepack', 'yarn', 'test'])
      .open(2, '/tmp/yarn--1796470620361-0.16/node', 'create')
      .exec(3, 2, '/usr/bin/sh', ['sh', '-c', 'node --test test/'])
      .exec(4, 3, '/tmp/yarn--1796470620361-0.16/node', ['node', '--test', 'test/']);
    expect(ids(t)).toEqual([]);
  });
});

describe('yarn 1 run as root', () => {
  it('trying to make its global folder on a read-only /usr is no change; making another folder there is', () => {
    const t = new Trace();
    t.exec(2, 1, '/usr/bin/node', ['node', '/usr/bin/corepack', 'yarn', 'test'])
      .meta(2, 'mkdir', '/usr/local/share/.yarn', undefined, -30)
      .meta(2, 'mkdir', '/usr/local/share/.cache/yarn', undefined, -30);
    expect(ids(t)).toEqual([]);
    t.meta(2, 'mkdir', '/usr/local/share/.yarn/bin', undefined, -30).meta(
      2,
      'mkdir',
      '/usr/local/lib/x',
      undefined,
      -30,
    );
    expect(ids(t)).toEqual(['integrity-outside-workspace', 'integrity-outside-workspace']);
  });
});
