/**
 * Which system calls the ebpf tracer follows and where their path arguments sit in the
 * `tracepoint:syscalls:sys_enter_*` records. The script generator and the record decoder share it,
 * so a call's numeric code means the same thing on both sides of the pipe.
 */

export type PathArg = {
  /** Tracepoint field holding the user pointer to the path. */
  field: string;
  /** Tracepoint field holding the directory fd the path is relative to; absent means AT_FDCWD. */
  dirfd?: string;
  /**
   * Whether a relative path is resolved against the cwd or directory fd. Off for a symlink's
   * target, which is stored verbatim and resolved against the link's own directory instead.
   */
  resolve: boolean;
};

export type TracedCall = {
  /** The syscall's real name (reported as SysEvent.syscall). */
  name: string;
  /** Tracepoint suffix: `sys_enter_<tracepoint>` (umount2 is `umount` in tracefs). */
  tracepoint: string;
  kind: 'open' | 'write-meta' | 'privilege' | 'other';
  path?: PathArg;
  path2?: PathArg;
  /** bpftrace expression for the CALL record's flags word, evaluated at sys_enter (see `carries`). */
  flags?: string;
  /**
   * What `flags` carries when it is not open flags: the mode of the chmod family, the CLONE_NEW*
   * bits of unshare and setns, or socket's family, type and protocol packed (SOCKET_FLAGS).
   */
  carries?: 'mode' | 'namespaces' | 'socket' | 'target';
  /** The tracepoint field that names the process a `target` call acts on; default `pid`. */
  targetField?: string;
  /** Tracepoint field of a descriptor whose file is the call's path (fchmod): walked, as a dirfd is. */
  fdPath?: string;
  /** Can change the path of an existing directory (renames, rmdir, mounts). */
  movesDirectories?: boolean;
  /**
   * Only these values of one argument are traced (fcntl's F_DUPFD and F_DUPFD_CLOEXEC): the
   * others are neither recorded nor paid for past the filter (bpftrace's predicate, the collector's
   * sys_enter).
   */
  when?: { field: string; values: readonly [number, number] };
  /**
   * Returns a new descriptor of a file another one holds (dup): the collector walks it as it walks
   * an open's, for the descriptor table (resolved-path.ts); no event of its own.
   */
  returnsFile?: boolean;
};

export const O_WRONLY = 0o1;
export const O_RDWR = 0o2;
export const O_CREAT = 0o100;
export const O_TRUNC = 0o1000;
export const O_CLOEXEC = 0o2000000;
export const F_DUPFD = 0;
export const F_DUPFD_CLOEXEC = 1030;
/** clone: the child shares its parent's descriptor table. */
export const CLONE_FILES = 0x400;

/**
 * socket(family, type, protocol) in one flags word: family in bits 0-15, the type's low byte (its
 * SOCK_* kind; SOCK_CLOEXEC and SOCK_NONBLOCK sit higher) in 16-23, protocol in 24-39 (a packet
 * socket's is a 16-bit ethertype, an IP one's below 256). 40 bits: exact in a double.
 * The collector computes the same word (FLAGS_SOCKET in collector/calls.bpf.h).
 */
export const SOCKET_FLAGS =
  '(((int64)args->family & 0xffff) | (((int64)args->type & 0xff) << 16) | (((int64)args->protocol & 0xffff) << 24))';

/** The (family, type, protocol) a SOCKET_FLAGS word holds. */
export function unpackSocketFlags(word: number): [number, number, number] {
  return [word % 0x10000, Math.floor(word / 0x10000) % 0x100, Math.floor(word / 0x1000000) % 0x10000];
}

const p = (field: string, dirfd?: string): PathArg =>
  dirfd ? { field, dirfd, resolve: true } : { field, resolve: true };
const target = (field: string): PathArg => ({ field, resolve: false });
const MODE = { flags: 'args->mode', carries: 'mode' } as const;
/**
 * The pid a call acts on, as the caller named it (in its pid namespace). The collector adds
 * TARGET_SELF_KNOWN, and TARGET_SELF when it is the caller's own process (FLAGS_TARGET in
 * collector/calls.bpf.h); bpftrace's word is the pid alone.
 */
const TARGET = { flags: '(int64)(uint32)args->pid', carries: 'target' } as const;
/** TARGET where the process is named by another field (tgkill's `tgid`; its `pid` is a thread). */
const targetIn = (field: string) =>
  ({ flags: `(int64)(uint32)args->${field}`, carries: 'target', targetField: field }) as const;
export const TARGET_SELF_KNOWN = 2 ** 32;
export const TARGET_SELF = 2 ** 33;

