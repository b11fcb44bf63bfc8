import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCommand } from './run-command.js';

const base = { cwd: process.cwd(), env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } };

describe('runCommand', () => {
  it('captures exit code and output', async () => {
    const r = await runCommand({
      spec: { ...base, argv: ['sh', '-c', 'echo out; echo err >&2; exit 3'] },
      timeoutMs: 10_000,
      maxOutputBytes: 1000,
    });
    expect(r.exit_code).toBe(3);
    expect(r.stdout).toBe('out\n');
    expect(r.stderr).toBe('err\n');
    expect(r.timed_out).toBe(false);
  });

  it('bounds output and flags truncation', async () => {
    const r = await runCommand({
      spec: { ...base, argv: ['sh', '-c', 'head -c 100000 /dev/zero | tr "\\0" a'] },
      timeoutMs: 10_000,
      maxOutputBytes: 1000,
    });
    expect(r.stdout.length).toBe(1000);
    expect(r.stdout_bytes).toBe(100_000);
    expect(r.stdout_truncated).toBe(true);
  });

  it('kills the whole process group on timeout, including a child ignoring SIGTERM', async () => {
    const r = await runCommand({
      spec: { ...base, argv: ['sh', '-c', "trap '' TERM; sleep 30 & sleep 30; wait"] },
      timeoutMs: 300,
      maxOutputBytes: 1000,
      killGraceMs: 200,
    });
    expect(r.timed_out).toBe(true);
    expect(r.duration_ms).toBeLessThan(5000);
    expect(r.pid).not.toBeNull();
    expect(await groupGone(r.pid as number)).toBe(true);
  });

  it('returns without waiting for a background child that holds the pipes', async () => {
    const r = await runCommand({
      spec: { ...base, argv: ['sh', '-c', 'sleep 30 & echo started'] },
      timeoutMs: 10_000,
      maxOutputBytes: 1000,
    });
    expect(r.exit_code).toBe(0);
    expect(r.stdout).toBe('started\n');
    expect(r.stragglers_killed).toBe(true);
    expect(r.duration_ms).toBeLessThan(5000);
  });

  it('reports a missing program as data', async () => {
    const r = await runCommand({
      spec: { ...base, argv: ['no-such-program-agentguard'] },
      timeoutMs: 1000,
      maxOutputBytes: 1000,
    });
    expect(r.spawn_error).toBe("program 'no-such-program-agentguard' not found");
    expect(r.exit_code).toBeNull();
  });
});

/** Living members of a process group (zombies are dead, only not reaped yet by their new parent). */
function livingMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') members.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return members;
}

async function groupGone(pgid: number): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if (livingMembers(pgid).length === 0) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}
