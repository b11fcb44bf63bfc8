import { describe, expect, it } from 'vitest';
import { daemonShare, waitedChildrenCpuMs } from './process-cpu.js';

describe('daemonShare', () => {
  it('counts the daemon CPU during the run when the same daemon served it', () => {
    expect(daemonShare({ pid: 5, ms: 100, ourChild: true }, { pid: 5, ms: 130, ourChild: true })).toEqual({
      daemonMs: 30,
      reapedMs: 0,
    });
  });

  it('takes a daemon this process reaped during the run out of the children CPU', () => {
    expect(daemonShare({ pid: 5, ms: 7400, ourChild: true }, null)).toEqual({ daemonMs: 0, reapedMs: 7400 });
    // Another process's daemon never enters this process's cutime.
    expect(daemonShare({ pid: 5, ms: 7400, ourChild: false }, null)).toEqual({ daemonMs: 0, reapedMs: 0 });
  });

  it('charges a daemon started during the run with all its CPU so far', () => {
    expect(daemonShare(null, { pid: 9, ms: 40, ourChild: true })).toEqual({ daemonMs: 40, reapedMs: 0 });
  });
});

describe('waitedChildrenCpuMs', () => {
  it('grows by the CPU of a child that was waited for', async () => {
    const { spawnSync } = await import('node:child_process');
    const before = waitedChildrenCpuMs();
    // Spins until it has used 300 ms of CPU, however busy the host is.
    spawnSync(process.execPath, ['-e', 'while (process.cpuUsage().user < 300000) {}']);
    expect(waitedChildrenCpuMs() - before).toBeGreaterThanOrEqual(250);
  });
});

describe('settleChildren', () => {
  it('waits until a child that outlives its caller is reaped, then its CPU is counted', async () => {
    const { spawn } = await import('node:child_process');
    const { livingChildren, settleChildren } = await import('./process-cpu.js');
    const before = waitedChildrenCpuMs();
    const child = spawn(process.execPath, ['-e', 'while (process.cpuUsage().user < 300000) {}'], {
      stdio: 'ignore',
    });
    child.unref();
    expect(livingChildren(new Set())).toContain(child.pid);
    expect(await settleChildren(new Set(), 30_000)).toBe(true);
    expect(livingChildren(new Set())).not.toContain(child.pid);
    expect(waitedChildrenCpuMs() - before).toBeGreaterThanOrEqual(250);
  });
});
