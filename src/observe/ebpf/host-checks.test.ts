import { describe, expect, it } from 'vitest';
import { parseBpftraceVersion } from './availability.js';
import { perfBufferPages, stderrProblems } from './bpftrace-process.js';
import { mountPoints } from './mounts.js';

describe('mountPoints', () => {
  it('finds cgroup2 and tracefs mounts and undoes octal escapes', () => {
    const mounts = [
      'tmpfs /sys/fs/cgroup tmpfs rw,relatime,mode=755 0 0',
      'cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0',
      'cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0',
      'nodev /mnt/my\\040traces tracefs rw,relatime 0 0',
    ].join('\n');
    expect(mountPoints(mounts, 'cgroup2')).toEqual(['/sys/fs/cgroup/unified']);
    expect(mountPoints(mounts, 'tracefs')).toEqual(['/mnt/my traces']);
    expect(mountPoints(mounts, 'debugfs')).toEqual([]);
  });
});

describe('parseBpftraceVersion', () => {
  it('reads the version bpftrace --version prints', () => {
    expect(parseBpftraceVersion('bpftrace v0.17.0\n')).toEqual([0, 17, 0]);
    expect(parseBpftraceVersion('bpftrace v0.21.2-12-gabc')).toEqual([0, 21, 2]);
    expect(parseBpftraceVersion('bpftrace v0.9')).toEqual([0, 9, 0]);
    expect(parseBpftraceVersion('bpftrace 0.14.1 (LLVM 15)')).toEqual([0, 14, 1]);
    expect(parseBpftraceVersion('command not found')).toBeNull();
  });
});

describe('stderrProblems', () => {
  it("drops bpftrace's standing notices and compile warnings about the script, keeps real errors", () => {
    const stderr = [
      'ERROR: Unknown error -1: couldn\'t set RLIMIT_MEMLOCK for bpftrace. If your program is not loading, you can try "ulimit -l 8192" to fix the problem',
      "/tmp/x/ebpf-trace.bt:40:5-48: WARNING: Due to it's asynchronous nature using 'print()' in a loop can lead to unexpected behavior.",
      '    print((1, tid, $t, 10 + $i, str(uptr($a))));',
      '    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~',
      'WARNING: Addrspace is not set',
      'ERROR: Error loading program: tracepoint:sched:sched_process_exec (try -v)',
      '',
    ].join('\n');
    expect(stderrProblems(stderr)).toEqual([
      'ERROR: Error loading program: tracepoint:sched:sched_process_exec (try -v)',
    ]);
  });
});

describe('perfBufferPages', () => {
  it('spends about 64 MiB on perf buffers, within 1 and 16 MiB a CPU, in powers of two', () => {
    expect(perfBufferPages(2)).toBe(4096);
    expect(perfBufferPages(8)).toBe(2048);
    expect(perfBufferPages(12)).toBe(1024);
    expect(perfBufferPages(256)).toBe(256);
  });
});
