import { posix } from 'node:path';
import { isRecordedEnvName, recordedEnv } from '../../evidence/exec-env.js';
import { REFUSAL_ERRNO, REFUSED_SYSCALLS, SECCOMP_TRACED_NAMES } from '../../evidence/seccomp-policy.js';
import { isNamespaceFlag } from '../../evidence/syscall-flags.js';
import type { SocketAddress, SysEvent } from '../../evidence/types.js';
import { judgedPath } from '../resolved-path.js';
import type { ParsedCall } from './strace-line.js';
import {
  decodeEscapes,
  parseFd,
  parseFlags,
  parseQuoted,
  parseStringArray,
  structFlags,
} from './strace-syntax.js';

/** What a call says about a resource; the parser adds seq, time and the acting process. */
export type EventDraft = Omit<SysEvent, 'seq' | 'ts' | 'pid' | 'ppid' | 'exe'>;

type Resolved = { path?: string; truncated: boolean };

/** The process-changing calls the parser handles itself, and those it turns into events below. */
export const CLONE_CALLS = new Set(['clone', 'clone3', 'fork', 'vfork']);
export const CWD_CALLS = new Set(['chdir', 'fchdir']);

export const OPEN_CALLS = new Set(['open', 'creat', 'openat', 'openat2']);

/** Calls that return a descriptor of a file another descriptor holds: the parser's descriptor table. */
export const DUP_CALLS = new Set(['dup', 'dup2', 'dup3']);
/** fcntl's commands that do the same (issue 33); its other commands return no descriptor. */
const FCNTL_DUPS = new Set(['F_DUPFD', 'F_DUPFD_CLOEXEC']);

/** Whether a call returned a copy of another descriptor, and whether the copy closes on exec. */
export function descriptorCopy(call: ParsedCall): { cloexec: boolean } | null {
  if (DUP_CALLS.has(call.name)) return { cloexec: call.args.some((arg) => /\bO_CLOEXEC\b/.test(arg)) };
  const command = call.args[1];
  if (call.name === 'fcntl' && command !== undefined && FCNTL_DUPS.has(command))
    return { cloexec: command === 'F_DUPFD_CLOEXEC' };
  return null;
}

/**
 * A descriptor copy onto standard input or output, as an event: how a shell redirects a command (or
 * itself, for a builtin's `while read … < f`) and joins a pipe's ends. The file it now reads or
 * writes, or the pipe's inode (`pipe:[N]`); null for any other copy.
 */
export function stdioCopy(call: ParsedCall): EventDraft | null {
  const fd = call.result.value;
  if ((fd !== 0 && fd !== 1) || descriptorCopy(call) === null) return null;
  const held = call.result.fdPath ?? '';
  const pipe = /^(?:pipe|socket):\[(\d+)\]$/.exec(held);
  return {
    kind: 'other',
    syscall: call.name,
    result: fd,
    ...(pipe ? { pipe: Number(pipe[1]) } : held.startsWith('/') ? { path: held } : {}),
  };
}

/** An open by file handle: no path argument, only the file `-y` names. */
export const HANDLE_OPEN = 'open_by_handle_at';

/**
 * Evasive mechanisms, recorded as `other` events for the evasion rules: io_uring runs opens and
 * reads without their system calls, memfd_create makes a file with no path, and socketcall is the
 * i386 door to connect and sendto.
 */
const MECHANISM_CALLS = new Set([
  'io_uring_setup',
  'io_uring_enter',
  'io_uring_register',
  'memfd_create',
  'socketcall',
]);

// [dirfd index, path index, second dirfd index, second path index]; null where the call has none.
const WRITE_META: Record<string, [number | null, number, (number | null)?, number?]> = {
  unlink: [null, 0],
  unlinkat: [0, 1],
  rmdir: [null, 0],
  mkdir: [null, 0],
  mkdirat: [0, 1],
  chmod: [null, 0],
  fchmodat: [0, 1],
  fchmodat2: [0, 1],
  chown: [null, 0],
  lchown: [null, 0],
  fchownat: [0, 1],
  truncate: [null, 0],
  rename: [null, 0, null, 1],
  renameat: [0, 1, 2, 3],
  renameat2: [0, 1, 2, 3],
  link: [null, 0, null, 1],
  linkat: [0, 1, 2, 3],
};

