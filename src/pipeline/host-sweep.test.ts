import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OWNER_ENV, processStart } from '../exec/owner-registry.js';
import { findCgroup2Mount } from '../observe/ebpf/mounts.js';
import { describeSweep, sweepStale } from './host-sweep.js';

const root = process.getuid?.() === 0;
const dir = mkdtempSync(path.join(tmpdir(), 'ag-sweep-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

function sleeper(opts: { detached?: boolean; env?: Record<string, string> } = {}): ChildProcess {
  const child = spawn('sleep', ['300'], { detached: opts.detached ?? false, stdio: 'ignore', env: opts.env });
  children.push(child);
  return child;
}
const gone = (c: ChildProcess) =>
  c.exitCode !== null || c.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((r) => c.once('exit', () => r()));
const owner = (c: ChildProcess) => `${c.pid}-${processStart(c.pid as number)}`;

describe.skipIf(!root)('sweepStale (root: real processes and cgroups)', () => {
  it('removes what a killed owner left — its groups, marked helpers and cgroups — and nothing of a live one', async () => {
    const runId = `agtest-sweep-${process.pid}`;
    const deadOwner = sleeper();
    const liveOwner = sleeper();
    const group = sleeper({ detached: true });
    const helper = sleeper({
      env: { PATH: process.env.PATH ?? '', [OWNER_ENV]: owner(deadOwner).replace('-', ':') },
    });
    const liveGroup = sleeper({ detached: true });
    const inCgroup = sleeper();
    const cgroups: string[] = [];
    const v2 = await findCgroup2Mount();
    if (v2) cgroups.push(path.join(v2, 'agentguard', `${runId}-1`));
    if (existsSync('/sys/fs/cgroup/pids')) cgroups.push(path.join('/sys/fs/cgroup/pids/agentguard', runId));
    for (const cg of cgroups) {
      mkdirSync(cg, { recursive: true });
      writeFileSync(path.join(cg, 'cgroup.procs'), String(inCgroup.pid));
    }
    writeFileSync(
      path.join(dir, `${owner(deadOwner)}.jsonl`),
      `${JSON.stringify({ run: runId })}\n${JSON.stringify({ group: group.pid, start: processStart(group.pid as number) })}\n`,
    );
    writeFileSync(
      path.join(dir, `${owner(liveOwner)}.jsonl`),
      `${JSON.stringify({ group: liveGroup.pid, start: processStart(liveGroup.pid as number) })}\n`,
    );
    deadOwner.kill('SIGKILL');
    await gone(deadOwner);

    const result = await sweepStale(dir);
    await Promise.all([gone(group), gone(helper), gone(inCgroup)]);
    expect(result.owners).toBe(1);
    expect(result.processes).toBeGreaterThanOrEqual(3);
    expect(result.cgroups).toBe(cgroups.length);
    for (const cg of cgroups) expect(existsSync(cg)).toBe(false);
    expect(readdirSync(dir)).toEqual([`${owner(liveOwner)}.jsonl`]);
    expect(liveGroup.exitCode).toBeNull();
    expect(liveGroup.signalCode).toBeNull();
    expect(describeSweep(result)).toMatch(/^agentguard: cleaned up after 1 earlier agentguard process/);
  });

  it('is silent when there is nothing to clean', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'ag-sweep-empty-'));
    const result = await sweepStale(empty);
    rmSync(empty, { recursive: true });
    expect(describeSweep(result)).toBeNull();
  });
});
