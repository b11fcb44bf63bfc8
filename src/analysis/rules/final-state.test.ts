import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ProtectedChange } from '../../evidence/types.js';
import { packageRoot } from '../../package-root.js';
import { securityAlerts } from '../analyze.js';
import { diffFile, makeBundle } from '../test-bundle.js';
import { evaluateRules } from './evaluate.js';
import { finalStateChanges } from './final-state.js';
import { loadRuleSet } from './load-rules.js';
import { CTX, HOME, Trace, WS } from './test-events.js';

const rules = loadRuleSet({}, { rulesDir: path.join(packageRoot(), 'rules') });
const change = (p: string, kind: ProtectedChange['change'] = 'content'): ProtectedChange => ({
  path: p,
  change: kind,
  detail: 'before → after',
});
const judge = (t: Trace, finalState: ProtectedChange[], ctx = CTX) =>
  evaluateRules({ syscalls: t.events, network: [], finalState }, rules, ctx);

describe('the final state: a change no call showed is judged by the rule of its path', () => {
  it('a hook, .git/config, a shell rc file and a HOME startup file changed by no traced call each alert', () => {
    const t = new Trace();
    const alerts = judge(t, [
      change(`${WS}/.git/hooks/pre-commit`, 'created'),
      change(`${WS}/.git/config`),
      change(`${HOME}/.bashrc`),
      change(`${HOME}/.local/lib/python3.11/site-packages/evil.pth`, 'created'),
      change(`${WS}/.github/workflows/ci.yml`),
    ]);
    expect(alerts.map((a) => [a.rule, a.path])).toEqual([
      ['persist-git-hook', `${WS}/.git/hooks/pre-commit`],
      ['persist-git-config', `${WS}/.git/config`],
      ['integrity-protected-path', `${HOME}/.bashrc`],
      ['integrity-protected-path', `${HOME}/.local/lib/python3.11/site-packages/evil.pth`],
      ['persist-ci-config', `${WS}/.github/workflows/ci.yml`],
    ]);
    const hook = alerts[0];
    expect(hook?.final_state).toBe('created: before → after');
    expect(hook?.syscall).toBe('final-state');
    expect(hook?.message).toBe(
      `${WS}/.git/hooks/pre-commit was created (before → after): found in the final state, by no call the trace placed at this path`,
    );
  });

  it("the hooks folder replaced by a link is the hook rule's, from the trace or the final state", () => {
    const traced = new Trace();
    traced
      .exec(2, 1, '/usr/bin/ln', ['ln', '-s', '../tools', '.git/hooks'])
      .meta(2, 'symlinkat', '../tools', `${WS}/.git/hooks`);
    expect(judge(traced, []).map((a) => a.rule)).toEqual(['persist-git-hook']);
    expect(judge(new Trace(), [change(`${WS}/.git/hooks`, 'created')]).map((a) => a.rule)).toEqual([
      'persist-git-hook',
    ]);
    // Creating the folder (git init) plants nothing.
    const init = new Trace();
    init.exec(2, 1, '/usr/bin/git', ['git', 'init']).meta(2, 'mkdir', `${WS}/.git/hooks`);
    expect(judge(init, [])).toEqual([]);
  });

  it('is attributed to the last call that changed the path, and names its process chain', () => {
    const t = new Trace();
    // python renamed its staged file over the hook: the rename is the change.
    t.exec(2, 1, '/usr/bin/python3', ['python3', 'x.py']).open(2, `${WS}/vendor/h`, 'create');
    // The trace's rename itself was refused (another mount): the content got there some other way.
    t.meta(2, 'renameat', `${WS}/vendor/h`, `${WS}/.git/hooks/pre-push`, -18);
    t.exec(3, 1, '/usr/bin/cp', ['cp', 'x', '/proc/self/fd/3/pre-push']).open(
      3,
      `${WS}/.git/hooks/pre-push`,
      'write',
    );
    const alerts = judge(t, [change(`${WS}/.git/hooks/pre-push`, 'created')]);
    // The open itself alerted: the final state adds nothing for that path and rule.
    expect(alerts.map((a) => [a.rule, a.syscall, a.process.exe])).toEqual([
      ['persist-git-hook', 'openat', '/usr/bin/cp'],
    ]);
  });

  it('a change the trace placed under an exception stays quiet (git config user.name)', () => {
    const t = new Trace();
    t.exec(2, 1, '/usr/bin/git', ['git', 'config', 'user.name', 'agent'])
      .open(2, `${WS}/.git/config.lock`, 'create')
      .meta(2, 'rename', `${WS}/.git/config.lock`, `${WS}/.git/config`);
    expect(judge(t, [change(`${WS}/.git/config`)])).toEqual([]);
    // The same change with a risky key is the rule's, from the trace, once.
    const risky = new Trace();
    risky
      .exec(2, 1, '/usr/bin/git', ['git', 'config', 'core.fsmonitor', '/tmp/x'])
      .open(2, `${WS}/.git/config.lock`, 'create')
      .meta(2, 'rename', `${WS}/.git/config.lock`, `${WS}/.git/config`);
    const alerts = judge(risky, [change(`${WS}/.git/config`)]);
    expect(alerts.map((a) => [a.rule, a.syscall, a.final_state])).toEqual([
      ['persist-git-config', 'rename', undefined],
    ]);
  });

  it('a change no call at its path made has no process, even when the trace saw other calls', () => {
    const t = new Trace();
    t.exec(2, 1, '/usr/bin/git', ['git', 'config', 'user.email', 'a@b'])
      .open(2, `${WS}/.git/config.lock`, 'create')
      .meta(2, 'rename', `${WS}/.git/config.lock`, `${WS}/.git/config`);
    const alerts = judge(t, [change(`${WS}/.git/hooks/post-checkout`, 'created')]);
    expect(alerts.map((a) => a.rule)).toEqual(['persist-git-hook']);
    expect(alerts[0]?.process.pid).toBe(0);
  });

  it('honest changes stay quiet: sources, sample hooks, caches, and no burst from the final state', () => {
    const t = new Trace();
    const many = Array.from({ length: 80 }, (_, i) => change(`${WS}/src/gen/f${i}.ts`, 'removed'));
    const alerts = judge(t, [
      change(`${WS}/src/index.ts`),
      change(`${WS}/.git/hooks/pre-commit.sample`, 'mode'),
      change(`${HOME}/.cache/pip/http/x`, 'created'),
      ...many,
    ]);
    expect(alerts).toEqual([]);
  });

  it('the diff and the recorded state make one list, by absolute path', () => {
    const changes = finalStateChanges({
      workspace: WS,
      files: [
        { path: 'a.txt', status: 'added', added: 1, deleted: 0, binary: false },
        { path: 'b.txt', old_path: 'c.txt', status: 'renamed', added: 0, deleted: 0, binary: false },
        { path: 'd.txt', status: 'deleted', added: 0, deleted: 1, binary: false },
      ],
      ignored: ['.venv/x.pth'],
      protectedState: { files: [], changes: [change(`${HOME}/.profile`)] },
    });
    expect(changes.map((c) => [c.path, c.change])).toEqual([
      [`${WS}/a.txt`, 'created'],
      [`${WS}/c.txt`, 'removed'],
      [`${WS}/b.txt`, 'created'],
      [`${WS}/d.txt`, 'removed'],
      [`${WS}/.venv/x.pth`, 'created'],
      [`${HOME}/.profile`, 'content'],
    ]);
  });
});

