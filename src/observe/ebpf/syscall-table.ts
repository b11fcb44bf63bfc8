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
  kind: 'open' | 'write-meta' | 'privilege';
  path?: PathArg;
  path2?: PathArg;
  /** bpftrace expression for the open flags, evaluated at sys_enter. */
  flags?: string;
  /** Can change the path of an existing directory (renames, rmdir, mounts). */
  movesDirectories?: boolean;
};

export const O_WRONLY = 0o1;
export const O_RDWR = 0o2;
export const O_CREAT = 0o100;
export const O_TRUNC = 0o1000;

const p = (field: string, dirfd?: string): PathArg =>
  dirfd ? { field, dirfd, resolve: true } : { field, resolve: true };
const target = (field: string): PathArg => ({ field, resolve: false });

/** Codes 1..9 are reserved for the calls with their own probes below. */
export const CODE_EXECVE = 1;
export const CODE_EXECVEAT = 2;
export const CODE_CONNECT = 3;
export const CODE_SENDTO = 4;
const FIRST_TABLE_CODE = 10;

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
  { name: 'chmod', tracepoint: 'chmod', kind: 'write-meta', path: p('filename') },
  { name: 'fchmodat', tracepoint: 'fchmodat', kind: 'write-meta', path: p('filename', 'dfd') },
  { name: 'fchmodat2', tracepoint: 'fchmodat2', kind: 'write-meta', path: p('filename', 'dfd') },
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
  { name: 'unshare', tracepoint: 'unshare', kind: 'privilege' },
  { name: 'setns', tracepoint: 'setns', kind: 'privilege' },
];

/** The numeric code a call's records carry. */
export function callCode(index: number): number {
  return FIRST_TABLE_CODE + index;
}

/** The table entry for a code, or undefined for the reserved and unknown codes. */
export function callByCode(code: number): TracedCall | undefined {
  return TRACED_CALLS[code - FIRST_TABLE_CODE];
}
