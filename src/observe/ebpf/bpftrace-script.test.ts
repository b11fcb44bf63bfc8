import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { generateScript } from './bpftrace-script.js';
import { mechanismTracepoints } from './mechanism-tracepoints.js';
import { findCgroup2Mount } from './mounts.js';
import { STRLEN } from './record-format.js';
import { CODE_SECCOMP_REFUSED, TRACED_CALLS } from './syscall-table.js';
import { exitHasGroupDead, syscallTracepoints, tracefsState } from './tracefs.js';

const run = promisify(execFile);

const everyTracepoint = new Set(
  [
    'execve',
    'execveat',
    'connect',
    'sendto',
    'bind',
    'clone',
    'clone3',
    'fork',
    'vfork',
    ...TRACED_CALLS.map((c) => c.tracepoint),
  ].flatMap((name) => [`sys_enter_${name}`, `sys_exit_${name}`]),
);

describe('generateScript', () => {
  it('filters every probe on the run cgroup in the kernel', () => {
    const { script, missing } = generateScript({
      cgroupPath: '/sys/fs/cgroup/unified/agentguard/run-1',
      cgroupId: 1234n,
      syscallTracepoints: everyTracepoint,
      exitHasGroupDead: true,
      mechanisms: { compatSyscalls: true, ioUring: true },
    });
    expect(missing).toEqual([]);
    const probes = script.split(/\n\n(?=[a-zA-Z])/);
    const traced = probes.filter(
      (probe) => !/^(BEGIN|END|interval:|profile:|tracepoint:sched:sched_switch)/.test(probe),
    );
    expect(traced.length).toBeGreaterThan(40);
    for (const probe of traced) {
      expect(probe).toContain('/cgroup == cgroupid("/sys/fs/cgroup/unified/agentguard/run-1")');
    }
    expect(script).not.toMatch(/sys_(enter|exit)_(read|write|mmap)\b/);
  });

  it('with batched wakeups, marks every event record and flushes idle, busy and heartbeat CPUs', () => {
    const options = {
      cgroupPath: '/sys/fs/cgroup/unified/agentguard/run-1',
      cgroupId: 1234n,
      syscallTracepoints: everyTracepoint,
      exitHasGroupDead: true,
    };
    const plain = generateScript(options).script;
    const batched = generateScript({ ...options, wakeupEvents: 64 }).script;
    expect(plain).not.toContain('sched_switch');
    const lines = batched.split('\n');
    const events = lines.flatMap((line, i) => (/^\s*print\(\([2345],/.test(line) ? [i] : []));
    expect(events.length).toBeGreaterThan(6);
    for (const i of events) expect(lines[i - 1]?.trim()).toBe('@dirty[cpu] = 1;');
    const probes = batched.split(/\n\n(?=[a-zA-Z])/);
    const flushes = probes.filter((p) => p.includes('while ($f < 64)'));
    expect(flushes.map((p) => p.split('\n')[0])).toEqual([
      'BEGIN',
      'interval:ms:100',
      'profile:hz:10',
      'tracepoint:sched:sched_switch',
    ]);
    // Only CPUs with unread events flush, except READY and the heartbeat, which always do.
    expect(flushes.slice(2).every((p) => p.includes('@dirty[cpu] == 1'))).toBe(true);
  });

  it('uses the numeric cgroup id when the path cannot be a string literal, and lists missing calls', () => {
    const { script, missing } = generateScript({
      cgroupPath: '/sys/fs/cgroup/odd "dir"/run',
      cgroupId: 987654321n,
      syscallTracepoints: new Set([...everyTracepoint].filter((name) => !name.endsWith('_init_module'))),
      exitHasGroupDead: false,
    });
    expect(script).toContain('cgroup == 987654321');
    expect(script).not.toContain('odd "dir"');
    expect(script).toContain('pid == tid');
    expect(missing).toEqual([
      'init_module',
      '32-bit calls (raw_syscalls)',
      'calls the seccomp filter refused (raw_syscalls)',
      'io_uring operations (io_uring:io_uring_submit_req)',
    ]);
    expect(script).not.toMatch(/raw_syscalls|io_uring_submit_req|@c32seen|@iouseen|@rfseen/);
  });

  it('filters the raw syscall probes on the cgroup, then the compat bit (refusals: the result), before anything else', () => {
    const { script } = generateScript({
      cgroupPath: '/sys/fs/cgroup/unified/agentguard/run-1',
      cgroupId: 1234n,
      syscallTracepoints: everyTracepoint,
      exitHasGroupDead: true,
      mechanisms: { compatSyscalls: true, ioUring: true },
    });
    const raw = script.split(/\n\n(?=[a-zA-Z])/).filter((p) => p.startsWith('tracepoint:raw_syscalls:'));
    expect(raw).toHaveLength(3);
    const [refused, ...compat] = raw
      .sort((a, b) => Number(a.includes('@rfseen')) - Number(b.includes('@rfseen')))
      .reverse();
    for (const p of compat) {
      expect(p.split('\n')[1]).toMatch(
        /^\/cgroup == cgroupid\("[^"]+"\) && \(curtask->thread_info\.status & 2\) != 0( |\/$)/,
      );
    }
    // A native call the seccomp filter refused: ENOSYS, once per process and number (add_key 248, unshare 272).
    expect(refused?.split('\n')[1]).toMatch(
      /^\/cgroup == cgroupid\("[^"]+"\) && args->ret == -38 && \(curtask->thread_info\.status & 2\) == 0\/$/,
    );
    expect(refused).toContain('$nr == 248');
    expect(refused).toContain('$nr == 272');
    expect(refused).toContain(
      `print((2, tid, nsecs, pid, curtask->real_parent->tgid, ${CODE_SECCOMP_REFUSED}, args->ret, $nr,`,
    );
    expect(script).toContain('clear(@rfseen);');
    expect(script).toContain('clear(@c32seen);');
    expect(script).toContain('clear(@iouseen);');
  });
});

const isRoot = process.getuid?.() === 0;
const bpftrace = await run('bpftrace', ['--version']).then(
  () => true,
  () => false,
);
const tracefs = isRoot ? await tracefsState() : null;
const canCompile = isRoot && bpftrace && tracefs?.state === 'ready';
if (!canCompile) {
  console.warn(
    `skipping the bpftrace compile test: ${!isRoot ? 'not root' : !bpftrace ? 'bpftrace is not installed' : 'tracefs with syscall tracepoints is not mounted'}`,
  );
}

describe('generateScript with the real bpftrace', () => {
  it.skipIf(!canCompile).for([1, 64])(
    'compiles for this kernel within the 512-byte BPF stack (wakeup batch %i)',
    { timeout: 120_000 },
    async (wakeupEvents) => {
      const dir = await mkdtemp(join(tmpdir(), 'agentguard-bt-'));
      try {
        const tracing = tracefs?.state === 'ready' ? tracefs.dir : '';
        // cgroupid() is resolved at compile time, so the path must be a real cgroup v2 directory.
        const { script } = generateScript({
          cgroupPath: (await findCgroup2Mount()) ?? '/sys/fs/cgroup',
          cgroupId: 1n,
          syscallTracepoints: await syscallTracepoints(tracing),
          exitHasGroupDead: await exitHasGroupDead(tracing),
          mechanisms: await mechanismTracepoints(tracing),
          wakeupEvents,
        });
        await writeFile(join(dir, 'trace.bt'), script);
        // --emit-elf compiles every probe (LLVM enforces the stack limit) without loading anything.
        const result = await run('bpftrace', ['--emit-elf', join(dir, 'trace.elf'), join(dir, 'trace.bt')], {
          env: { ...process.env, BPFTRACE_STRLEN: String(STRLEN) },
        }).then(
          () => ({ ok: true, stderr: '' }),
          (err: { stderr?: string }) => ({ ok: false, stderr: err.stderr ?? '' }),
        );
        expect(result.stderr).not.toMatch(/stack limit/);
        expect(result.ok).toBe(true);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});
