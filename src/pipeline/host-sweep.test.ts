import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OWNER_ENV, processStart } from '../exec/owner-registry.js';
import { findCgroup2Mount } from '../observe/ebpf/mounts.js';
import { claimRunUser, RUN_UID_FIRST } from '../sandbox/run-user.js';
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

    const result = await sweepStale(dir, path.join(dir, 'no-leases'));
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

  it('removes the cgroups of any killed process that made them, not only of runs (a bench, a test)', async () => {
    const dist = path.join(import.meta.dirname, '../../dist');
    const notes = mkdtempSync(path.join(tmpdir(), 'ag-sweep-maker-'));
    const name = `agtest-maker-${process.pid}`;
    // The built modules, as a bench or a test process imports them; nothing here enables the notes.
    const script = `
      const { createRunCgroup } = await import(${JSON.stringify(`${dist}/observe/ebpf/run-cgroup.js`)});
      const { createPidsLimit } = await import(${JSON.stringify(`${dist}/sandbox/pids-limit.js`)});
      const { findCgroup2Mount } = await import(${JSON.stringify(`${dist}/observe/ebpf/mounts.js`)});
      const made = [];
      const v2 = await findCgroup2Mount().catch(() => undefined);
      if (v2) made.push((await createRunCgroup(v2, ${JSON.stringify(name)})).dir);
      const limit = createPidsLimit(${JSON.stringify(`${name}-pids`)}, 64);
      if ('dir' in limit) made.push(limit.dir);
      process.stdout.write(JSON.stringify(made) + '\\n');
      setInterval(() => {}, 1000);`;
    const maker = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, AGENTGUARD_OWNERS_DIR: notes },
    });
    children.push(maker);
    const made = await new Promise<string[]>((resolve, reject) => {
      maker.stdout?.once('data', (b: Buffer) => resolve(JSON.parse(b.toString()) as string[]));
      maker.once('exit', (code) => reject(new Error(`the cgroup maker exited with ${code}`)));
    });
    expect(made.length).toBeGreaterThan(0);
    for (const cg of made) expect(existsSync(cg)).toBe(true);
    maker.kill('SIGKILL');
    await gone(maker);

    try {
      const result = await sweepStale(notes, path.join(notes, 'no-leases'));
      expect(result.owners).toBe(1);
      expect(result.cgroups).toBe(made.length);
      for (const cg of made) expect(existsSync(cg)).toBe(false);
    } finally {
      rmSync(notes, { recursive: true, force: true });
      for (const cg of made) if (existsSync(cg)) rmdirSync(cg);
    }
  });

  it('is silent when there is nothing to clean', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'ag-sweep-empty-'));
    const result = await sweepStale(empty, empty);
    rmSync(empty, { recursive: true });
    expect(describeSweep(result)).toBeNull();
  });
});

describe('sweepStale: run-user leases', () => {
  it('gives back the lease of a holder killed with SIGKILL, and its half-made files, never a live one', async () => {
    const owners = mkdtempSync(path.join(tmpdir(), 'ag-sweep-owners-'));
    const leases = mkdtempSync(path.join(tmpdir(), 'ag-sweep-leases-'));
    const holder = sleeper();
    const deadLease = `${holder.pid}:${processStart(holder.pid as number)}`;
    const deadPid = holder.pid as number;
    holder.kill('SIGKILL');
    await gone(holder);
    const live = claimRunUser(leases, () => 1);
    writeFileSync(path.join(leases, String(RUN_UID_FIRST + 2)), deadLease);
    writeFileSync(path.join(leases, `${RUN_UID_FIRST + 3}.${deadPid}.new`), deadLease);
    writeFileSync(path.join(leases, `${RUN_UID_FIRST + 4}.${process.pid}.new`), 'mine, being made');
    try {
      const result = await sweepStale(owners, leases);
      expect(result.leases).toBe(1);
      expect(readdirSync(leases).sort()).toEqual([
        String(live.uid),
        `${RUN_UID_FIRST + 4}.${process.pid}.new`,
      ]);
      expect(describeSweep(result)).toMatch(/freed 1 run user/);
      expect((await sweepStale(owners, leases)).leases).toBe(0);
    } finally {
      live.release();
      rmSync(owners, { recursive: true, force: true });
      rmSync(leases, { recursive: true, force: true });
    }
  });
});
