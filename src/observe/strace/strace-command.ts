import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { REFUSED_SYSCALLS } from '../../sandbox/seccomp.js';
import type { TracerAvailability } from '../types.js';
import { TRACED_SYSCALLS } from './syscall-events.js';

export const INSTALL_FIX = 'apt-get install -y strace';

/**
 * The strace options before `--`. Choices, each for a reason:
 * - `-f --seccomp-bpf`: follow every descendant, but stop only on the traced calls (~4× cheaper than
 *   plain `-f` on syscall-heavy work, measured on these machines).
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
/**
 * What strace refuses (sandbox/seccomp.ts hands these to it): every call of the filter's list, and
 * unshare and setns whatever their flags (strace cannot tell by argument; clone must go on).
 */
const STRACE_REFUSED = [...Object.keys(REFUSED_SYSCALLS), 'unshare'];

/**
 * Without root, bwrap itself must call unshare to build its user namespace under strace, so unshare
 * goes on there; the sandbox then refuses a nested user namespace itself (bwrap --disable-userns),
 * and the call is still recorded and alerted (exec-namespace-change).
 */
function straceRefused(): string[] {
  return process.getuid?.() === 0 ? STRACE_REFUSED : STRACE_REFUSED.filter((call) => call !== 'unshare');
}

export function straceOptions(logPath: string, stringLimit: number): string[] {
  return [
    '-f',
    '--seccomp-bpf',
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
    // The calls a sandbox's seccomp filter hands to the tracer (RET_TRACE) are refused here.
    '-e',
    `inject=${straceRefused().join(',')}:error=EPERM`,
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
      reason: `strace ${version} cannot trace with --seccomp-bpf and the options agentguard needs: ${detail}`,
      fix: `${INSTALL_FIX} (a strace that knows --seccomp-bpf and --decode-pids; Debian 12 ships 6.1)`,
    };
  } catch (err) {
    return { ok: false, reason: `strace check failed: ${String(err)}`, fix: INSTALL_FIX };
  }
}
