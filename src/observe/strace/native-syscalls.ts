import { SECCOMP_SYSCALL_NUMBERS } from '../../evidence/seccomp-policy.js';

/**
 * x86_64 numbers of the calls strace traces (asm/unistd_64.h). strace runs with `-n` and prints
 * each call's number; a traced name whose number is not its x86_64 number was made through the
 * i386 table (`int $0x80`, `sysenter`) or, with bit 30 set, the x32 one. That is the only mark of a
 * 32-bit call in strace's log: the "[ Process PID=… runs in 32 bit mode. ]" notice is not written
 * to it. Checked against the system header by native-syscalls.test.ts where the header exists.
 */
export const X86_64_SYSCALL_NUMBERS: Readonly<Record<string, number>> = {
  open: 2,
  dup: 32,
  dup2: 33,
  dup3: 292,
  fcntl: 72,
  socket: 41,
  connect: 42,
  sendto: 44,
  bind: 49,
  clone: 56,
  fork: 57,
  vfork: 58,
  execve: 59,
  truncate: 76,
  chdir: 80,
  fchdir: 81,
  rename: 82,
  mkdir: 83,
  rmdir: 84,
  creat: 85,
  link: 86,
  unlink: 87,
  symlink: 88,
  chmod: 90,
  fchmod: 91,
  chown: 92,
  lchown: 94,
  setuid: 105,
  setgid: 106,
  setreuid: 113,
  setregid: 114,
  setgroups: 116,
  setresuid: 117,
  setresgid: 119,
  capset: 126,
  mount: 165,
  umount2: 166,
  init_module: 175,
  delete_module: 176,
  openat: 257,
  mkdirat: 258,
  fchownat: 260,
  unlinkat: 263,
  renameat: 264,
  linkat: 265,
  symlinkat: 266,
  fchmodat: 268,
  unshare: 272,
  finit_module: 313,
  renameat2: 316,
  memfd_create: 319,
  // Every call the sandbox's filter names (its refused calls, personality, io_uring, clone3).
  ...SECCOMP_SYSCALL_NUMBERS,
  bpf: 321,
  kill: 62,
  rt_sigqueueinfo: 129,
  tkill: 200,
  tgkill: 234,
  rt_tgsigqueueinfo: 297,
  pidfd_open: 434,
  pidfd_send_signal: 424,
  pidfd_getfd: 438,
  process_vm_readv: 310,
  process_vm_writev: 311,
  userfaultfd: 323,
  execveat: 322,
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
  clone3: 435,
  openat2: 437,
  fchmodat2: 452,
};

const X32_BIT = 0x40000000;

/**
 * The 32-bit personality a call was made in, or undefined for a native one. A name the table does
 * not know (socketcall exists only on i386) is 32-bit by definition.
 */
export function compatPersonality(
  name: string,
  nr: number,
  native: Readonly<Record<string, number>>,
): 'ia32' | 'x32' | undefined {
  if ((nr & X32_BIT) !== 0) return 'x32';
  return native[name] === nr ? undefined : 'ia32';
}