// The mode argument of the chmod family: the setuid and setgid bits are the rules' concern.
const MODE_ARG: Record<string, number> = { chmod: 1, fchmod: 1, fchmodat: 2, fchmodat2: 2 };

/** The calls that signal a process or open a pidfd on it; the first argument names it (tgkill: its thread group). */
export const SIGNAL_CALLS = ['kill', 'tkill', 'tgkill', 'rt_sigqueueinfo', 'rt_tgsigqueueinfo', 'pidfd_open'];
const TARGET_CALLS = new Set(['process_vm_readv', 'process_vm_writev', ...SIGNAL_CALLS]);

const PRIVILEGE_CALLS = new Set([
  'setuid',
  'setgid',
  'setreuid',
  'setregid',
  'setresuid',
  'setresgid',
  'setgroups',
  'capset',
  'ptrace',
  'mount',
  'umount2',
  'init_module',
  'finit_module',
  'delete_module',
  'bpf',
  'unshare',
  'setns',
  // Lets a process stall the kernel on a page fault of its choosing: a kernel-exploit primitive.
  'userfaultfd',
  // Another process's memory read or written without /proc/<pid>/mem or ptrace.
  'process_vm_readv',
  'process_vm_writev',
  // A signal or a pidfd aimed at a process: refused (EPERM) for one outside the run's own user, the
  // sandbox's init and the harness's bridge, which the agent must not stop or reach.
  ...SIGNAL_CALLS,
  // What a pidfd does: signal its process, or copy one of its descriptors (ptrace's permission).
  'pidfd_send_signal',
  'pidfd_getfd',
  // The calls the sandbox's seccomp filter refuses whatever their arguments (src/evidence/seccomp-policy.ts):
  // each refused attempt is an event.
  ...Object.keys(REFUSED_SYSCALLS),
  // Refused for an unusual value (READ_IMPLIES_EXEC, ADDR_NO_RANDOMIZE, ...); the query and the
  // filter's allowed values are recorded too, with the flags, and left to the rules.
  'personality',
]);

/**
 * Every call a seccomp rule refuses as evidence: strace follows them all (the filter refuses them
 * with ENOSYS, which strace prints), and one no other draft names is a privilege event, so that a
 * rule added to the filter is recorded with nothing else to change.
 */
const SECCOMP_TRACED = new Set(SECCOMP_TRACED_NAMES);

// Legacy calls absent on some architectures (arm64 has only the *at forms) and calls newer than
// strace 6.1: a leading `?` tells strace not to fail when it does not know one.
const OPTIONAL_CALLS = new Set([
  'dup2',
  'fork',
  'vfork',
  'open',
  'creat',
  'unlink',
  'rename',
  'renameat',
  'mkdir',
  'rmdir',
  'chmod',
  'chown',
  'lchown',
  'link',
  'symlink',
  'fchmodat2',
  'socketcall',
]);

/** Every call the strace command line asks for. */
export const TRACED_SYSCALLS = [
  'execve',
  'execveat',
  ...CLONE_CALLS,
  ...CWD_CALLS,
  ...OPEN_CALLS,
  HANDLE_OPEN,
  ...DUP_CALLS,
  // Every fcntl stops under strace (a filter cannot pick F_DUPFD): measured in the tracer bench.
  'fcntl',
  ...Object.keys(WRITE_META),
  'fchmod',
  'symlink',
  'symlinkat',
  'connect',
  'sendto',
  'bind',
  'socket',
  ...PRIVILEGE_CALLS,
  ...MECHANISM_CALLS,
  ...SECCOMP_TRACED,
]
  .filter((name, i, all) => all.indexOf(name) === i)
  .map((name) => (OPTIONAL_CALLS.has(name) ? `?${name}` : name));

/** Resolves a path argument against a dirfd argument (or the cwd) to an absolute, normalised path. */
export function resolveAt(
  dirToken: string | undefined | null,
  pathToken: string | undefined,
  cwd: string,
): Resolved {
  const quoted = parseQuoted(pathToken);
  if (!quoted) return { truncated: false };
  const base = dirToken === undefined || dirToken === null ? cwd : dirBase(dirToken, cwd);
  return { path: resolvePath(base, quoted.value), truncated: quoted.truncated };
}

function dirBase(token: string, cwd: string): string | undefined {
  if (token.startsWith('AT_FDCWD')) return cwd;
  const fd = parseFd(token);
  if (!fd) return undefined;
  return fd.fd === 'AT_FDCWD' ? cwd : fd.path;
}

