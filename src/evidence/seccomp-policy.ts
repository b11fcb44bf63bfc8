/**
 * The seccomp policy of the sandboxes, modelled on Docker's default profile, as one list
 * (SECCOMP_RULES): a classic-BPF program for bwrap (sandbox/seccomp-filter.ts) and the OCI/Docker
 * JSON profile for the container engines (sandbox/seccomp-profile.ts) are both built from it. It sits
 * in evidence/ because the tracers (observe/) name the calls it refuses from the same list. It refuses:
 * - ways of doing file and system work the syscall tracers' 64-bit tracepoints do not see: io_uring
 *   (IORING_OP_OPENAT/READ open and read files with no openat call) and syscalls made through another
 *   ABI (`int $0x80` i386 calls, x32 calls);
 * - what an unprivileged user may still do that reaches past its run: the kernel keyring (a value
 *   left there outlives the run and is read by a later one or the host), new namespaces (a user
 *   namespace gives back every capability inside it: mounts, raw sockets), vsock sockets (no network
 *   namespace confines them: the hypervisor host, other VMs), userfaultfd, perf_event_open, unusual
 *   personalities, and the host-wide calls of Docker's list (kexec, swap, reboot, clocks, acct,
 *   quotactl, iopl/ioperm, open_by_handle_at, lookup_dcookie, syslog, old module calls).
 * mount, umount2, pivot_root, module loading and bpf are refused by the kernel itself (the run user
 * has no capability): left to it so that their syscall tracepoints still fire; the new mount API
 * (fsopen, open_tree, move_mount, ...) is refused here, so that its attempts are recorded too. ptrace is refused here: a
 * process that traces its own child could let that child's refused calls through (below).
 *
 * The refused calls return SECCOMP_RET_TRACE, not an errno, so that the refusal is evidence under
 * every tracer, whatever the rule's argument test: with no tracer that asked for seccomp stops
 * (PTRACE_O_TRACESECCOMP) the kernel skips the call with ENOSYS. strace follows with syscall stops,
 * not --seccomp-bpf (strace-command.ts): the kernel reports a call's entry to ptrace before it runs
 * seccomp, so strace prints every refused call with its arguments and the ENOSYS; the compiled
 * collector records the ENOSYS at raw_syscalls:sys_exit (collector/refused.bpf.h; seccomp runs
 * before the sys_enter tracepoints), bpftrace the same (refused-probes.ts). A rule added here with
 * the trace action is refused and recorded by both with nothing else to change: the tracers' lists
 * are derived from SECCOMP_TRACED_NAMES (a test keeps the collector's C list equal to it).
 * io_uring and the other ABIs keep an errno (EPERM, ENOSYS; ENOSYS for clone3, so that libc falls
 * back to clone, whose flags the filter can read).
 */

/** x86_64 numbers (also the same on every arch since 5.1: they are from the unified table). */
export const IO_URING_SYSCALLS = {
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
} as const;

export const ENOSYS = 38;
const EPERM = 1;
/**
 * The errno a call refused as evidence (RET_TRACE) ends in when no tracer asked for seccomp stops:
 * what every tracer records the refusal by.
 */
export const REFUSAL_ERRNO = ENOSYS;

/** What the filter does, for observation.json. */
export const SECCOMP_FACT =
  "io_uring, non-native syscalls, the kernel keyring, new namespaces, vsock sockets, unusual personalities and the host-wide calls of Docker's profile refused";

/** x86_64 numbers of the calls refused whatever their arguments, as evidence (asm/unistd_64.h). */
export const REFUSED_SYSCALLS = {
  acct: 163,
  settimeofday: 164,
  swapon: 167,
  swapoff: 168,
  reboot: 169,
  iopl: 172,
  ioperm: 173,
  create_module: 174,
  get_kernel_syms: 177,
  query_module: 178,
  quotactl: 179,
  nfsservctl: 180,
  lookup_dcookie: 212,
  clock_settime: 227,
  kexec_load: 246,
  add_key: 248,
  request_key: 249,
  keyctl: 250,
  perf_event_open: 298,
  ptrace: 101,
  // A kernel-exploit primitive (a page fault the caller stalls); Docker allows it only with CAP_SYS_PTRACE.
  userfaultfd: 323,
  open_by_handle_at: 304,
  setns: 308,
  kexec_file_load: 320,
  syslog: 103,
  uselib: 134,
  ustat: 136,
  sysfs: 139,
  _sysctl: 156,
  vhangup: 153,
  // The new mount API: the kernel refuses it to a user with no CAP_SYS_ADMIN, but only mount and
  // umount2 have tracepoints the tracers follow, so the attempt would go unrecorded. open_tree
  // without OPEN_TREE_CLONE needs no capability (an O_PATH descriptor); Docker refuses it too.
  open_tree: 428,
  move_mount: 429,
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  mount_setattr: 442,
  // Compares kernel objects of two processes (which files, memory, namespaces they share): a probe
  // of the harness's processes; Docker allows it only with CAP_SYS_PTRACE.
  kcmp: 312,
} as const;

/** Calls refused as evidence when their first argument asks for a new namespace (CLONE_NEW*). */
export const NAMESPACE_SYSCALLS = { clone: 56, unshare: 272 } as const;

/**
 * socket with a family no network namespace confines, refused as evidence: AF_VSOCK reaches the
 * hypervisor host's and other VMs' services (and, through vsock_loopback, any listener on this
 * machine, another run's included), whatever the run's network mode. Docker's profile refuses it
 * too.
 */
