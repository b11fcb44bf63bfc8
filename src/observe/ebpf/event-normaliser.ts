import { posix } from 'node:path';
import { MAX_EXEC_ENV, recordedEnv } from '../../evidence/exec-env.js';
import {
  CLONE3_SYSCALL,
  NAMESPACE_SYSCALL_NAMES,
  SECCOMP_REFUSED_NAMES,
  SOCKET_SYSCALLS,
  UNCONFINED_SOCKET_FAMILIES,
} from '../../evidence/seccomp-policy.js';
import { namespaceFlagNames, socketFlagNames } from '../../evidence/syscall-flags.js';
import { compatSyscallName, I386_SYSCALL_NAMES } from '../../evidence/syscall-mechanism.js';
import type { SocketAddress, SysEvent } from '../../evidence/types.js';
import { DescriptorTable, judgedPath } from '../resolved-path.js';
import type { RawEvent } from './event-assembler.js';
import { joinChunks, resolveAgainst, type Text, walkedDirectory } from './path-parts.js';
import {
  AF_INET,
  AF_INET6,
  AF_UNIX,
  AT_FDCWD,
  EXEC_ARGC_MASK,
  EXEC_ENV_CUT,
  EXEC_ENV_RECORDED,
  EXEC_ENV_SHIFT,
  EXEC_RAN_OTHER,
  FORK_CALLS,
  MAX_ARGV,
  SLOT_ARGV,
  SLOT_ENV,
  SLOT_EXE_NAME,
  SLOT_PATH,
  SLOT_PATH2,
  SLOT_UNIX_ABSTRACT,
  SLOT_UNIX_PATH,
  SLOT_WALK1,
  SLOT_WALK2,
  WALK_INCOMPLETE,
} from './record-format.js';
import type { CallRecord, ForkRecord, NetRecord } from './record-parser.js';
import { execThrough, identity, openedFile } from './resolved-file.js';
import { ipv4FromWord, ipv6FromWords, portFromNetwork } from './socket-address.js';
import {
  CLONE_FILES,
  CODE_BIND,
  CODE_EXECVE,
  CODE_EXECVEAT,
  CODE_IA32_CONNECT,
  CODE_IA32_OPEN,
  CODE_IA32_OTHER,
  CODE_IO_URING_OP,
  CODE_IO_URING_OPEN,
  CODE_SECCOMP_REFUSED,
  CODE_SENDTO,
  callByCode,
  F_DUPFD_CLOEXEC,
  IO_URING_OPS,
  O_CLOEXEC,
  O_CREAT,
  O_RDWR,
  O_TRUNC,
  O_WRONLY,
  TARGET_SELF,
  TARGET_SELF_KNOWN,
  type TracedCall,
  unpackSocketFlags,
} from './syscall-table.js';

type ProcessState = {
  ppid: number;
  exe: string | undefined;
  /** Created by a traced fork; false for a process that joined the cgroup (the launcher). */
  forked: boolean;
  execed: boolean;
  /** What its descriptors hold, from the opens the kernel resolved (write-meta through one). */
  files: DescriptorTable;
};

type Draft = Omit<SysEvent, 'seq' | 'ts' | 'pid' | 'ppid' | 'exe'>;

/**
 * Turns raw kernel records, in time order, into SysEvents: resolves paths, decodes addresses and
 * keeps the process table (parent and executable per pid, inherited across fork).
 */
export class EventNormaliser {
  private readonly procs = new Map<number, ProcessState>();
  /** Directory id → path, from complete walks: later walks stop at these. */
  private readonly dirs = new Map<number, string>();
  private seq = 0;

  /** @param startNs CLOCK_MONOTONIC nanoseconds at which the window opened (ts 0). */
  constructor(private readonly startNs: number) {}

