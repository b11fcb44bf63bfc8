import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCommand } from '../exec/run-command.js';
import type { SpawnSpec } from '../exec/types.js';
import { bwrapAvailability, bwrapSandbox } from './bwrap.js';
import { readPids } from './pids-limit.js';
import { chownTree } from './run-user.js';
import type { SandboxSession } from './types.js';

const available = bwrapAvailability();
const isRoot = process.getuid?.() === 0;
if (!available.ok) console.warn(`bwrap tests skipped: ${available.reason} (fix: ${available.fix})`);

const base = mkdtempSync(path.join(tmpdir(), 'ag-bwrap-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

let n = 0;
async function session(
  mode: 'none' | 'host' = 'none',
): Promise<{ s: SandboxSession; repo: string; home: string }> {
  const runDir = path.join(base, `run${n++}`);
  const repo = path.join(runDir, 'repo');
  const home = path.join(runDir, 'home');
  mkdirSync(repo, { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(path.join(home, 'secret.txt'), 'canary\n');
  const s = await bwrapSandbox.start({
    runId: `test-${process.pid}-${n}`,
    runDir,
    repoDir: repo,
    hostHome: home,
    agentHome: '/root',
    visible: [],
    network: { mode, allow: [], hosts: {} },
  });
  return { s, repo, home };
}

async function inside(s: SandboxSession, repo: string, script: string, timeoutMs = 10_000) {
  return runCommand({
    spec: s.wrap({ argv: ['sh', '-c', script], cwd: repo, env: { PATH: '/usr/bin:/bin', HOME: '/root' } }),
    timeoutMs,
    maxOutputBytes: 64 * 1024,
    killGraceMs: 200,
  });
}

describe.skipIf(!available.ok)('bwrap sandbox', () => {
  it('lets the agent write its workspace and HOME, and nothing else on the host', async () => {
    const { s, repo, home } = await session();
    const r = await inside(
      s,
      repo,
      'echo ok > out.txt; echo h > ~/h.txt; touch /etc/agentguard-x 2>/dev/null && echo ETC; touch /usr/x 2>/dev/null && echo USR; echo tmp > /tmp/t && cat /tmp/t',
    );
    expect(r.exit_code).toBe(0);
    expect(r.stdout).toBe('tmp\n');
    expect(readFileSync(path.join(repo, 'out.txt'), 'utf8')).toBe('ok\n');
    expect(readFileSync(path.join(home, 'h.txt'), 'utf8')).toBe('h\n');
    expect(existsSync('/etc/agentguard-x')).toBe(false);
    await s.stop();
  });

  it('shows the run HOME in place of the real one and hides other homes', async () => {
    const { s, repo } = await session();
    const r = await inside(s, repo, 'cat /root/secret.txt; ls /home | wc -l');
    expect(r.stdout).toBe('canary\n0\n');
    await s.stop();
  });

  it('cannot write through a symlink that points out of the workspace', async () => {
    const { s, repo } = await session();
    const outside = path.join(base, 'outside.txt');
    writeFileSync(outside, 'original\n');
    // /etc is the read-only host; /tmp is the sandbox's own, so the host file there is out of reach.
    const r = await inside(
      s,
      repo,
      `ln -s /etc/hostname etc-link; echo x > etc-link || echo REFUSED; ln -s ${outside} tmp-link; echo pwned > tmp-link`,
    );
    expect(r.stdout).toContain('REFUSED');
    expect(readFileSync(outside, 'utf8')).toBe('original\n');
    await s.stop();
  });

  it('has no network in mode none, and cannot see or signal the harness', async () => {
    const { s, repo } = await session('none');
    const r = await inside(
      s,
      repo,
      `ip -o link 2>/dev/null | wc -l; kill -0 ${process.pid} 2>/dev/null && echo SEEN; echo $$`,
    );
    const lines = r.stdout.trim().split('\n');
    expect(lines).not.toContain('SEEN');
    expect(Number(lines[lines.length - 1])).toBeLessThan(10);
    await s.stop();
  });

  it.skipIf(!isRoot)('contains a fork bomb and leaves no process behind', async () => {
    const { s, repo } = await session();
    expect(s.facts.pids_limit).toMatch(/at most \d+ processes/);
    // An odd duration no other test uses: test files run in parallel, and some sleep 30.
    const r = await inside(s, repo, 'b() { b | b & }; b; sleep 31.7', 3000);
    expect(r.timed_out).toBe(true);
    await s.stop();
    const left = spawnSync('sh', ['-c', 'ps -eo args | grep -c "[s]leep 31.7"'], { encoding: 'utf8' });
    expect(Number(left.stdout.trim())).toBe(0);
  });

  it('kills an agent that outlives its timeout, with everything it started', async () => {
    const { s, repo } = await session();
    // Odd durations no other test uses (the lifecycle tests' agents sleep 120, in parallel).
    const r = await inside(s, repo, 'sleep 120.4 & sleep 121.4 & trap "" TERM; sleep 122.4', 500);
    expect(r.timed_out).toBe(true);
    await s.stop();
    const left = spawnSync('sh', ['-c', 'ps -eo args | grep -c "[s]leep 12[012].4"'], { encoding: 'utf8' });
    expect(Number(left.stdout.trim())).toBe(0);
    if (s.facts.pids_limit?.startsWith('at most'))
      expect(readPids(`/sys/fs/cgroup/pids/agentguard/test-${process.pid}-${n}`)).toEqual([]);
  });
});

describe.skipIf(!available.ok || !isRoot)('bwrap sandbox with a run user', () => {
  it('runs the command as the run user, the harness wrapper before it as root, both inside', async () => {
    const runDir = path.join(base, `user${n++}`);
    const repo = path.join(runDir, 'repo');
    const home = path.join(runDir, 'home');
    mkdirSync(repo, { recursive: true });
    mkdirSync(home, { recursive: true });
    const user = { uid: 2 ** 31 - 3, gid: 2 ** 31 - 3 };
    chownTree(repo, user);
    chownTree(home, user);
    const s = await bwrapSandbox.start({
      runId: `test-${process.pid}-user`,
      runDir,
      repoDir: repo,
      hostHome: home,
      agentHome: '/root',
      visible: [],
      user,
      network: { mode: 'none', allow: [], hosts: {} },
    });
    try {
      // The wrapper records its own uid, then execs the command it was given.
      const harness = (command: SpawnSpec): SpawnSpec => ({
        ...command,
        argv: [
          'sh',
          '-c',
          'id -u > /tmp/wrapper-uid; cat /tmp/wrapper-uid; exec "$@"',
          'wrapper',
          ...command.argv,
        ],
      });
      const r = await runCommand({
        spec: s.wrap(
          {
            argv: [
              'sh',
              '-c',
              'id -u; whoami; echo w > ~/w.txt; echo r > r.txt; kill -0 1 2>/dev/null || echo no-signal',
            ],
            cwd: repo,
            env: { PATH: '/usr/bin:/bin', HOME: '/root' },
          },
          harness,
        ),
        timeoutMs: 10_000,
        maxOutputBytes: 64 * 1024,
        killGraceMs: 200,
      });
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe(`0\n${user.uid}\nagent\nno-signal\n`);
      expect(readFileSync(path.join(home, 'w.txt'), 'utf8')).toBe('w\n');
      expect(s.facts.run_user).toBe(`${user.uid}:${user.gid}`);
    } finally {
      await s.stop();
    }
  });
});
