import type { SysEvent } from '../../evidence/types.js';
import { judgedPath } from '../resolved-path.js';
import { CallJoiner } from './call-joiner.js';
import { type CloneIndex, type CloneRecord, cloneFlags } from './clone-index.js';
import { compatPersonality, X86_64_SYSCALL_NUMBERS } from './native-syscalls.js';
import { type ProcessState, ProcessTable } from './process-table.js';
import { type ParsedCall, parseCall, parseStraceLine, signalExitCode } from './strace-line.js';
import { parseFd, parseQuoted } from './strace-syntax.js';
import {
  CLONE_CALLS,
  CWD_CALLS,
  descriptorCopy,
  draftEvent,
  type EventDraft,
  HANDLE_OPEN,
  memfdName,
  namespaceFlags,
  OPEN_CALLS,
  resolvePath,
  stdioCopy,
  targetPid,
} from './syscall-events.js';

export type StraceParserOptions = {
  /** Working directory of the traced root process (the spawn's cwd). */
  rootCwd: string;
  /** Wall-clock ms when the observation window opened; defaults to the time of the first line. */
  startMs?: number;
  /** Who created whom, from a first pass over the whole log; without it parents are inferred. */
  clones?: CloneIndex;
  /** Called with each event as soon as it is complete. */
  onEvent?: (event: SysEvent) => void;
  /**
   * Native numbers of the traced calls, to tell 32-bit calls by the number `-n` prints; defaults to
   * the x86_64 table on x86_64 (the only host with a second, 32-bit table agentguard supports).
   */
  nativeSyscalls?: Readonly<Record<string, number>> | null;
};

export type StraceParseResult = { events: SysEvent[]; lost_events: number; warnings: string[] };

const MAX_WARNINGS = 20;

/**
 * Turns strace lines into SysEvents, one line at a time, keeping the process tree, each process's
 * cwd and exe, and the unfinished calls waiting for their second half.
 */
export class StraceParser {
  private readonly events: SysEvent[] = [];
  private readonly warnings: string[] = [];
  private readonly procs = new ProcessTable();
  private readonly joiner = new CallJoiner();
  /** Thread ids registered from their own first line, before their creator's clone returned. */
  private readonly announced = new Set<number>();
  /** Leaders whose pending execve came from another thread (strace then prints `= ?` on success). */
  private readonly movedExecs = new Set<number>();
  /** The call number of each thread's unfinished call (its resumed line may lack one). */
  private readonly pendingNr = new Map<number, number>();
  private readonly native: Readonly<Record<string, number>> | null;
  private lost = 0;
  private seq = 0;
  private startMs: number | undefined;
  private lastTime = 0;
  private sawRoot = false;

  constructor(private readonly options: StraceParserOptions) {
    this.startMs = options.startMs;
    this.native =
      options.nativeSyscalls === undefined
        ? process.arch === 'x64'
          ? X86_64_SYSCALL_NUMBERS
          : null
        : options.nativeSyscalls;
  }

  push(raw: string): void {
    if (raw.trim() === '') return;
    const line = parseStraceLine(raw);
    if (!line) {
      this.lose('unrecognised line', raw);
      return;
    }
    if (line.time !== undefined) {
      this.startMs ??= line.time;
      this.lastTime = line.time;
    }
    const time = line.time ?? this.lastTime;
    switch (line.kind) {
      case 'signal':
        break;
      case 'exited':
        this.exited(line.tid, time, line.code);
        break;
      case 'killed':
        this.exited(line.tid, time, signalExitCode(line.signal));
        break;
      case 'superseded':
        // The thread that ran execve took over the leader's id; its own id is gone.
        this.processOf(line.tid, time);
        if (line.oldTid !== line.tid) this.procs.remove(line.oldTid);
        break;
      case 'unfinished':
        if (line.nr !== undefined) this.pendingNr.set(line.movedTo ?? line.tid, line.nr);
        this.unfinished(line.tid, time, line.name, line.text, line.movedTo);
        break;
      case 'resumed': {
        const text = this.joiner.resume(line.tid, line.name, line.rest);
        const nr = line.nr ?? this.pendingNr.get(line.tid);
        this.pendingNr.delete(line.tid);
        if (text === null) this.lose('resumed call without its start', raw);
        else this.finishCall(line.tid, time, line.name, text, raw, nr);
        break;
      }
      case 'call':
        this.finishCall(line.tid, time, line.name, line.text, raw, line.nr);
        break;
    }
  }