  push(raw: RawEvent): SysEvent | null {
    switch (raw.type) {
      case 'fork':
        return this.fork(raw);
      case 'exit': {
        const status = raw.status;
        // Wait status: exit code in bits 8-15, or the terminating signal in bits 0-6 (shell's 128+n).
        const code = (status & 0x7f) === 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f);
        const event = this.emit(raw.t, raw.pid, undefined, raw.comm, {
          kind: 'exit',
          syscall: 'exit',
          result: code,
        });
        this.procs.delete(raw.pid);
        return event;
      }
      case 'net':
        return this.connect(raw);
      case 'call':
        switch (raw.code) {
          case CODE_EXECVE:
          case CODE_EXECVEAT:
            return this.exec(raw);
          case CODE_IA32_OTHER:
            return this.emit(raw.t, raw.pid, raw.ppid, raw.comm, {
              kind: 'other',
              syscall: compatSyscallName('ia32', raw.flags, I386_SYSCALL_NAMES),
              result: raw.ret,
            });
          case CODE_SECCOMP_REFUSED:
            // socket is refused only for a family no network namespace confines: as the socket it was.
            if (raw.flags === SOCKET_SYSCALLS.socket)
              return this.emit(raw.t, raw.pid, raw.ppid, raw.comm, {
                kind: 'other',
                syscall: 'socket',
                flags: Object.keys(UNCONFINED_SOCKET_FAMILIES),
                result: raw.ret,
              });
            // clone and unshare are refused only when they ask for a new namespace, which one
            // unknown; clone3 is recorded only when its clone_args ask for one.
            if (raw.flags === CLONE3_SYSCALL.clone3)
              return this.emit(raw.t, raw.pid, raw.ppid, raw.comm, {
                kind: 'privilege',
                syscall: 'clone3',
                flags: ['CLONE_NEW*'],
                result: raw.ret,
              });
            return this.emit(raw.t, raw.pid, raw.ppid, raw.comm, {
              kind: 'privilege',
              syscall: SECCOMP_REFUSED_NAMES[raw.flags] ?? `syscall_${raw.flags}`,
              ...(raw.flags in NAMESPACE_SYSCALL_NAMES ? { flags: ['CLONE_NEW*'] } : {}),
              result: raw.ret,
            });
          case CODE_IO_URING_OP:
            // Recorded at submission: the operation's result is not known yet.
            return this.emit(raw.t, raw.pid, raw.ppid, raw.comm, {
              kind: 'other',
              syscall: `io_uring:${IO_URING_OPS[raw.flags] ?? raw.flags}`,
            });
          default:
            return this.pathCall(raw);
        }
    }
  }

  private fork(raw: ForkRecord): SysEvent {
    const { t, parent, child, comm } = raw;
    const syscall = FORK_CALLS[raw.call] || 'clone';
    const draft: Draft = { kind: 'fork', syscall, result: child, ...namespaces(raw.cloneFlags, syscall) };
    // A failed fork names no child: the event is the caller's.
    if (child <= 0) return this.emit(t, parent, undefined, comm, draft);
    const parentState = this.procs.get(parent);
    const exe = parentState?.exe ?? comm;
    const files = parentState?.files ?? new DescriptorTable();
    this.procs.set(child, {
      ppid: parent,
      exe,
      forked: true,
      execed: false,
      files: raw.cloneFlags & CLONE_FILES ? files : new DescriptorTable(files),
    });
    return this.emit(t, child, parent, comm, draft);
  }

  private exec(raw: CallRecord): SysEvent | null {
    const state = this.state(raw.pid, raw.ppid);
    // Read even for an event that is dropped: later walks may refer to this one.
    const cwd = this.directory(raw.parts, SLOT_WALK1, raw.walk1, raw.dir1);
    const through = raw.ret >= 0 ? this.directory(raw.parts, SLOT_WALK2, raw.walk2, raw.dir2) : undefined;
    // The launcher that moved itself into the cgroup searches PATH with failing execs before the
    // one that starts the traced command: those are not the command's doing.
    if (raw.ret < 0 && !state.forked && !state.execed) return null;
    const file = joinChunks(raw.parts, SLOT_PATH);
    let truncated = Boolean(cwd?.truncated || file?.truncated);
    let path = file?.text ?? '';
    const dirfd = raw.walk2;
    if (raw.ret < 0 && raw.code === CODE_EXECVEAT && dirfd !== AT_FDCWD && !path.startsWith('/')) {
      // What the kernel itself calls such a file (bprm->filename).
      path = path === '' ? `/dev/fd/${dirfd}` : `/dev/fd/${dirfd}/${path}`;
    } else {
      path = resolveAgainst(cwd?.text, path);
    }
    const argc = Math.max(0, raw.flags) & EXEC_ARGC_MASK;
    const argv: string[] = [];
    for (let index = 0; index < Math.min(argc, MAX_ARGV); index++) {
      const arg = joinChunks(raw.parts, SLOT_ARGV + index, 1);
      if (!arg || arg.truncated) truncated = true;
      argv.push(arg?.text ?? '');
    }
    if (argc > MAX_ARGV) truncated = true;
    const env = execEnv(raw);
    // A memfd's own name says more than the descriptor path it was run through ("3" as a name).
    const memfd = raw.ret >= 0 ? joinChunks(raw.parts, SLOT_EXE_NAME, 1) : undefined;
    let written = memfd && memfd.text !== path ? path : undefined;
    // The kernel ran another file than the one named: the walk is that program's, not the file's.
    const ranOther = raw.ret >= 0 && raw.flags >= 0 && (raw.flags & EXEC_RAN_OTHER) !== 0;
    const ran = ranOther && through ? openedFile(raw.parts, through, raw.walk2) : undefined;
    if (ran?.truncated) truncated = true;
    if (memfd) path = memfd.text;
    else if (ranOther) {
      // Named as written; the program the kernel ran is `interpreter`.
    } else if (through) {
      const resolved = execThrough(raw.parts, through, raw.walk2, path);
      if (resolved?.truncated) truncated = true;
      const judged = judgedPath(path, resolved?.text);
      path = judged.path ?? path;
      written = judged.path_as_written;
    }
    if (raw.ret >= 0) {
      state.exe = path;
      state.execed = true;
      state.files.exec();
    }
    return this.emit(raw.t, raw.pid, raw.ppid, raw.comm, {
      kind: 'exec',
      syscall: raw.code === CODE_EXECVEAT ? 'execveat' : 'execve',
      path,
      ...(written === undefined ? {} : { path_as_written: written }),
      argv,
      ...env,
      ...(ran && ran.text !== path ? { interpreter: ran.text } : {}),
      ...(cwd ? { cwd: cwd.text } : {}),
      result: raw.ret,
      // The identity the walk gave is the program's the kernel ran, not the named file's.
      ...(ranOther ? {} : identity(raw)),
      ...(truncated ? { truncated } : {}),
    });
  }

  private pathCall(raw: CallRecord): SysEvent | null {
    // In the order the probe walked them: the second walk may stop at the first one's directory.
    const base1 = this.directory(raw.parts, SLOT_WALK1, raw.walk1, raw.dir1);
    const base2 = this.directory(raw.parts, SLOT_WALK2, raw.walk2, raw.dir2);
    const call = callOf(raw.code);
    if (!call) return null;
    if (call.fdPath) return this.fdCall(raw, call, base1);
    const second = resolvedPath(raw.parts, SLOT_PATH2, base2?.text);
    // A symlink's target is stored verbatim and is relative to the link's own directory.
    const symlinkBase = call.path && !call.path.resolve && second ? posix.dirname(second.text) : undefined;
    const first = resolvedPath(raw.parts, SLOT_PATH, base1?.text ?? symlinkBase);
    // An open that succeeded: the file its descriptor holds (walk2 is the file's directory).
    const opens = (call.kind === 'open' || call.returnsFile === true) && !second;
    const opened = opens && raw.ret >= 0 ? openedFile(raw.parts, base2, raw.walk2) : undefined;
    const truncated = Boolean(
      first?.truncated ||
        second?.truncated ||
        base1?.truncated ||
        (opens ? opened?.truncated : base2?.truncated),
    );
    const files = this.state(raw.pid, raw.ppid).files;
    // A file change written through a descriptor: the file the descriptor's open resolved.
    const through = (path: string | undefined) =>
      path === undefined || call.kind !== 'write-meta' ? undefined : files.resolve(path, undefined);
    const draft: Draft = {
      kind: call.kind,
      syscall: call.name,
      // A memfd's name is not a path; `memfd:NAME` is how /proc and the exec records call it.
      ...(first && call.name === 'memfd_create' ? { path: `memfd:${first.text}` } : {}),
      ...(call.name === 'memfd_create'
        ? {}
        : judgedPath(
            first?.text,
            opened?.text ?? through(first?.text),
            joinChunks(raw.parts, SLOT_PATH)?.text,
          )),
      ...(second ? { path2: through(second.text) ?? second.text } : {}),
      ...(opened ? identity(raw) : {}),
      ...(call.kind === 'open' ? { access: openAccess(raw.flags) } : {}),
      ...carried(call, raw.flags),
      // An io_uring open is recorded at submission, before it has a result.
      ...(raw.code === CODE_IO_URING_OPEN ? {} : { result: raw.ret }),
      ...(truncated ? { truncated } : {}),
    };
    if (opens && raw.ret >= 0 && raw.code !== CODE_IO_URING_OPEN)
      files.set(
        raw.ret,
        opened?.text ?? '',
        call.when ? raw.flags === F_DUPFD_CLOEXEC : (raw.flags & O_CLOEXEC) !== 0,
      );
    // A dup teaches the descriptor table; onto standard input or output it is also an event (a
    // redirect, a pipe's end: stdioCopy in the strace parser). Another call's new descriptor holds
    // no file of the tree.
    if (call.returnsFile) {
      if (raw.ret !== 0 && raw.ret !== 1) return null;
      const stream = opened === undefined && raw.walk2 === WALK_INCOMPLETE && raw.ino > 0;
      return this.emit(raw.t, raw.pid, raw.ppid, raw.comm, {
        kind: 'other',
        syscall: call.name,
        result: raw.ret,
        ...(stream ? { pipe: raw.ino } : opened ? { path: opened.text } : {}),
      });
    }
    if (raw.ret >= 0 && (call.name === 'memfd_create' || call.name === 'socket'))
      files.set(raw.ret, '', false);
    return this.emit(raw.t, raw.pid, raw.ppid, raw.comm, draft);
  }

  /**
   * A call on a descriptor (fchmod): its path is the walk of the descriptor's own file. A walk that
   * stopped before its first step found a file outside any directory tree (a pipe, socket or
   * memfd, whose dentry is its own parent): no path, as strace gives none.
   */
  private fdCall(
    raw: CallRecord,
    call: Pick<TracedCall, 'name' | 'kind' | 'carries'>,
    file: Text | undefined,
  ): SysEvent {
    const named = file !== undefined && raw.walk1 !== WALK_INCOMPLETE;
    return this.emit(raw.t, raw.pid, raw.ppid, raw.comm, {
      kind: call.kind,
      syscall: call.name,
      ...(named ? { path: file.text } : {}),
      ...carried(call, raw.flags),
      result: raw.ret,
      ...(named && file.truncated ? { truncated: true } : {}),
    });
  }

  /** The base directory a walk field describes; a complete one is remembered under its id. */
  private directory(
    parts: ReadonlyMap<number, Buffer>,
    slot: number,
    walk: number,
    id: number,
  ): Text | undefined {
    const dir = walkedDirectory(parts, slot, walk, (ancestor) => this.dirs.get(ancestor));
    if (dir && id !== 0) {
      if (dir.truncated) this.dirs.delete(id);
      else this.dirs.set(id, dir.text);
    }
    return dir;
  }

  private connect(raw: NetRecord): SysEvent | null {
    let addr: SocketAddress;
    if (raw.family === AF_INET) {
      addr = { family: 'inet', ip: ipv4FromWord(raw.words[0]), port: portFromNetwork(raw.port) };
    } else if (raw.family === AF_INET6) {
      addr = { family: 'inet6', ip: ipv6FromWords(raw.words), port: portFromNetwork(raw.port) };
    } else if (raw.family === AF_UNIX) {
      const named = joinChunks(raw.parts, SLOT_UNIX_PATH, 1);
      const abstract = joinChunks(raw.parts, SLOT_UNIX_ABSTRACT, 1);
      addr = { family: 'unix', path: named ? named.text : `@${abstract?.text ?? ''}` };
    } else {
      return null;
    }
    if (raw.code === CODE_BIND)
      return this.emit(raw.t, raw.pid, raw.ppid, raw.comm, {
        kind: 'other',
        syscall: 'bind',
        addr,
        result: raw.ret,
      });
    return this.emit(raw.t, raw.pid, raw.ppid, raw.comm, {
      kind: 'connect',
      syscall:
        raw.code === CODE_SENDTO ? 'sendto' : raw.code === CODE_IA32_CONNECT ? 'ia32:connect' : 'connect',
      addr,
      result: raw.ret,
    });
  }

  private state(pid: number, kernelPpid: number | undefined): ProcessState {
    let state = this.procs.get(pid);
    if (!state) {
      state = {
        ppid: kernelPpid ?? 0,
        exe: undefined,
        forked: false,
        execed: false,
        files: new DescriptorTable(),
      };
      this.procs.set(pid, state);
    }
    return state;
  }

  private emit(t: number, pid: number, kernelPpid: number | undefined, comm: string, draft: Draft): SysEvent {
    const state = this.state(pid, kernelPpid);
    return {
      seq: this.seq++,
      ts: Math.max(0, Math.round((t - this.startNs) / 1000) / 1000),
      pid,
      ppid: state.ppid,
      // Path-taking calls carry no process name: their exe comes from the exec and fork records.
      exe: state.exe ?? (comm || 'unknown'),
      ...draft,
    };
  }
}

