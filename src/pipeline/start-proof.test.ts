import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RunStopped } from '../exec/interrupt.js';
import { bwrapAvailability, bwrapSandbox } from '../sandbox/bwrap.js';
import { startFix } from '../sandbox/start-proof.js';
import type { SandboxSession } from '../sandbox/types.js';
import { CommandLog } from './commands.js';

const available = bwrapAvailability();
const base = mkdtempSync(path.join(tmpdir(), 'ag-start-proof-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

let n = 0;
async function session(visible: string[]): Promise<{ s: SandboxSession; repo: string; runDir: string }> {
  const runDir = path.join(base, `run${n++}`);
  const repo = path.join(runDir, 'repo');
  const home = path.join(runDir, 'home');
  mkdirSync(repo, { recursive: true });
  mkdirSync(home, { recursive: true });
  const s = await bwrapSandbox.start({
    runId: `proof-${process.pid}-${n}`,
    runDir,
    repoDir: repo,
    hostHome: home,
    agentHome: '/root',
    visible,
    network: { mode: 'none', allow: [], hosts: {} },
  });
  return { s, repo, runDir };
}

async function run(s: SandboxSession, repo: string, runDir: string, script: string) {
  const log = new CommandLog(path.join(runDir, 'commands.jsonl'));
  const argv = ['sh', '-c', script];
  return log.run({
    role: 'agent',
    spec: s.wrap({ argv, cwd: repo, env: { PATH: '/usr/bin:/bin', HOME: '/root' } }),
    argv,
    display_argv: argv,
    cwd: repo,
    timeoutMs: 20_000,
    maxOutputBytes: 64 * 1024,
    policy: [],
  });
}

describe.skipIf(!available.ok)('the sandbox proves it started the command', () => {
  it('a sandbox that cannot be set up is the harness failing, with bwrap’s own words', async () => {
    const { s, repo, runDir } = await session([]);
    // The run HOME was there when the session started and is gone when the command starts.
    rmSync(path.join(runDir, 'home'), { recursive: true });
    try {
      const err = await run(s, repo, runDir, 'echo started').then(
        (r) => r.record,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(RunStopped);
      const reason = (err as RunStopped).reason;
      expect(reason.kind).toBe('setup-failed');
      if (reason.kind !== 'setup-failed') return;
      expect(reason.harness).toBe(true);
      expect(reason.step).toBe('the bwrap sandbox');
      expect(reason.detail).toContain('bwrap:');
      expect(reason.detail).toContain(path.join(runDir, 'home'));
      expect(reason.detail).toContain('the agent command never started');
    } finally {
      await s.stop();
    }
  });

  it('a command that prints bwrap’s words and fails is still the command’s own failure', async () => {
    const { s, repo, runDir } = await session([]);
    try {
      const { record } = await run(
        s,
        repo,
        runDir,
        'echo "bwrap: Can\'t find source path /x: No such file or directory" >&2; exit 1',
      );
      expect(record.exit_code).toBe(1);
      expect(record.stderr).toContain('bwrap: Can');
    } finally {
      await s.stop();
    }
  });

  it('a command that cannot touch the status file: it is bwrap’s descriptor, never inherited', async () => {
    const { s, repo, runDir } = await session([]);
    try {
      const { record } = await run(
        s,
        repo,
        runDir,
        "ls /proc/self/fd; sh -c ': > /proc/self/fd/8' 2>/dev/null && echo WROTE; exit 3",
      );
      expect(record.exit_code).toBe(3);
      expect(record.stdout.split('\n')).not.toContain('8');
      expect(record.stdout).not.toContain('WROTE');
    } finally {
      await s.stop();
    }
  });
});

describe('a fix for each sandbox failure people meet', () => {
  it('names the fix from the line bwrap printed', () => {
    expect(startFix('bwrap: unshare user ns: Operation not permitted')).toContain('sudo -E agentguard');
    expect(startFix("bwrap: Can't find source path /srv/x: No such file or directory")).toContain(
      '/srv/x was removed',
    );
    expect(startFix('bwrap: execvp setpriv: No such file or directory')).toContain(
      'setpriv is not in the sandbox',
    );
    expect(startFix('something else')).toContain('agentguard doctor');
  });
});