export const SOCKET_SYSCALLS = { socket: 41 } as const;
export const UNCONFINED_SOCKET_FAMILIES = { AF_VSOCK: 40 } as const;

/**
 * clone3, refused with ENOSYS whatever it asks (its flags are in memory a filter cannot read) so that
 * libc falls back to clone, whose flags it can; the collector records one whose clone_args ask for
 * a new namespace (collector/refused.bpf.h), as strace does from its decoded struct.
 */
export const CLONE3_SYSCALL = { clone3: 435 } as const;

/** The namespace calls by number. */
export const NAMESPACE_SYSCALL_NAMES: Readonly<Record<number, string>> = Object.fromEntries(
  Object.entries(NAMESPACE_SYSCALLS).map(([name, nr]) => [nr, name]),
);

// CLONE_NEWTIME | CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER |
// CLONE_NEWPID | CLONE_NEWNET
const CLONE_NEW_FLAGS = [
  0x00000080, 0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000,
] as const;
/**
 * The personality flags Docker allows on top of PER_LINUX: PER_LINUX32 and UNAME26, alone or together;
 * with 0xffffffff (the query) that is Docker's list: 0x0, 0x8, 0x20000, 0x20008, 0xffffffff.
 */
const PERSONALITY_FLAGS = [0x8, 0x20000] as const;
const PERSONALITY_QUERY = 0xffffffff;

/** What the filter does with a call: let it through, hand it to a tracer as evidence, or fail it. */
export type SeccompAction = { kind: 'allow' } | { kind: 'trace' } | { kind: 'errno'; errno: number };
const TRACE: SeccompAction = { kind: 'trace' };
const errno = (n: number): SeccompAction => ({ kind: 'errno', errno: n });

/** When a rule applies, by the call's first argument (its low 32 bits); absent: always. */
export type SeccompCondition =
  /** Any of these bits is set (a CLONE_NEW* flag). */
  | { kind: 'arg0-any-bit'; bits: readonly number[] }
  /** The value is one of these (a socket family). */
  | { kind: 'arg0-one-of'; values: readonly number[] }
  /** The value has a bit outside these flags and is not the all-ones query (an unusual personality). */
  | { kind: 'arg0-outside-flags'; flags: readonly number[]; except: number };

export type SeccompRule = { names: readonly string[]; action: SeccompAction; when?: SeccompCondition };

/**
 * The policy, the one definition both sandboxes apply: bwrap as the classic-BPF program below, the
 * container engines as the OCI/Docker JSON profile built from it (seccomp-profile.ts). Calls not named
 * here are allowed; a call is named in one rule only, so no engine has to pick between two actions.
 */
export const SECCOMP_RULES: readonly SeccompRule[] = [
  { names: Object.keys(IO_URING_SYSCALLS), action: errno(EPERM) },
  { names: Object.keys(REFUSED_SYSCALLS), action: TRACE },
  // ENOSYS, so that libc falls back to clone, whose flags the filter can read.
  { names: ['clone3'], action: errno(ENOSYS) },
  {
    names: Object.keys(NAMESPACE_SYSCALLS),
    action: TRACE,
    when: { kind: 'arg0-any-bit', bits: CLONE_NEW_FLAGS },
  },
  {
    names: Object.keys(SOCKET_SYSCALLS),
    action: TRACE,
    when: { kind: 'arg0-one-of', values: Object.values(UNCONFINED_SOCKET_FAMILIES) },
  },
  // READ_IMPLIES_EXEC makes every readable mapping executable, ADDR_NO_RANDOMIZE turns ASLR off,
  // MMAP_PAGE_ZERO maps page 0: exploit aids, refused as evidence as Docker refuses them.
  {
    names: ['personality'],
    action: TRACE,
    when: { kind: 'arg0-outside-flags', flags: PERSONALITY_FLAGS, except: PERSONALITY_QUERY },
  },
];

/** x86_64 numbers of every call a rule names. */
export const SECCOMP_SYSCALL_NUMBERS: Readonly<Record<string, number>> = {
  ...IO_URING_SYSCALLS,
  ...REFUSED_SYSCALLS,
  ...NAMESPACE_SYSCALLS,
  ...SOCKET_SYSCALLS,
  ...CLONE3_SYSCALL,
  personality: 135,
};

/**
 * Each call a rule refuses as evidence (RET_TRACE), whatever its argument test: the calls the
 * tracers must follow and record (strace's trace list, the collector's and bpftrace's refused list).
 */
export const SECCOMP_TRACED_NAMES: readonly string[] = SECCOMP_RULES.filter(
  (rule) => rule.action.kind === 'trace',
).flatMap((rule) => rule.names);

/** Each call the filter refuses as evidence (RET_TRACE), by number: how a tracer that sees only the number names it. */
export const SECCOMP_REFUSED_NAMES: Readonly<Record<number, string>> = Object.fromEntries(
  SECCOMP_TRACED_NAMES.map((name) => [SECCOMP_SYSCALL_NUMBERS[name], name]),
);

/** Every value of arg0 a rule lets through, for a condition with few of them (the personalities). */
export function allowedValues(when: Extract<SeccompCondition, { kind: 'arg0-outside-flags' }>): number[] {
  const values = [0];
  for (const flag of when.flags) for (const v of [...values]) values.push(v | flag);
  return [...values, when.except];
}