/**
 * The recorded environment of an exec record (record-format.ts EXEC_*): none where the tracer did
 * not read it (bpftrace), cut where the collector said so or an entry's chunks end full.
 */
function execEnv(raw: CallRecord): Pick<Draft, 'env' | 'env_truncated'> {
  if (raw.flags < 0 || (raw.flags & EXEC_ENV_RECORDED) === 0) return {};
  const count = Math.min((raw.flags >> EXEC_ENV_SHIFT) & 0xff, MAX_EXEC_ENV);
  let cut = (raw.flags & EXEC_ENV_CUT) !== 0;
  const entries: string[] = [];
  for (let index = 0; index < count; index++) {
    const entry = joinChunks(raw.parts, SLOT_ENV + index);
    if (!entry || entry.truncated) cut = true;
    if (entry) entries.push(entry.text);
  }
  const { env, truncated } = recordedEnv(entries, cut);
  return { env, ...(truncated ? { env_truncated: true } : {}) };
}

/** What a CALL's flags word carries for this call, as SysEvent fields (syscall-table.ts `carries`). */
function carried(
  call: Pick<TracedCall, 'name' | 'carries'>,
  flags: number,
): Pick<Draft, 'mode' | 'flags' | 'target_pid' | 'target_self'> {
  switch (call.carries) {
    case 'target': {
      // The pid as the caller named it; whether it is the caller itself where the collector knew.
      const known = Math.floor(flags / TARGET_SELF_KNOWN) % 2 === 1;
      const self = Math.floor(flags / TARGET_SELF) % 2 === 1;
      return { target_pid: flags % TARGET_SELF_KNOWN, ...(known ? { target_self: self } : {}) };
    }
    case 'mode':
      return { mode: flags };
    case 'namespaces':
      return namespaces(flags, call.name);
    case 'socket': {
      const [family, type, protocol] = unpackSocketFlags(flags);
      return { flags: socketFlagNames(family, type, protocol) };
    }
    default:
      return {};
  }
}

