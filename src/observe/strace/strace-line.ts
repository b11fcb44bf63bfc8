import { constants } from 'node:os';
import { decodeEscapes, splitTopLevel } from './strace-syntax.js';

/**
 * One line of `strace -f -ttt -o FILE` output, classified. Calls interrupted by another process's
 * output come as an `unfinished` line and a later `resumed` line for the same thread id.
 */
export type StraceLine =
  | { kind: 'call'; tid: number; time?: number; nr?: number; name: string; text: string }
  | {
      kind: 'unfinished';
      tid: number;
      time?: number;
      nr?: number;
      name: string;
      text: string;
      movedTo?: number;
    }
  | { kind: 'resumed'; tid: number; time?: number; nr?: number; name: string; rest: string }
  | { kind: 'exited'; tid: number; time?: number; code: number }
  | { kind: 'killed'; tid: number; time?: number; signal: string }
  | { kind: 'superseded'; tid: number; time?: number; oldTid: number }
  | { kind: 'signal'; tid: number; time?: number };

/** A complete call: arguments as printed, and the decoded return value. */
export type ParsedCall = { name: string; args: string[]; result: CallResult };

export type CallResult = {
  /** Return value; a negative errno on failure; absent when strace printed `?`. */
  value?: number;
  errno?: string;
  /** The kernel will run the call again (ERESTART*): it is not a finished call. */
  restart: boolean;
  /** A pid result translated into strace's pid namespace (`--decode-pids=pidns`). */
  hostPid?: number;
  /** The file a returned descriptor holds, as `-y` names it: the path the kernel resolved. */
  fdPath?: string;
};

// `-n` puts the call's number in brackets after the time (also before `+++` lines, where it means nothing).
const HEAD = /^(\d+)\s+(?:(\d+)\.(\d+)\s+)?(?:\[\s*(\d+)\]\s)?(.*)$/s;
const UNFINISHED = ' <unfinished ...>';
const PID_CHANGED = / <pid changed to (\d+) \.\.\.>$/;

// Kernel-internal codes that only ever reach strace, never user space; not in os.constants.errno.
const RESTART_ERRNOS: Record<string, number> = {
  ERESTARTSYS: 512,
  ERESTARTNOINTR: 513,
  ERESTARTNOHAND: 514,
  ENOIOCTLCMD: 515,
  ERESTART_RESTARTBLOCK: 516,
};

/** Classifies one output line; null when it is not strace syntax (counted as lost by the caller). */
export function parseStraceLine(line: string): StraceLine | null {
  const head = HEAD.exec(line);
  if (!head) return null;
  const tid = Number(head[1]);
  const time = head[2] === undefined ? undefined : wallMs(head[2], head[3] ?? '0');
  const body = head[5] as string;
  const at = { tid, ...(time === undefined ? {} : { time }) };
  const numbered = head[4] === undefined ? at : { ...at, nr: Number(head[4]) };

  if (body.startsWith('+++ ')) {
    const exited = /^\+\+\+ exited with (\d+) \+\+\+$/.exec(body);
    if (exited) return { kind: 'exited', ...at, code: Number(exited[1]) };
    const killed = /^\+\+\+ killed by (SIG[A-Z0-9+-]+)(?: \(core dumped\))? \+\+\+$/.exec(body);
    if (killed) return { kind: 'killed', ...at, signal: killed[1] as string };
    const superseded = /^\+\+\+ superseded by execve in pid (\d+) \+\+\+$/.exec(body);
    if (superseded) return { kind: 'superseded', ...at, oldTid: Number(superseded[1]) };
    return null;
  }
  if (body.startsWith('--- ') && body.endsWith(' ---')) return { kind: 'signal', ...at };

  const resumed = /^<\.\.\. ([A-Za-z_][\w]*) resumed>(.*)$/s.exec(body);
  if (resumed)
    return { kind: 'resumed', ...numbered, name: resumed[1] as string, rest: resumed[2] as string };

  const call = /^([A-Za-z_][\w]*)\(/.exec(body);
  if (!call) return null;
  const name = call[1] as string;
  if (body.endsWith(UNFINISHED)) {
    return { kind: 'unfinished', ...numbered, name, text: body.slice(0, -UNFINISHED.length) };
  }
  // An execve from a non-leader thread: the call completes under the thread-group leader's id.
  const moved = PID_CHANGED.exec(body);
  if (moved) {
    return {
      kind: 'unfinished',
      ...numbered,
      name,
      text: body.slice(0, moved.index),
      movedTo: Number(moved[1]),
    };
  }
  return { kind: 'call', ...numbered, name, text: body };
}

function wallMs(seconds: string, fraction: string): number {
  return Number(seconds) * 1000 + Number(fraction.padEnd(6, '0').slice(0, 6)) / 1000;
}

/** Splits `name(args) = result` into arguments and result; null when the text is cut or corrupt. */
export function parseCall(name: string, text: string): ParsedCall | null {
  if (!text.startsWith(`${name}(`)) return null;
  const split = splitTopLevel(text, name.length + 1);
  if (!split) return null;
  const tail = /^\s*=\s*(.*)$/s.exec(text.slice(split.end + 1));
  if (!tail) return null;
  const result = parseResult(tail[1] as string);
  return result ? { name, args: split.parts, result } : null;
}

/** `0`, `3</path>`, `-1 ENOENT (No such file or directory)`, `? ERESTARTSYS (...)`, or a pid with its host translation. */
export function parseResult(text: string): CallResult | null {
  const match = /^(\?|-?\d+|0x[0-9a-fA-F]+)(.*)$/s.exec(text);
  if (!match) return null;
  const raw = match[1] as string;
  const rest = match[2] as string;
  const errno = /^\s+(E[A-Z0-9_]+)\b/.exec(rest)?.[1];
  const restart = errno !== undefined && errno in RESTART_ERRNOS;
  const hostPid = /\/\* (\d+) in strace's PID NS \*\//.exec(rest)?.[1];
  const result: CallResult = { restart };
  if (errno !== undefined) result.errno = errno;
  if (hostPid !== undefined) result.hostPid = Number(hostPid);
  if (raw === '?') return result;
  const held = /^<(.*)>(?:\(deleted\))?$/s.exec(rest.trim());
  if (held) result.fdPath = decodeEscapes(held[1] as string);
  const value = raw.startsWith('0x') ? Number.parseInt(raw, 16) : Number(raw);
  result.value = value === -1 && errno !== undefined ? -errnoNumber(errno) : value;
  return result;
}

function errnoNumber(name: string): number {
  const known = (constants.errno as Record<string, number | undefined>)[name] ?? RESTART_ERRNOS[name];
  // An errno this Node does not know: -1 still says "failed" without inventing a code.
  return known ?? 1;
}

/** Exit status of a process killed by a signal, by the shell's convention: 128 + signal number. */
export function signalExitCode(signal: string): number {
  const number = (constants.signals as Record<string, number | undefined>)[signal];
  return 128 + (number ?? 0);
}