/** Codes 1..15 are reserved for the calls with their own probes below. */
export const CODE_EXECVE = 1;
export const CODE_EXECVEAT = 2;
export const CODE_CONNECT = 3;
export const CODE_SENDTO = 4;
/** An i386 open, creat or openat (compat-probes.ts); flags carry the open flags. */
export const CODE_IA32_OPEN = 5;
/** Any other i386 call, once per process and call number; flags carry the number. */
export const CODE_IA32_OTHER = 6;
/** An i386 connect (socketcall or the direct call), a NET record. */
export const CODE_IA32_CONNECT = 7;
/** An io_uring OPENAT/OPENAT2 (io-uring-probes.ts): the path the ring opens; flags carry the open flags. */
export const CODE_IO_URING_OPEN = 8;
/** Any other io_uring operation, once per process and opcode; flags carry the opcode. */
export const CODE_IO_URING_OP = 9;
/** A bind, a NET record: the local address a socket takes. */
export const CODE_BIND = 10;
/**
 * A call the sandbox's seccomp filter refused (collector/refused.bpf.h), once per process and call
 * number; flags carry the number. Its sys_enter tracepoint never fired.
 */
export const CODE_SECCOMP_REFUSED = 11;
/** Codes 12..15 are kept free for the next probes of their own. */
const FIRST_TABLE_CODE = 16;