describe('protected files by identity', () => {
  const known = new Map([['2049:500', `${WS}/.git/config`]]);
  const ctx = { ...CTX, knownFiles: known };
  const write = (t: Trace, pid: number, p: string, ino: number) =>
    t.event(pid, { kind: 'open', syscall: 'openat', path: p, access: 'write', result: 3, dev: 2049, ino });

  it('a write through a hard link made earlier is a write of the protected file', () => {
    const t = new Trace();
    t.exec(2, 1, '/usr/bin/sh', ['sh', '-c', 'printf x >> vendor/gc']);
    write(t, 2, `${WS}/vendor/gc`, 500);
    const alerts = evaluateRules({ syscalls: t.events, network: [] }, rules, ctx);
    expect(alerts.map((a) => [a.rule, a.path, a.path_as_written])).toEqual([
      ['persist-git-config', `${WS}/.git/config`, `${WS}/vendor/gc`],
    ]);
  });

  it('a write through a hard link the trace saw made is a write of the protected file, without an inode (strace)', () => {
    const t = new Trace();
    t.exec(2, 1, '/usr/bin/ln', ['ln', '.git/config', 'vendor/gc']).meta(
      2,
      'linkat',
      `${WS}/.git/config`,
      `${WS}/vendor/gc`,
    );
    t.exec(3, 1, '/usr/bin/mv', ['mv', 'vendor/gc', 'vendor/gc2']).meta(
      3,
      'renameat',
      `${WS}/vendor/gc`,
      `${WS}/vendor/gc2`,
    );
    t.exec(4, 1, '/usr/bin/sh', ['sh', '-c', 'printf x >> vendor/gc2']).open(4, `${WS}/vendor/gc2`, 'write');
    t.exec(5, 1, '/usr/bin/chmod', ['chmod', '+x', 'vendor/gc2']).meta(5, 'fchmodat', `${WS}/vendor/gc2`);
    const alerts = evaluateRules({ syscalls: t.events, network: [] }, rules, ctx);
    expect(alerts.map((a) => [a.rule, a.process.exe, a.path, a.path_as_written])).toEqual([
      ['persist-git-config', '/usr/bin/sh', `${WS}/.git/config`, `${WS}/vendor/gc2`],
      ['persist-git-config', '/usr/bin/chmod', `${WS}/.git/config`, `${WS}/vendor/gc2`],
    ]);
    // Once git has replaced the config, the link is another file: writing it changes nothing of git's.
    const after = new Trace();
    after
      .exec(2, 1, '/usr/bin/ln', ['ln', '.git/config', 'vendor/gc'])
      .meta(2, 'linkat', `${WS}/.git/config`, `${WS}/vendor/gc`);
    after
      .exec(3, 1, '/usr/bin/git', ['git', 'remote', 'add', 'o', 'x'])
      .open(3, `${WS}/.git/config.lock`, 'create')
      .meta(3, 'rename', `${WS}/.git/config.lock`, `${WS}/.git/config`);
    after
      .exec(4, 1, '/usr/bin/sh', ['sh', '-c', 'printf x >> vendor/gc'])
      .open(4, `${WS}/vendor/gc`, 'write');
    expect(evaluateRules({ syscalls: after.events, network: [] }, rules, ctx)).toEqual([]);
  });

  it('an identity freed at its own path (git renames a new config over it) names nothing afterwards', () => {
    const t = new Trace();
    t.exec(2, 1, '/usr/bin/git', ['git', 'remote', 'add', 'origin', 'x'])
      .open(2, `${WS}/.git/config.lock`, 'create')
      .meta(2, 'rename', `${WS}/.git/config.lock`, `${WS}/.git/config`);
    // The file system hands the freed inode to the next file: an honest source file.
    t.exec(3, 1, '/usr/bin/node', ['node', 'gen.js']);
    write(t, 3, `${WS}/src/out.js`, 500);
    expect(evaluateRules({ syscalls: t.events, network: [] }, rules, ctx)).toEqual([]);
  });
});

describe('the final state in a run bundle', () => {
  it("the agent's changes are the agent's, the changes while the tests ran are the tests'", () => {
    const repo = '/runs/run-test/repo';
    const bundle = makeBundle({
      canaries: { home: HOME, canaries: [] },
      diff: { files: [diffFile('.github/workflows/ci.yml')] },
      protected_state: {
        files: [],
        changes: [change(`${repo}/.git/hooks/pre-commit`, 'created')],
        test_changes: [change(`${HOME}/.zshenv`, 'created')],
      },
    });
    const alerts = securityAlerts(bundle, rules);
    expect(alerts.map((a) => [a.rule, a.path, a.phase])).toEqual([
      ['persist-ci-config', `${repo}/.github/workflows/ci.yml`, undefined],
      ['persist-git-hook', `${repo}/.git/hooks/pre-commit`, undefined],
      ['integrity-protected-path', `${HOME}/.zshenv`, 'tests'],
    ]);
  });
});