/** Absolute paths stand alone; relative ones need an absolute base, else they stay as written. */
export function resolvePath(base: string | undefined, path: string): string {
  if (path.startsWith('/')) {
    // Already normal unless it has //, a . or .. segment, or a trailing slash.
    if (!/\/\/|\/\.\.?(\/|$)|.\/$/.test(path)) return path;
    return posix.normalize(path).replace(/(.)\/$/, '$1');
  }
  if (base === undefined || !base.startsWith('/')) return path;
  return posix.resolve(base, path);
}

/** Maps a finished call to an event draft; null for calls that name no resource. */
export function draftEvent(call: ParsedCall, cwd: string): EventDraft | null {
  const { name, args } = call;
  const base = { syscall: name, ...(call.result.value === undefined ? {} : { result: call.result.value }) };
  // A call the filter refuses whatever its arguments did nothing: the refusal is the event, a
  // privilege one as the collector records it, whatever family the call belongs to otherwise (a
  // refused open_by_handle_at opened nothing, and the host-call rule reads privilege events).
  if (name in REFUSED_SYSCALLS && call.result.value === -REFUSAL_ERRNO)
    return privilegeDraft(call, cwd, base);
  if (name === 'execve' || name === 'execveat') return execDraft(call, cwd, base);
  if (OPEN_CALLS.has(name)) return openDraft(call, cwd, base);
  if (name === HANDLE_OPEN) {
    const access = openAccess(parseFlags(args[2]));
    return { ...base, kind: 'open', access, ...judgedPath(undefined, call.result.fdPath) };
  }
  if (name === 'symlink' || name === 'symlinkat') return symlinkDraft(call, cwd, base);
  const meta = WRITE_META[name];
  if (meta) {
    const [dir, path, dir2, path2] = meta;
    const first = resolveAt(dir === null ? null : args[dir], args[path], cwd);
    const second =
      path2 === undefined ? undefined : resolveAt(dir2 == null ? null : args[dir2], args[path2], cwd);
    return withMode(call, withPaths({ ...base, kind: 'write-meta' }, first, second));
  }
  if (name === 'fchmod') {
    // `-y` names the descriptor's file: fchmod(3</w/x>, 04755). Pipes, sockets and memfds have
    // no path (`pipe:[…]`, `/memfd:…`): the mode is still recorded, with no path to misjudge.
    const fd = parseFd(args[0]);
    const file = fd?.path?.startsWith('/') && memfdName(fd.path) === undefined ? fd.path : undefined;
    return withMode(call, { ...base, kind: 'write-meta', ...(file ? { path: file } : {}) });
  }
  if (name === 'socket') return { ...base, kind: 'other', flags: socketFlags(args) };
  if (name === 'connect' || name === 'sendto') {
    const addr = parseSockaddr(args[name === 'connect' ? 1 : 4], cwd);
    return addr ? { ...base, kind: 'connect', addr } : null;
  }
  // The local address a socket takes: which loopback ports the run's own servers hold.
  if (name === 'bind') {
    const addr = parseSockaddr(args[1], cwd);
    return addr ? { ...base, kind: 'other', addr } : null;
  }
  if (PRIVILEGE_CALLS.has(name)) return privilegeDraft(call, cwd, base);
  if (name === 'memfd_create') {
    const label = parseQuoted(args[0]);
    return { ...base, kind: 'other', ...(label ? { path: `memfd:${label.value}` } : {}) };
  }
  if (MECHANISM_CALLS.has(name)) return { ...base, kind: 'other' };
  if (SECCOMP_TRACED.has(name)) return privilegeDraft(call, cwd, base);
  return null;
}

type Base = { syscall: string; result?: number };

function execDraft(call: ParsedCall, cwd: string, base: Base): EventDraft {
  const at = call.name === 'execveat';
  const argv = parseStringArray(call.args[at ? 2 : 1]);
  const draft: EventDraft = { ...base, kind: 'exec', cwd, ...execEnv(call.args[at ? 3 : 2]) };
  if (argv) draft.argv = argv.values;
  const fd = at ? parseFd(call.args[0]) : null;
  if (fd && typeof fd.fd === 'number' && parseQuoted(call.args[1])?.value === '') {
    // fexecve: execveat(fd, "", ..., AT_EMPTY_PATH) runs the descriptor itself; the kernel calls it
    // /dev/fd/N, and `-y` names what it is (a memfd shows as `/memfd:NAME`).
    const written = `/dev/fd/${fd.fd}`;
    const path = fd.path === undefined ? written : (memfdName(fd.path) ?? fd.path);
    return withPaths(
      { ...draft, ...(path === written ? {} : { path_as_written: written }) },
      {
        path,
        truncated: argv?.truncated ?? false,
      },
    );
  }
  const target = resolveAt(at ? call.args[0] : null, call.args[at ? 1 : 0], cwd);
  return withPaths(draft, { path: target.path, truncated: target.truncated || (argv?.truncated ?? false) });
}