  /** Flushes calls that never resumed (their process died mid-call) as events without a result. */
  finish(): StraceParseResult {
    const stranded = this.joiner.drain().filter((call) => !CLONE_CALLS.has(call.name));
    for (const call of stranded)
      this.finishCall(call.tid, this.lastTime, call.name, `${call.text}) = ?`, call.text);
    if (stranded.length > 0)
      this.warn(`${stranded.length} call(s) never returned; recorded without a result`);
    return this.result();
  }

  result(): StraceParseResult {
    return { events: this.events, lost_events: this.lost, warnings: [...this.warnings] };
  }

  private unfinished(tid: number, time: number, name: string, text: string, movedTo?: number): void {
    const proc = this.processOf(tid, time);
    let owner = tid;
    if (movedTo !== undefined) {
      owner = movedTo;
      this.procs.alias(owner, proc);
      this.movedExecs.add(owner);
    }
    const displaced = this.joiner.begin(owner, name, text);
    if (displaced) this.lose('call never resumed', displaced.text);
  }

  private finishCall(tid: number, time: number, name: string, text: string, raw: string, nr?: number): void {
    const call = parseCall(name, text);
    if (!call) {
      this.lose('unparseable call', raw);
      return;
    }
    // The kernel will run an interrupted call again; that run is the event.
    if (call.result.restart) return;
    const proc = this.processOf(tid, time);
    if (CLONE_CALLS.has(name)) {
      this.cloned(proc, time, call, text);
      return;
    }
    if (CWD_CALLS.has(name)) {
      this.changedDir(proc, call);
      return;
    }
    if (name.startsWith('execve') && call.result.value === undefined && this.movedExecs.delete(tid)) {
      call.result.value = 0;
    }
    const draft = draftEvent(call, proc.cwd.path);
    // Whether a process_vm_* call named the caller's own process (the host pid strace decoded).
    if (draft?.target_pid !== undefined) draft.target_self = targetPid(call.args[0])?.host === proc.pid;
    if (draft?.kind === 'exec' || draft?.kind === 'write-meta') this.throughDescriptors(proc, draft);
    this.heldFile(proc, call);
    const stdio = draft ? null : stdioCopy(call);
    if (stdio) this.emit(proc, time, stdio);
    if (!draft) return;
    if (name === 'memfd_create' && draft.path !== undefined && (draft.result ?? -1) >= 0)
      proc.memfds.set(draft.result as number, draft.path);
    if (draft.kind === 'exec' && draft.path !== undefined) this.nameFdExec(proc, draft);
    if (draft.kind === 'exec' && draft.result === 0) proc.files.exec();
    if (draft.kind === 'exec' && draft.result === 0 && draft.path !== undefined) proc.exe = draft.path;
    const personality =
      nr === undefined || !this.native ? undefined : compatPersonality(name, nr, this.native);
    if (personality) draft.syscall = `${personality}:${draft.syscall}`;
    this.emit(proc, time, draft);
  }

  /** Records the file a returned descriptor holds (`-y` names it: an open's, a dup's, a memfd's, a socket's). */
  private heldFile(proc: ProcessState, call: ParsedCall): void {
    const fd = call.result.value;
    const held = call.result.fdPath;
    if (fd === undefined || fd < 0 || held === undefined) return;
    const copy = descriptorCopy(call);
    const opens = OPEN_CALLS.has(call.name) || call.name === HANDLE_OPEN || copy !== null;
    if (!opens || memfdName(held) !== undefined) proc.files.set(fd, '', false);
    else proc.files.set(fd, held, copy?.cloexec ?? call.args.some((arg) => /\bO_CLOEXEC\b/.test(arg)));
  }

  /**
   * An exec or file change written through a descriptor (`/proc/self/fd/3/run.sh`): strace prints
   * no resolved path for those, so the descriptor's file as its open returned it stands in.
   */
  private throughDescriptors(proc: ProcessState, draft: EventDraft): void {
    if (draft.path !== undefined && draft.path_as_written === undefined) {
      Object.assign(draft, judgedPath(draft.path, proc.files.resolve(draft.path, proc.pid)));
    }
    if (draft.path2 !== undefined) draft.path2 = proc.files.resolve(draft.path2, proc.pid) ?? draft.path2;
  }

  /** An exec of /proc/self/fd/N or /dev/fd/N that names a memfd this process made: its name instead. */
  private nameFdExec(proc: ProcessState, draft: EventDraft): void {
    const fd = /^\/(?:proc\/(?:self|thread-self|(\d+))|dev)\/fd\/(\d+)$/.exec(draft.path as string);
    if (!fd || (fd[1] !== undefined && Number(fd[1]) !== proc.pid)) return;
    const name = proc.memfds.get(Number(fd[2]));
    if (name === undefined) return;
    draft.path_as_written = draft.path as string;
    draft.path = name;
  }

