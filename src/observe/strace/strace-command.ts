import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import type { TracerAvailability } from '../types.js';
import { TRACED_SYSCALLS } from './syscall-events.js';

export const INSTALL_FIX = 'apt-get install -y strace';

/**
 * The strace options before `--`. Choices, each for a reason:
 * - `-f` with syscall stops, not `--seccomp-bpf`: the kernel reports a call's entry to ptrace before
 *   it runs seccomp, so every call the sandbox's filter refuses is printed with its arguments and
 *   the filter's ENOSYS, whatever the rule tested (a vsock socket, a namespace clone, a personality).
 *   Under --seccomp-bpf strace stops only in seccomp, after an errno rule has already decided, and
 *   its `-e inject` cannot refuse by argument. The price: every call stops, not only the traced
 *   ones (read-heavy work measured here: ~3-5× the CPU of --seccomp-bpf; a node test run of 2,000
 *   calls: no difference).
 * - `-q`, not `-qq`: `-qq` also hides `+++ exited with N +++`, the only record of exit codes.
 * - `-e signal=!…`: `signal=none` would also hide `+++ killed by SIG… +++`; only the noisy signals
 *   that never kill are left out.
 * - `-y`: decode descriptors to paths, for `*at` calls with a real dirfd and for fchdir.
 * - `-e abbrev=!execve,execveat`: print an exec's environment (strace abbreviates it to a count).
 * - `-n`: print each call's number: the only mark of a 32-bit (i386/x32) call (native-syscalls.ts).
 * - `--decode-pids=pidns`: inside a PID namespace (bwrap) clone returns namespace pids; this adds the
 *   host pid that the line prefixes use.
 * - one `-o` file, not `-ff`: a single file keeps the global order, which cwd and parent tracking need.
 */
export function straceOptions(logPath: string, stringLimit: number): string[] {
  return [
    '-f',
    '-q',
    '-ttt',
    '-y',
    '-n',
    '--decode-pids=pidns',
    '-s',
    String(stringLimit),
    '-e',
    'signal=!SIGCHLD,SIGWINCH,SIGURG,SIGCONT',
    // An exec's whole environment, for its loader and interpreter variables (exec-env.ts); every
    // other call stays abbreviated.
    '-e',
    'abbrev=!execve,execveat',
    '-e',
    `trace=${TRACED_SYSCALLS.join(',')}`,
    '-o',
    logPath,
    '--',
  ];
}

/** The absolute path of `name` on PATH (or `name` itself when it is already a path); null if absent. */
export function findExecutable(name: string, path = process.env.PATH ?? ''): string | null {
  const candidates = isAbsolute(name)
    ? [name]
    : path
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, name));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; try the next directory
    }
  }
  return null;
}

type RunResult = { code: number | null; stdout: string; stderr: string };

function run(bin: string, args: string[]): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(bin, args, { timeout: 10_000, encoding: 'utf8' }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
      resolve({ code, stdout, stderr: stderr || (err && code === null ? err.message : '') });
    });
  });
}

/** `strace -- version 6.1` → `6.1`. */
export async function straceVersion(bin: string): Promise<string | null> {
  const { code, stdout } = await run(bin, ['-V']);
  if (code !== 0) return null;
  return /version\s+(\S+)/.exec(stdout)?.[1] ?? null;
}

/** Checks that strace exists and can trace with exactly the options a run will use. Never throws. */
export async function probeStrace(binName = 'strace'): Promise<TracerAvailability> {
  try {
    const bin = findExecutable(binName);
    if (!bin)
      return { ok: false, reason: `${binName} is not installed (not found on PATH)`, fix: INSTALL_FIX };
    const version = await straceVersion(bin);
    if (!version) return { ok: false, reason: `${bin} -V did not report a version`, fix: INSTALL_FIX };
    const probe = await run(bin, [...straceOptions('/dev/null', 64), 'true']);
    if (probe.code === 0) return { ok: true, version };
    const detail = probe.stderr.trim().split('\n')[0] ?? `exit code ${probe.code}`;
    if (/ptrace|Operation not permitted/i.test(detail)) {
      return {
        ok: false,
        reason: `strace ${version} may not trace here: ${detail}`,
        fix: 'run as root, or allow ptrace: sysctl -w kernel.yama.ptrace_scope=1 (containers need CAP_SYS_PTRACE)',
      };
    }
    return {
      ok: false,
      reason: `strace ${version} cannot trace with the options agentguard needs: ${detail}`,
      fix: `${INSTALL_FIX} (a strace that knows --decode-pids; Debian 12 ships 6.1)`,
    };
  } catch (err) {
    return { ok: false, reason: `strace check failed: ${String(err)}`, fix: INSTALL_FIX };
  }
}
