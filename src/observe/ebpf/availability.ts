import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { promisify } from 'node:util';
import { errorMessage } from '../../errors.js';
import type { TracerAvailability } from '../types.js';
import { findCgroup2Mount } from './mounts.js';
import { describe, MOUNT_TRACEFS, tracefsState } from './tracefs.js';

const run = promisify(execFile);

type Version = [number, number, number];

/** Oldest bpftrace with everything the generated script uses (uptr, while loops, tuples in print). */
const MIN_VERSION: Version = [0, 14, 0];
const INSTALL_BPFTRACE = 'apt-get install -y bpftrace';
/** Debian's own kernels carry BTF and syscall tracepoints. */
const INSTALL_KERNEL = 'apt-get install -y linux-image-$(dpkg --print-architecture) && reboot';
const BTF = '/sys/kernel/btf/vmlinux';

/**
 * `bpftrace v0.17.0` → [0, 17, 0]: the first version-like number in the text, missing parts 0 (as
 * semver's coerce reads it; semver itself is ~50 modules a run would load for this one line).
 */
export function parseBpftraceVersion(output: string): Version | null {
  const m = /(?:^|[^\d])(\d{1,16})(?:\.(\d{1,16}))?(?:\.(\d{1,16}))?(?!\d)/.exec(output);
  return m ? [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)] : null;
}

/** a < b, part by part. */
function older(a: Version, b: Version): boolean {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return (a[i] ?? 0) < (b[i] ?? 0);
  return false;
}

/** The installed bpftrace's version text, e.g. `0.17.0`, or null when it does not run. */
export async function bpftraceVersion(): Promise<{ text: string; parts: Version } | null> {
  try {
    const { stdout } = await run('bpftrace', ['--version'], { timeout: 10_000 });
    const parts = parseBpftraceVersion(stdout);
    return parts ? { text: parts.join('.'), parts } : null;
  } catch {
    return null;
  }
}

/** Can bpftrace (the fallback ebpf engine) run here? Each failure names the fix. Never throws. */
export async function checkAvailability(): Promise<TracerAvailability> {
  return guarded(async () => {
    const host = await checkHost();
    if (!host.ok) return host;
    const version = await bpftraceVersion();
    if (!version)
      return { ok: false, reason: 'bpftrace is not installed or does not run', fix: INSTALL_BPFTRACE };
    if (older(version.parts, MIN_VERSION)) {
      return {
        ok: false,
        reason: `bpftrace ${version.text} is too old (${MIN_VERSION.join('.')} or newer is needed)`,
        fix: INSTALL_BPFTRACE,
      };
    }
    return { ok: true, version: `bpftrace ${version.text}` };
  });
}

/** A failed check is an unavailable tracer, never an exception. */
export async function guarded(check: () => Promise<TracerAvailability>): Promise<TracerAvailability> {
  try {
    return await check();
  } catch (err) {
    return {
      ok: false,
      reason: `could not check the ebpf tracer: ${errorMessage(err)}`,
      fix: INSTALL_BPFTRACE,
    };
  }
}

/** What every ebpf engine needs from the host: root, BTF, a writable cgroup v2, syscall tracepoints. */
export async function checkHost(): Promise<TracerAvailability> {
  if (process.getuid?.() !== 0) {
    return {
      ok: false,
      reason: 'the ebpf tracer needs root: it loads BPF programs and gives the run its own cgroup',
      fix: 'sudo -E agentguard <the same arguments>',
    };
  }
  if (!(await exists(BTF))) {
    return {
      ok: false,
      reason: `the kernel has no BTF type information (${BTF} is missing)`,
      fix: INSTALL_KERNEL,
    };
  }
  const cgroup2 = await findCgroup2Mount();
  if (!cgroup2) {
    return {
      ok: false,
      reason: 'no cgroup v2 hierarchy is mounted (see /proc/mounts)',
      fix: 'mkdir -p /sys/fs/cgroup/unified && mount -t cgroup2 none /sys/fs/cgroup/unified',
    };
  }
  if (!(await exists(cgroup2, constants.W_OK))) {
    return {
      ok: false,
      reason: `the cgroup v2 hierarchy at ${cgroup2} is read-only`,
      fix: `mount -o remount,rw ${cgroup2}`,
    };
  }
  const tracefs = await tracefsState();
  if (tracefs.state === 'no-syscalls' || tracefs.state === 'unsupported') {
    return { ok: false, reason: describe(tracefs), fix: INSTALL_KERNEL };
  }
  if (tracefs.state === 'mountable' && !(await exists('/bin/mount'))) {
    return { ok: false, reason: `${describe(tracefs)} and there is no mount command`, fix: MOUNT_TRACEFS };
  }
  return { ok: true, version: 'host' };
}

async function exists(path: string, mode = constants.F_OK): Promise<boolean> {
  return access(path, mode).then(
    () => true,
    () => false,
  );
}
