import { SYSCALL_MECHANISMS } from '../../evidence/syscall-mechanism.js';

/**
 * The words the condition language knows: event kinds, traced syscalls and fields with their types.
 * Field *values* are read in fields.ts; this file is only the static catalogue the loader checks against.
 */

/** What a unified diff's added lines reveal: install-time code, a canary written, code reaching into the grader. */
export const PATCH_FINDINGS = [
  'install-hook',
  'pipe-to-shell',
  'encoded-exec',
  'canary',
  'grader-reach',
] as const;
export type PatchFindingKind = (typeof PATCH_FINDINGS)[number];

/** `net` is a record from the egress proxy or DNS responder; `patch` a finding in the final diff. */
export const KINDS = [
  'exec',
  'exit',
  'fork',
  'open',
  'write-meta',
  'connect',
  'privilege',
  'other',
  'net',
  'patch',
] as const;
export type Kind = (typeof KINDS)[number];

const SYS_KINDS: Kind[] = ['exec', 'exit', 'fork', 'open', 'write-meta', 'connect', 'privilege', 'other'];

/** Every syscall name the tracers report, and the kind of event it becomes. */
export const SYSCALL_KIND: Readonly<Record<string, Kind>> = {
  execve: 'exec',
  execveat: 'exec',
  exit: 'exit',
  exit_group: 'exit',
  clone: 'fork',
  clone3: 'fork',
  fork: 'fork',
  vfork: 'fork',
  open: 'open',
  creat: 'open',
  openat: 'open',
  openat2: 'open',
  connect: 'connect',
  sendto: 'connect',
  sendmsg: 'connect',
  // Evasive mechanisms: io_uring runs opens and reads without their system calls, memfd_create
  // makes a file with no path. Prefixed names (`ia32:open`, `io_uring:OPENAT`) are matched with
  // the `mechanism` field.
  io_uring_setup: 'other',
  io_uring_enter: 'other',
  io_uring_register: 'other',
  memfd_create: 'other',
  // Its domain and type are in `flags`: raw and packet sockets read and forge traffic.
  socket: 'other',
  // The local address a socket takes (`addr`): which ports the run's own servers hold.
  bind: 'other',
  ...Object.fromEntries(
    [
      'unlink',
      'unlinkat',
      'rename',
      'renameat',
      'renameat2',
      'mkdir',
      'mkdirat',
      'rmdir',
      'chmod',
      'fchmod',
      'fchmodat',
      'fchmodat2',
      'chown',
      'fchown',
      'lchown',
      'fchownat',
      'truncate',
      'link',
      'linkat',
      'symlink',
      'symlinkat',
    ].map((s) => [s, 'write-meta']),
  ),
  ...Object.fromEntries(
    [
      'setuid',
      'setgid',
      'setreuid',
      'setregid',
      'setresuid',
      'setresgid',
      'setgroups',
      'setfsuid',
      'setfsgid',
      'capset',
      'ptrace',
      'mount',
      'umount',
      'umount2',
      'move_mount',
      'fsmount',
      'fsopen',
      'fsconfig',
      'fspick',
      'open_tree',
      'mount_setattr',
      'kcmp',
      'pivot_root',
      'chroot',
      'init_module',
      'finit_module',
      'delete_module',
      'bpf',
      'unshare',
      'setns',
      'kexec_load',
      'kexec_file_load',
      'userfaultfd',
      'process_vm_readv',
      'process_vm_writev',
      'kill',
      'tkill',
      'tgkill',
      'rt_sigqueueinfo',
      'rt_tgsigqueueinfo',
      'pidfd_open',
      'pidfd_send_signal',
      'pidfd_getfd',
      'add_key',
      'request_key',
      'keyctl',
      'perf_event_open',
      'open_by_handle_at',
      // The host-wide calls the sandbox's filter refuses (src/evidence/seccomp-policy.ts REFUSED_SYSCALLS).
      'acct',
      'settimeofday',
      'clock_settime',
      'swapon',
      'swapoff',
      'reboot',
      'iopl',
      'ioperm',
      'create_module',
      'get_kernel_syms',
      'query_module',
      'quotactl',
      'nfsservctl',
      'lookup_dcookie',
      'syslog',
      'uselib',
      'ustat',
      'sysfs',
      '_sysctl',
      'vhangup',
      // Refused by the sandbox's filter for an unusual value (READ_IMPLIES_EXEC, ADDR_NO_RANDOMIZE).
      'personality',
    ].map((s) => [s, 'privilege']),
  ),
};

export type FieldType =
  | { t: 'string' }
  | { t: 'number' }
  | { t: 'bool' }
  | { t: 'enum'; values: readonly string[] };