/** The CLONE_NEW* names of a call's flags, absent when it made or entered no namespace (as strace's side). */
function namespaces(bits: number, call: string): Pick<Draft, 'flags'> {
  const names = namespaceFlagNames(bits, call);
  return names.length > 0 ? { flags: names } : {};
}

/** The table entry of a code, or the open-like shape of the i386 and io_uring opens. */
function callOf(
  code: number,
): Pick<TracedCall, 'name' | 'kind' | 'path' | 'fdPath' | 'carries' | 'returnsFile' | 'when'> | undefined {
  if (code === CODE_IA32_OPEN) return { name: 'ia32:open', kind: 'open', path: { field: '', resolve: true } };
  if (code === CODE_IO_URING_OPEN)
    return { name: 'io_uring:OPENAT', kind: 'open', path: { field: '', resolve: true } };
  return callByCode(code);
}

function resolvedPath(
  parts: ReadonlyMap<number, Buffer>,
  slot: number,
  base: string | undefined,
): Text | undefined {
  const path = joinChunks(parts, slot);
  return path && { text: resolveAgainst(base, path.text), truncated: path.truncated };
}

/** read/write/create from open flags; O_CREAT wins, since the call may bring the file into being. */
export function openAccess(flags: number): 'read' | 'write' | 'create' {
  if (flags & O_CREAT) return 'create';
  if (flags & (O_WRONLY | O_RDWR | O_TRUNC)) return 'write';
  return 'read';
}
