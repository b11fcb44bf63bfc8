/**
 * How a recorded call reached the kernel when it was not the plain 64-bit system-call table. Both
 * tracers name such calls `<mechanism>:<call>`: `ia32:open` (the i386 table, `int $0x80`), `x32:…`,
 * `io_uring:OPENAT` (an operation a ring ran for the process). The io_uring system calls
 * themselves keep their real names. Rules see the mechanism as a field, so a new call name needs
 * no new rule.
 */
export type SyscallMechanism = 'ia32' | 'x32' | 'io_uring';

export const SYSCALL_MECHANISMS: readonly SyscallMechanism[] = ['ia32', 'x32', 'io_uring'];

const IO_URING_CALLS = new Set(['io_uring_setup', 'io_uring_enter', 'io_uring_register']);

export function syscallMechanism(syscall: string): SyscallMechanism | undefined {
  const colon = syscall.indexOf(':');
  if (colon > 0) {
    const prefix = syscall.slice(0, colon);
    return (SYSCALL_MECHANISMS as readonly string[]).includes(prefix)
      ? (prefix as SyscallMechanism)
      : undefined;
  }
  return IO_URING_CALLS.has(syscall) ? 'io_uring' : undefined;
}

/** `ia32:open`, or `ia32:<nr>` for a call with no name in `names`. */
export function compatSyscallName(
  mechanism: 'ia32' | 'x32',
  nr: number,
  names: Readonly<Record<number, string>>,
): string {
  return `${mechanism}:${names[nr] ?? String(nr)}`;
}

/**
 * The i386 system-call numbers worth a name in a report (arch/x86/entry/syscalls/syscall_32.tbl);
 * any other compat call is reported by number.
 */
export const I386_SYSCALL_NAMES: Readonly<Record<number, string>> = {
  1: 'exit',
  2: 'fork',
  3: 'read',
  4: 'write',
  5: 'open',
  6: 'close',
  8: 'creat',
  9: 'link',
  10: 'unlink',
  11: 'execve',
  12: 'chdir',
  15: 'chmod',
  23: 'setuid',
  26: 'ptrace',
  37: 'kill',
  38: 'rename',
  39: 'mkdir',
  40: 'rmdir',
  45: 'brk',
  54: 'ioctl',
  83: 'symlink',
  90: 'mmap',
  91: 'munmap',
  102: 'socketcall',
  120: 'clone',
  125: 'mprotect',
  190: 'vfork',
  192: 'mmap2',
  195: 'stat64',
  197: 'fstat64',
  213: 'setuid32',
  243: 'set_thread_area',
  252: 'exit_group',
  295: 'openat',
  301: 'unlinkat',
  302: 'renameat',
  358: 'execveat',
  359: 'socket',
  362: 'connect',
  369: 'sendto',
  383: 'statx',
  425: 'io_uring_setup',
  426: 'io_uring_enter',
  427: 'io_uring_register',
  437: 'openat2',
};