/**
 * The recorded loader and interpreter variables of the environment strace printed in full
 * (`-e abbrev=!execve,execveat`); cut where strace cut one of them or left entries out.
 */
function execEnv(token: string | undefined): Pick<EventDraft, 'env' | 'env_truncated'> {
  const entries = parseStringArray(token);
  if (!entries) return {};
  const cutRecorded = entries.values.some((entry, index) => {
    const at = entry.indexOf('=');
    return entries.cut[index] === true && isRecordedEnvName(at < 0 ? entry : entry.slice(0, at));
  });
  const { env, truncated } = recordedEnv(entries.values, entries.more || cutRecorded);
  return { env, ...(truncated ? { env_truncated: true } : {}) };
}

/** `memfd:NAME` for the path `-y` gives a memfd (`/memfd:NAME`), else undefined. */
export function memfdName(fdPath: string): string | undefined {
  return fdPath.startsWith('/memfd:') ? fdPath.slice(1) : undefined;
}

function openDraft(call: ParsedCall, cwd: string, base: Base): EventDraft {
  const { name, args } = call;
  const at = name === 'openat' || name === 'openat2';
  const target = resolveAt(at ? args[0] : null, args[at ? 1 : 0], cwd);
  let access: 'read' | 'write' | 'create' = 'create';
  if (name !== 'creat') {
    const flags = name === 'openat2' ? structFlags(args[2]) : parseFlags(args[at ? 2 : 1]);
    access = openAccess(flags);
  }
  const draft = withPaths({ ...base, kind: 'open', access }, target);
  // `-y` names the file the returned descriptor holds: what the kernel resolved the path to.
  const literal = parseQuoted(args[at ? 1 : 0])?.value;
  return { ...draft, ...judgedPath(draft.path, call.result.fdPath, literal) };
}

/** O_CREAT wins over the access mode: a call that may create a file is a create. */
export function openAccess(flags: Set<string>): 'read' | 'write' | 'create' {
  if (flags.has('O_CREAT')) return 'create';
  if (flags.has('O_WRONLY') || flags.has('O_RDWR')) return 'write';
  return 'read';
}

function symlinkDraft(call: ParsedCall, cwd: string, base: Base): EventDraft {
  const at = call.name === 'symlinkat';
  const link = resolveAt(at ? call.args[1] : null, call.args[at ? 2 : 1], cwd);
  // A relative target is relative to the link's own directory, not to the caller's cwd.
  const target = resolveAt(null, call.args[0], link.path ? posix.dirname(link.path) : cwd);
  return withPaths({ ...base, kind: 'write-meta' }, target, link);
}

// The setid calls whose arguments are all ids (setgroups takes a list, setfsuid returns the old id).
const ID_CALLS = new Set(['setuid', 'setgid', 'setreuid', 'setregid', 'setresuid', 'setresgid']);

function privilegeDraft(call: ParsedCall, cwd: string, base: Base): EventDraft {
  const draft: EventDraft = { ...base, kind: 'privilege' };
  if (ID_CALLS.has(call.name)) {
    const ids = call.args.map((a) => (/^-?\d+$/.test(a) ? Number(a) : Number.NaN));
    if (ids.length > 0 && ids.every(Number.isSafeInteger)) draft.ids = ids;
  }
  if (call.name === 'mount') return withPaths(draft, resolveAt(null, call.args[1], cwd));
  if (call.name === 'umount2') return withPaths(draft, resolveAt(null, call.args[0], cwd));
  if (call.name === 'finit_module' || call.name === 'setns') {
    const fd = parseFd(call.args[0]);
    if (fd?.path) draft.path = fd.path;
  }
  if (TARGET_CALLS.has(call.name)) {
    const target = targetPid(call.args[0]);
    if (target) draft.target_pid = target.named;
  }
  if (call.name === 'personality') {
    // personality(PER_LINUX|READ_IMPLIES_EXEC): the flags past the base persona; a value strace
    // cannot name stays as it printed it (0x1 /* PER_??? */ → 0x1).
    const flags = [...parseFlags(call.args[0])].map((f) => f.replace(/\s*\/\*.*\*\/$/, ''));
    const named = flags.filter((f) => f !== 'PER_LINUX' && f !== '');
    if (named.length > 0) draft.flags = named;
  }
  const nsArg = call.name === 'unshare' ? 0 : call.name === 'setns' ? 1 : undefined;
  if (nsArg !== undefined) {
    const flags = namespaceFlags(parseFlags(call.args[nsArg]));
    if (flags.length > 0) draft.flags = flags;
  }
  return draft;
}