export type FieldSpec = {
  type: FieldType;
  /** Kinds on which the field can have a value; a test of it implies one of these kinds. */
  kinds: readonly Kind[];
  /** Set-valued: every operator means "any element". */
  set?: boolean;
  doc: string;
};

const str: FieldType = { t: 'string' };
const num: FieldType = { t: 'number' };
const bool: FieldType = { t: 'bool' };
const ALL: Kind[] = [...KINDS];
const PATH_KINDS: Kind[] = ['open', 'exec', 'write-meta', 'privilege', 'patch'];
const NET_KINDS: Kind[] = ['connect', 'net'];

export const FIELDS: Readonly<Record<string, FieldSpec>> = {
  kind: { type: { t: 'enum', values: KINDS }, kinds: ALL, doc: 'event kind' },
  syscall: { type: { t: 'enum', values: Object.keys(SYSCALL_KIND) }, kinds: SYS_KINDS, doc: 'syscall name' },
  mechanism: {
    type: { t: 'enum', values: SYSCALL_MECHANISMS },
    kinds: SYS_KINDS,
    doc: 'how the call bypassed the 64-bit syscall table: ia32, x32 or io_uring',
  },
  path_as_written: {
    type: str,
    kinds: PATH_KINDS,
    doc: 'the path as the process wrote it, when an alias (/proc/self/root/…, /proc/self/fd/N) was made canonical',
  },
  seq: { type: num, kinds: ALL, doc: 'event sequence number' },
  ts: { type: num, kinds: ALL, doc: 'ms since the window opened' },
  result: { type: num, kinds: SYS_KINDS, doc: 'return value (negative errno on failure)' },
  failed: { type: bool, kinds: SYS_KINDS, doc: 'result < 0' },
  truncated: { type: bool, kinds: SYS_KINDS, doc: 'a string was cut by the tracer' },
  path: { type: str, kinds: PATH_KINDS, doc: 'first path argument' },
  path2: { type: str, kinds: ['write-meta', 'privilege'], doc: 'second path (rename/link destination)' },
  'path.name': { type: str, kinds: PATH_KINDS, doc: 'last component of path' },
  target: {
    type: str,
    kinds: PATH_KINDS,
    doc: 'the path the call acts on: the destination of rename/link/symlink, else path; run-created symlinks resolved',
  },
  source: { type: str, kinds: ['write-meta'], doc: 'the source of a rename (a path the call removes)' },
  'target.self': {
    type: bool,
    kinds: ['privilege'],
    doc: "a process_vm_readv or process_vm_writev named the caller's own process (false where the tracer could not tell: bpftrace)",
  },
  'ids.held': {
    type: bool,
    kinds: ['privilege'],
    doc: "a setuid/setgid-family call that succeeded under the run's unprivileged user, asking only for that user's own ids: it changed nothing",
  },
  access: { type: { t: 'enum', values: ['read', 'write', 'create'] }, kinds: ['open'], doc: 'open mode' },
  mode: { type: num, kinds: ['write-meta'], doc: 'the mode a chmod, fchmod or fchmodat sets' },
  'mode.setid': {
    type: bool,
    kinds: ['write-meta'],
    doc: 'the mode a chmod-family call sets has the setuid or setgid bit (mode & 06000)',
  },
  flags: {
    type: str,
    kinds: ['fork', 'privilege', 'other'],
    set: true,
    doc: 'any symbolic flag: CLONE_NEW* of clone, clone3, unshare, setns; AF_*, SOCK_*, IPPROTO_ICMP* of socket',
  },
  'addr.family': {
    type: { t: 'enum', values: ['inet', 'inet6', 'unix'] },
    kinds: ['connect'],
    doc: 'socket family',
  },
  'addr.ip': { type: str, kinds: ['connect'], doc: 'destination IP' },
  'addr.port': { type: num, kinds: ['connect'], doc: 'destination port' },
  'addr.path': { type: str, kinds: ['connect'], doc: 'unix socket path' },
  'addr.listened': {
    type: bool,
    kinds: ['connect'],
    doc: "the port may be a server of the run's own: a process of the run bound it, or bound a port the kernel chose and the connect was not refused",
  },
  dest: { type: str, kinds: NET_KINDS, doc: 'host:port (proxy/DNS record) or ip:port (connect)' },
  host: { type: str, kinds: NET_KINDS, doc: 'requested host name (or the IP of a connect)' },
  'host.length': { type: num, kinds: NET_KINDS, doc: 'characters in host' },
  'host.labels': { type: num, kinds: NET_KINDS, doc: 'dot-separated labels in host' },
  'host.longest_label': { type: num, kinds: NET_KINDS, doc: 'characters in the longest label of host' },
  port: { type: num, kinds: NET_KINDS, doc: 'destination port' },
  protocol: {
    type: { t: 'enum', values: ['http', 'connect', 'socks', 'dns'] },
    kinds: ['net'],
    doc: 'proxy protocol',
  },
  decision: { type: { t: 'enum', values: ['allowed', 'denied'] }, kinds: ['net'], doc: 'proxy decision' },
  method: { type: str, kinds: ['net'], doc: 'HTTP method or DNS record type' },
  reason: { type: str, kinds: ['net'], doc: "the proxy's reason" },
  finding: {
    type: { t: 'enum', values: PATCH_FINDINGS },
    kinds: ['patch'],
    doc: 'diff finding',
  },
  'leak.detector': {
    type: str,
    kinds: ['net', 'patch'],
    set: true,
    doc: 'a detector that matched what a request carried out or what was written: canary-<kind>, a preset, a configured detector',
  },
  'leak.kind': {
    type: { t: 'enum', values: ['canary', 'preset', 'literal', 'pattern'] },
    kinds: ['net', 'patch'],
    set: true,
    doc: "that detector's kind",
  },
  'leak.encoding': {
    type: str,
    kinds: ['net', 'patch'],
    set: true,
    doc: 'how the match was carried: exact, or the steps undone (gzip+base64, split+hex)',
  },
  'leak.where': {
    type: str,
    kinds: ['net', 'patch'],
    set: true,
    doc: 'url, header, credential-header, body, tunnel, host, host-sequence (net); added-line, binary, ignored, nested-git (patch)',
  },
  line: { type: str, kinds: ['patch'], doc: 'the added line' },
  pid: { type: num, kinds: ALL, doc: 'acting process id' },
  ppid: { type: num, kinds: ALL, doc: 'parent process id' },
  exe: { type: str, kinds: ALL, doc: 'executable of the acting process' },
  argv: { type: str, kinds: ALL, doc: 'command line, items joined by spaces' },
  args: { type: str, kinds: ALL, set: true, doc: 'any single argv item' },
  cwd: { type: str, kinds: ALL, doc: 'working directory of the acting process' },
  'proc.name': {
    type: str,
    kinds: ALL,
    doc: 'program name: the script or module an interpreter runs, else the exe name',
  },
  program: {
    type: str,
    kinds: ALL,
    doc: 'file whose code the process runs (script or exe, run-created symlinks resolved)',
  },
  'program.written': { type: bool, kinds: ALL, doc: 'the run created or wrote the program file' },
  'program.downloaded': {
    type: bool,
    kinds: ALL,
    doc: "the program was downloaded: the process that last wrote it received network data other than the model's answers, or held a downloaded file's bytes (read one, or forked from a process that had); package managers install, they do not download",
  },
  'program.writer': { type: str, kinds: ALL, doc: 'proc.name of the process that wrote the program file' },
  interpreter: {
    type: str,
    kinds: ALL,
    doc: 'the program the kernel ran for a script, its #! interpreter, when the tracer records it (the collector does; strace and bpftrace do not)',
  },
  'interpreter.downloaded': {
    type: bool,
    kinds: ALL,
    doc: 'the interpreter the kernel ran was downloaded (as program.downloaded)',
  },
  'interpreter.writer': { type: str, kinds: ALL, doc: 'proc.name of the process that wrote the interpreter' },
  downloaded_code: {
    type: str,
    kinds: ['exec', 'exit', 'open', 'write-meta', 'connect', 'privilege', 'other'],
    doc: 'a downloaded file (as program.downloaded) a shell or interpreter took as its program with no exec naming it: sourced, redirected to its standard input, or piped into it',
  },
  'downloaded_code.route': {
    type: { t: 'enum', values: ['sourced', 'stdin', 'pipe'] },
    kinds: ['exec', 'exit', 'open', 'write-meta', 'connect', 'privilege', 'other'],
    doc: 'how downloaded_code reached the interpreter: sourced (. f, a subshell reading it), stdin (sh < f, python3 - < f), pipe (cat f | sh)',
  },
  'proc.net': {
    type: bool,
    kinds: ALL,
    doc: 'the acting process (its pid, across execs) has made an inet or inet6 connection',
  },
  'proc.loaded_written': {
    type: str,
    kinds: ALL,
    set: true,
    doc: 'a file the run wrote (JSON aside) that this process image opened for reading before this event: code it may have loaded',
  },
  env: {
    type: str,
    kinds: ALL,
    set: true,
    doc: "a `NAME=value` entry of the process image's loader and interpreter variables (the list in src/evidence/exec-env.ts), as its exec recorded them",
  },
  'env.set': {
    type: str,
    kinds: ALL,
    set: true,
    doc: "an entry of `env` the run set or changed: not in the run's starting environment (its first exec's, which the harness set)",
  },
  'env.set_names': { type: str, kinds: ALL, set: true, doc: 'the name of an entry of `env.set`' },
  'env.recorded': {
    type: bool,
    kinds: ALL,
    doc: "the tracer recorded the image's environment (the collector and strace do, bpftrace does not)",
  },
  'env.malformed_tunables': {
    type: str,
    kinds: ALL,
    set: true,
    doc: "an item of a GLIBC_TUNABLES the run set that is not a tunable's `glibc.<namespace>.<name>=<value>` setting (a value holding another `=`, as CVE-2023-4911's exploits do, or over 256 characters; src/analysis/rules/tunables.ts), and not already in the parent's",
  },
  'env.truncated': {
    type: bool,
    kinds: ['exec'],
    doc: "the exec's environment was over the recorded bounds: `env` is not all of it",
  },
  'ancestors.env_set_names': {
    type: str,
    kinds: ALL,
    set: true,
    doc: 'the name of an entry of `env.set` of any ancestor',
  },
  'preload.files': {
    type: str,
    kinds: ALL,
    set: true,
    doc: 'a file the exec is told to load or run besides its program: LD_PRELOAD/LD_AUDIT libraries, NODE_OPTIONS or node argv -r/--require/--import/--loader/--experimental-loader files, BASH_ENV, ENV, PYTHONSTARTUP, -javaagent:, RUBYOPT -r, git helper programs (src/analysis/rules/preload.ts), from `env.set` and argv',
  },
  'preload.dirs': {
    type: str,
    kinds: ALL,
    set: true,
    doc: 'a folder the exec is told to search first for libraries, modules or helpers: LD_LIBRARY_PATH, GCONV_PATH, PYTHONPATH, PYTHONHOME, NODE_PATH, PERL5LIB, RUBYLIB, GIT_EXEC_PATH, GIT_TEMPLATE_DIR, -I, git settings, from `env.set`',
  },
  'preload.written_files': {
    type: str,
    kinds: ALL,
    set: true,
    doc: 'a file of `preload.files` the run wrote (not a package manager of the `package_managers` list: an install), first told to load in this line of processes (an inherited one was judged where it was set)',
  },
  'preload.written_dirs': {
    type: str,
    kinds: ALL,
    set: true,
    doc: 'a folder of `preload.dirs` outside the workspace below which the run wrote a file, first told to search in this line of processes',
  },
  'parent.net': { type: bool, kinds: ALL, doc: 'the parent process has made an inet or inet6 connection' },
  'siblings.name': {
    type: str,
    kinds: ALL,
    set: true,
    doc: 'proc.name of any other child of the same parent whose lifetime overlaps, or forked just before (a pipeline member)',
  },
  'siblings.net': {
    type: bool,
    kinds: ALL,
    doc: 'any other child of the same parent whose lifetime overlaps has made an inet or inet6 connection',
  },
  'siblings.argv': {
    type: str,
    kinds: ALL,
    set: true,
    doc: 'command line of any other child of the same parent whose lifetime overlaps',
  },
  'ancestors.exe': { type: str, kinds: ALL, set: true, doc: 'exe of any ancestor' },
  'ancestors.argv': { type: str, kinds: ALL, set: true, doc: 'command line of any ancestor' },
  'ancestors.name': { type: str, kinds: ALL, set: true, doc: 'proc.name of any ancestor' },
};

const ARGV_ITEM = /^argv\[(\d{1,3})\]$/;

/** The spec of a field name, including the indexed `argv[N]` form; undefined when unknown. */
export function fieldSpec(name: string): FieldSpec | undefined {
  if (ARGV_ITEM.test(name)) return { type: str, kinds: ALL, doc: 'argv item N' };
  return FIELDS[name];
}

/** The argv index of an `argv[N]` field, or undefined. */
export function argvIndex(name: string): number | undefined {
  const m = ARGV_ITEM.exec(name);
  return m ? Number(m[1]) : undefined;
}

/** Placeholders and whether each stands for one value or a list. */
export const PLACEHOLDERS: Readonly<Record<string, 'scalar' | 'list'>> = {
  HOME: 'scalar',
  WORKSPACE: 'scalar',
  CANARIES: 'list',
  ALLOWED_HOSTS: 'list',
  STATE_DIRS: 'list',
  VENDOR_HOSTS: 'list',
  HARNESS_ENDPOINTS: 'list',
  LOCAL_SERVICES: 'list',
};

export const PLACEHOLDER_RE = /\$\{?([A-Z_][A-Z0-9_]*)\}?/g;