export const TRACED_CALLS: readonly TracedCall[] = [
  { name: 'open', tracepoint: 'open', kind: 'open', path: p('filename'), flags: 'args->flags' },
  {
    name: 'creat',
    tracepoint: 'creat',
    kind: 'open',
    path: p('pathname'),
    flags: String(O_CREAT | O_WRONLY | O_TRUNC),
  },
  { name: 'openat', tracepoint: 'openat', kind: 'open', path: p('filename', 'dfd'), flags: 'args->flags' },
  {
    name: 'openat2',
    tracepoint: 'openat2',
    kind: 'open',
    path: p('filename', 'dfd'),
    flags: '((struct open_how *)args->how)->flags',
  },
  { name: 'unlink', tracepoint: 'unlink', kind: 'write-meta', path: p('pathname') },
  { name: 'unlinkat', tracepoint: 'unlinkat', kind: 'write-meta', path: p('pathname', 'dfd') },
  {
    name: 'rename',
    tracepoint: 'rename',
    kind: 'write-meta',
    path: p('oldname'),
    path2: p('newname'),
    movesDirectories: true,
  },
  {
    name: 'renameat',
    tracepoint: 'renameat',
    kind: 'write-meta',
    path: p('oldname', 'olddfd'),
    path2: p('newname', 'newdfd'),
    movesDirectories: true,
  },
  {
    name: 'renameat2',
    tracepoint: 'renameat2',
    kind: 'write-meta',
    path: p('oldname', 'olddfd'),
    path2: p('newname', 'newdfd'),
    movesDirectories: true,
  },
  { name: 'mkdir', tracepoint: 'mkdir', kind: 'write-meta', path: p('pathname') },
  { name: 'mkdirat', tracepoint: 'mkdirat', kind: 'write-meta', path: p('pathname', 'dfd') },
  { name: 'rmdir', tracepoint: 'rmdir', kind: 'write-meta', path: p('pathname'), movesDirectories: true },
  // The mode is what exec-setid-bit judges (setuid and setgid bits).
  { name: 'chmod', tracepoint: 'chmod', kind: 'write-meta', path: p('filename'), ...MODE },
  { name: 'fchmodat', tracepoint: 'fchmodat', kind: 'write-meta', path: p('filename', 'dfd'), ...MODE },
  { name: 'fchmodat2', tracepoint: 'fchmodat2', kind: 'write-meta', path: p('filename', 'dfd'), ...MODE },
  { name: 'chown', tracepoint: 'chown', kind: 'write-meta', path: p('filename') },
  { name: 'fchownat', tracepoint: 'fchownat', kind: 'write-meta', path: p('filename', 'dfd') },
  { name: 'lchown', tracepoint: 'lchown', kind: 'write-meta', path: p('filename') },
  { name: 'link', tracepoint: 'link', kind: 'write-meta', path: p('oldname'), path2: p('newname') },
  {
    name: 'linkat',
    tracepoint: 'linkat',
    kind: 'write-meta',
    path: p('oldname', 'olddfd'),
    path2: p('newname', 'newdfd'),
  },
  {
    name: 'symlink',
    tracepoint: 'symlink',
    kind: 'write-meta',
    path: target('oldname'),
    path2: p('newname'),
  },
  {
    name: 'symlinkat',
    tracepoint: 'symlinkat',
    kind: 'write-meta',
    path: target('oldname'),
    path2: p('newname', 'newdfd'),
  },
  { name: 'truncate', tracepoint: 'truncate', kind: 'write-meta', path: p('path') },
  { name: 'setuid', tracepoint: 'setuid', kind: 'privilege' },
  { name: 'setgid', tracepoint: 'setgid', kind: 'privilege' },
  { name: 'setreuid', tracepoint: 'setreuid', kind: 'privilege' },
  { name: 'setregid', tracepoint: 'setregid', kind: 'privilege' },
  { name: 'setresuid', tracepoint: 'setresuid', kind: 'privilege' },
  { name: 'setresgid', tracepoint: 'setresgid', kind: 'privilege' },
  { name: 'setgroups', tracepoint: 'setgroups', kind: 'privilege' },
  { name: 'capset', tracepoint: 'capset', kind: 'privilege' },
  { name: 'ptrace', tracepoint: 'ptrace', kind: 'privilege' },
  { name: 'mount', tracepoint: 'mount', kind: 'privilege', path: p('dir_name'), movesDirectories: true },
  { name: 'umount2', tracepoint: 'umount', kind: 'privilege', path: p('name'), movesDirectories: true },
  {
    name: 'move_mount',
    tracepoint: 'move_mount',
    kind: 'privilege',
    path: p('from_pathname', 'from_dfd'),
    path2: p('to_pathname', 'to_dfd'),
    movesDirectories: true,
  },
  { name: 'fsmount', tracepoint: 'fsmount', kind: 'privilege' },
  {
    name: 'pivot_root',
    tracepoint: 'pivot_root',
    kind: 'privilege',
    path: p('new_root'),
    path2: p('put_old'),
    movesDirectories: true,
  },
  { name: 'chroot', tracepoint: 'chroot', kind: 'privilege', path: p('filename'), movesDirectories: true },
  { name: 'init_module', tracepoint: 'init_module', kind: 'privilege' },
  { name: 'finit_module', tracepoint: 'finit_module', kind: 'privilege' },
  { name: 'delete_module', tracepoint: 'delete_module', kind: 'privilege' },
  { name: 'bpf', tracepoint: 'bpf', kind: 'privilege' },
  {
    name: 'unshare',
    tracepoint: 'unshare',
    kind: 'privilege',
    flags: 'args->unshare_flags',
    carries: 'namespaces',
  },
  { name: 'setns', tracepoint: 'setns', kind: 'privilege', flags: 'args->flags', carries: 'namespaces' },
  // Evasive mechanisms (rules/evasion.yaml). A memfd's name is not a path: never walked.
  {
    name: 'memfd_create',
    tracepoint: 'memfd_create',
    kind: 'other',
    path: { field: 'uname', resolve: false },
  },
  { name: 'io_uring_setup', tracepoint: 'io_uring_setup', kind: 'other' },
  { name: 'io_uring_enter', tracepoint: 'io_uring_enter', kind: 'other' },
  { name: 'io_uring_register', tracepoint: 'io_uring_register', kind: 'other' },
  // Added after the rest so that earlier codes keep their numbers. fchmod's file is its
  // descriptor's (none for a pipe, socket or memfd).
  { name: 'fchmod', tracepoint: 'fchmod', kind: 'write-meta', fdPath: 'fd', ...MODE },
  { name: 'socket', tracepoint: 'socket', kind: 'other', flags: SOCKET_FLAGS, carries: 'socket' },
  { name: 'userfaultfd', tracepoint: 'userfaultfd', kind: 'privilege' },
  // Another process's memory read or written without /proc/<pid>/mem or ptrace.
  { name: 'process_vm_readv', tracepoint: 'process_vm_readv', kind: 'privilege', ...TARGET },
  { name: 'process_vm_writev', tracepoint: 'process_vm_writev', kind: 'privilege', ...TARGET },
  // A shell's `exec 5<dir` opens the lowest free descriptor and moves it to 5.
  { name: 'dup', tracepoint: 'dup', kind: 'other', returnsFile: true },
  { name: 'dup2', tracepoint: 'dup2', kind: 'other', returnsFile: true },
  { name: 'dup3', tracepoint: 'dup3', kind: 'other', returnsFile: true, flags: 'args->flags' },
  // An open by file handle (name_to_handle_at's): no path at all, only the file the kernel opened.
  { name: 'open_by_handle_at', tracepoint: 'open_by_handle_at', kind: 'open', flags: 'args->flags' },
  // fcntl's descriptor copies (issue 33); flags carry the command (F_DUPFD_CLOEXEC closes on exec).
  {
    name: 'fcntl',
    tracepoint: 'fcntl',
    kind: 'other',
    returnsFile: true,
    flags: 'args->cmd',
    when: { field: 'cmd', values: [F_DUPFD, F_DUPFD_CLOEXEC] },
  },
  // A signal or a pidfd aimed at a process (issue 32): refused for one outside the run's user.
  { name: 'kill', tracepoint: 'kill', kind: 'privilege', ...TARGET },
  { name: 'tkill', tracepoint: 'tkill', kind: 'privilege', ...TARGET },
  { name: 'tgkill', tracepoint: 'tgkill', kind: 'privilege', ...targetIn('tgid') },
  { name: 'rt_sigqueueinfo', tracepoint: 'rt_sigqueueinfo', kind: 'privilege', ...TARGET },
  { name: 'rt_tgsigqueueinfo', tracepoint: 'rt_tgsigqueueinfo', kind: 'privilege', ...targetIn('tgid') },
  { name: 'pidfd_open', tracepoint: 'pidfd_open', kind: 'privilege', ...TARGET },
  { name: 'pidfd_send_signal', tracepoint: 'pidfd_send_signal', kind: 'privilege' },
  { name: 'pidfd_getfd', tracepoint: 'pidfd_getfd', kind: 'privilege' },
];