  /** The process a thread id belongs to, registering it (and announcing its fork) on first sight. */
  private processOf(tid: number, time: number): ProcessState {
    const known = this.procs.get(tid);
    if (known) return known;
    const origin = this.options.clones?.take(tid) ?? this.pendingCreator();
    if (origin && origin.parentTid !== tid) {
      const parent = this.processOf(origin.parentTid, time);
      const child = this.procs.addChild(parent, tid, origin.flags);
      this.announced.add(tid);
      if (child) this.emitFork(parent, child, time, origin.syscall, origin.flags);
      return child ?? parent;
    }
    if (this.sawRoot)
      this.warn(`process ${tid} appeared without a traced parent; cwd assumed to be the root's`);
    this.sawRoot = true;
    return this.procs.addOrphan(tid, this.options.rootCwd);
  }

  /** Without the clone index: the newest clone call still waiting to return is the likely parent. */
  private pendingCreator(): CloneRecord | undefined {
    const call = this.joiner.latest(CLONE_CALLS);
    return call && { parentTid: call.tid, flags: cloneFlags(call.name, call.text), syscall: call.name };
  }

  private cloned(parent: ProcessState, time: number, call: ParsedCall, text: string): void {
    const value = call.result.value;
    if (value === undefined || value === 0) return;
    const flags = cloneFlags(call.name, text);
    if (value < 0) {
      // A failed fork names no child; the event is the caller's (fork bombs, EAGAIN at limits,
      // a refused CLONE_NEWUSER).
      this.emit(parent, time, { kind: 'fork', syscall: call.name, result: value, ...nsFlags(flags) });
      return;
    }
    const tid = call.result.hostPid ?? value;
    if (this.announced.delete(tid)) {
      // Registered from its own first line; a guessed parent is corrected now that the call says.
      const child = this.procs.get(tid);
      if (child && child.pid === tid && !flags.has('CLONE_PARENT')) child.ppid = parent.pid;
      return;
    }
    this.options.clones?.take(tid);
    const child = this.procs.addChild(parent, tid, flags);
    if (child) this.emitFork(parent, child, time, call.name, flags);
  }

  private changedDir(proc: ProcessState, call: ParsedCall): void {
    if (call.result.value !== 0) return;
    if (call.name === 'chdir') {
      const target = parseQuoted(call.args[0]);
      if (target) proc.cwd.path = resolvePath(proc.cwd.path, target.value);
    } else {
      const fd = parseFd(call.args[0]);
      if (fd?.path?.startsWith('/')) proc.cwd.path = fd.path;
    }
  }

  private exited(tid: number, time: number, code: number): void {
    const proc = this.processOf(tid, time);
    if (tid === proc.pid) this.emit(proc, time, { kind: 'exit', syscall: 'exit', result: code });
    this.procs.remove(tid);
  }

  private emitFork(
    parent: ProcessState,
    child: ProcessState,
    time: number,
    syscall: string,
    flags: ReadonlySet<string>,
  ): void {
    this.emit(child, time, { kind: 'fork', syscall, result: child.pid, ...nsFlags(flags) }, parent.exe);
  }

  private emit(proc: ProcessState, time: number, draft: EventDraft, exe = proc.exe): void {
    const ts = Math.round((time - (this.startMs ?? time)) * 1000) / 1000;
    const { kind, syscall, ...details } = draft;
    const event: SysEvent = {
      seq: this.seq++,
      ts,
      pid: proc.pid,
      ppid: proc.ppid,
      exe,
      kind,
      syscall,
      ...details,
    };
    this.events.push(event);
    this.options.onEvent?.(event);
  }

  private lose(reason: string, raw: string): void {
    this.lost++;
    this.warn(`${reason}: ${raw.slice(0, 200)}`);
  }

  private warn(message: string): void {
    if (this.warnings.length < MAX_WARNINGS) this.warnings.push(message);
    else if (this.warnings.length === MAX_WARNINGS) this.warnings.push('further warnings suppressed');
  }
}

/** A clone's namespace flags as an event field, absent when it made no new namespace. */
function nsFlags(flags: ReadonlySet<string>): { flags?: string[] } {
  const ns = namespaceFlags(flags);
  return ns.length > 0 ? { flags: ns } : {};
}