/**
 * A pid argument as the caller named it, and as the host numbers it: `--decode-pids=pidns` adds
 * `/* N in strace's PID NS *\/` where the two differ.
 */
export function targetPid(token: string | undefined): { named: number; host: number } | undefined {
  const match = /^(-?\d+)(?: \/\* (\d+) in strace's PID NS \*\/)?$/.exec(token ?? '');
  if (!match) return undefined;
  const named = Number(match[1]);
  return { named, host: match[2] === undefined ? named : Number(match[2]) };
}

/** The CLONE_NEW* names among a call's flags (clone, clone3, unshare, setns), in a stable order. */
export function namespaceFlags(flags: Iterable<string>): string[] {
  return [...flags].filter(isNamespaceFlag).sort();
}

/** socket(AF_PACKET, SOCK_RAW|SOCK_CLOEXEC, htons(ETH_P_ALL)): domain, type and a named protocol. */
function socketFlags(args: readonly string[]): string[] {
  const out: string[] = [];
  if (args[0] !== undefined) out.push(args[0]);
  for (const flag of parseFlags(args[1]))
    if (flag.startsWith('SOCK_') && !/_(CLOEXEC|NONBLOCK)$/.test(flag)) out.push(flag);
  const proto = args[2];
  if (proto === 'IPPROTO_ICMP' || proto === 'IPPROTO_ICMPV6') out.push(proto);
  return out;
}

/** Adds the mode of a chmod-family call: strace prints it in octal (`04755`). */
function withMode(call: ParsedCall, draft: EventDraft): EventDraft {
  const index = MODE_ARG[call.name];
  const token = index === undefined ? undefined : call.args[index];
  if (token !== undefined && /^0[0-7]*$/.test(token)) draft.mode = Number.parseInt(token, 8);
  return draft;
}

function withPaths(draft: EventDraft, first: Resolved, second?: Resolved): EventDraft {
  if (first.path !== undefined) draft.path = first.path;
  if (second?.path !== undefined) draft.path2 = second.path;
  if (first.truncated || second?.truncated) draft.truncated = true;
  return draft;
}

/** `{sa_family=AF_INET, sin_port=htons(9), sin_addr=inet_addr("127.0.0.1")}` and its inet6/unix kin. */
export function parseSockaddr(token: string | undefined, cwd: string): SocketAddress | null {
  if (token === undefined || !token.startsWith('{')) return null;
  const family = /sa_family=(AF_\w+)/.exec(token)?.[1];
  const port = /sin6?_port=htons\((\d+)\)/.exec(token)?.[1];
  if (family === 'AF_INET') {
    const ip = /sin_addr=inet_addr\("([^"]*)"\)/.exec(token)?.[1];
    return {
      family: 'inet',
      ...(ip === undefined ? {} : { ip }),
      ...(port === undefined ? {} : { port: Number(port) }),
    };
  }
  if (family === 'AF_INET6') {
    const ip = /inet_pton\(AF_INET6,\s*"([^"]*)"/.exec(token)?.[1];
    return {
      family: 'inet6',
      ...(ip === undefined ? {} : { ip }),
      ...(port === undefined ? {} : { port: Number(port) }),
    };
  }
  if (family === 'AF_UNIX') {
    const sun = /sun_path=(@?)"((?:[^"\\]|\\.)*)"/s.exec(token);
    if (!sun) return { family: 'unix' };
    const name = decodeEscapes(sun[2] as string);
    // Abstract sockets live in no directory: keep strace's leading @ as their name.
    return { family: 'unix', path: sun[1] === '@' ? `@${name}` : resolvePath(cwd, name) };
  }
  return null;
}