/** The numeric code a call's records carry. */
export function callCode(index: number): number {
  return FIRST_TABLE_CODE + index;
}

/** The table entry for a code, or undefined for the reserved and unknown codes. */
export function callByCode(code: number): TracedCall | undefined {
  return TRACED_CALLS[code - FIRST_TABLE_CODE];
}

/** Whether a CALL record of this code carries the head of its first path instead of the process name. */
export function carriesPathHead(code: number): boolean {
  return code === CODE_IA32_OPEN || code === CODE_IO_URING_OPEN || callByCode(code)?.path !== undefined;
}

/** io_uring opcodes (enum io_uring_op in include/uapi/linux/io_uring.h), for `io_uring:<NAME>`. */
export const IO_URING_OPS: readonly string[] = [
  'NOP',
  'READV',
  'WRITEV',
  'FSYNC',
  'READ_FIXED',
  'WRITE_FIXED',
  'POLL_ADD',
  'POLL_REMOVE',
  'SYNC_FILE_RANGE',
  'SENDMSG',
  'RECVMSG',
  'TIMEOUT',
  'TIMEOUT_REMOVE',
  'ACCEPT',
  'ASYNC_CANCEL',
  'LINK_TIMEOUT',
  'CONNECT',
  'FALLOCATE',
  'OPENAT',
  'CLOSE',
  'FILES_UPDATE',
  'STATX',
  'READ',
  'WRITE',
  'FADVISE',
  'MADVISE',
  'SEND',
  'RECV',
  'OPENAT2',
  'EPOLL_CTL',
  'SPLICE',
  'PROVIDE_BUFFERS',
  'REMOVE_BUFFERS',
  'TEE',
  'SHUTDOWN',
  'RENAMEAT',
  'UNLINKAT',
  'MKDIRAT',
  'SYMLINKAT',
  'LINKAT',
  'MSG_RING',
  'FSETXATTR',
  'SETXATTR',
  'FGETXATTR',
  'GETXATTR',
  'SOCKET',
  'URING_CMD',
  'SEND_ZC',
  'SENDMSG_ZC',
  'READ_MULTISHOT',
  'WAITID',
  'FUTEX_WAIT',
  'FUTEX_WAKE',
  'FUTEX_WAITV',
  'FIXED_FD_INSTALL',
  'FTRUNCATE',
  'BIND',
  'LISTEN',
  'RECV_ZC',
  'EPOLL_WAIT',
  'READV_FIXED',
  'WRITEV_FIXED',
];
export const IORING_OP_OPENAT = IO_URING_OPS.indexOf('OPENAT');
export const IORING_OP_OPENAT2 = IO_URING_OPS.indexOf('OPENAT2');

/** i386 numbers the compat probes decode (arch/x86/entry/syscalls/syscall_32.tbl). */
export const I386_OPEN = 5;
export const I386_CREAT = 8;
export const I386_OPENAT = 295;
export const I386_SOCKETCALL = 102;
export const I386_CONNECT = 362;
/** socketcall's first argument for connect (SYS_CONNECT in linux/net.h). */
export const SYS_CONNECT = 3;
