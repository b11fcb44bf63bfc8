import { SETID_BITS } from '../../evidence/syscall-flags.js';
import { syscallMechanism } from '../../evidence/syscall-mechanism.js';
import type { NetworkRecord, SysEvent } from '../../evidence/types.js';
import type { BoundPorts } from './bound-ports.js';
import type { DownloadedCode, Downloads } from './downloads.js';
import { actsOnLink, changesPath2, type FileState, isRename } from './file-state.js';
import type { ProcessTable, ProcInfo } from './process-table.js';
import { baseName } from './program.js';
import { malformedTunables } from './tunables.js';
import type { PatchFinding } from './types.js';
import { argvIndex, type Kind } from './vocabulary.js';

/**
 * The event under evaluation, with the engine state it may consult. One frame is reused for every
 * event; derived values are computed on first use and cleared by `reset`.
 */
export class Frame {
  kind: Kind = 'other';
  sys: SysEvent | undefined;
  net: NetworkRecord | undefined;
  patch: PatchFinding | undefined;
  patchPath: string | undefined;
  proc: ProcInfo | undefined;
  /** The downloaded file this event shows a shell or interpreter taking as its program (downloads.ts). */
  code: DownloadedCode | undefined;
  #target: string | undefined | null = null;
  #ancestors: ProcInfo[] | undefined;
  #siblings: ProcInfo[] | undefined;

  constructor(
    readonly procs: ProcessTable,
    readonly files: FileState,
    readonly ports: BoundPorts,
    readonly downloads: Downloads,
    readonly runUser?: { uid: number; gid: number },
  ) {}

  reset(kind: Kind, proc: ProcInfo | undefined): void {
    this.kind = kind;
    this.proc = proc;
    this.sys = undefined;
    this.net = undefined;
    this.patch = undefined;
    this.patchPath = undefined;
    this.code = undefined;
    this.#target = null;
    this.#ancestors = undefined;
    this.#siblings = undefined;
  }

  get path(): string | undefined {
    return this.sys ? this.sys.path : this.patchPath;
  }

  /** The path the call acts on: rename/link/symlink destination, else path with run-created links resolved. */
  get target(): string | undefined {
    if (this.#target !== null) return this.#target;
    const e = this.sys;
    let t: string | undefined;
    if (!e) t = this.patchPath;
    else if (e.path === undefined) t = undefined;
    else if (e.kind === 'write-meta' && changesPath2(e.syscall)) t = e.path2;
    else if (e.kind === 'write-meta' && actsOnLink(e.syscall)) t = e.path;
    else t = this.files.resolve(e.path);
    this.#target = t;
    return t;
  }

  get source(): string | undefined {
    const e = this.sys;
    return e?.kind === 'write-meta' && isRename(e.syscall) ? e.path : undefined;
  }

  get host(): string | undefined {
    if (this.net) return this.net.host;
    const a = this.sys?.addr;
    if (!a || a.family === 'unix') return undefined;
    return a.host ?? a.ip;
  }

  get port(): number | undefined {
    return this.net ? this.net.port : this.sys?.addr?.port;
  }

  get dest(): string | undefined {
    const host = this.net
      ? this.net.host
      : this.sys?.addr?.family === 'unix'
        ? undefined
        : this.sys?.addr?.ip;
    const port = this.port;
    if (host === undefined) return undefined;
    const h = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
    return port === undefined ? h : `${h}:${port}`;
  }

  get ancestors(): ProcInfo[] {
    if (this.#ancestors === undefined) this.#ancestors = this.proc ? this.procs.ancestors(this.proc) : [];
    return this.#ancestors;
  }

  get siblings(): ProcInfo[] {
    if (this.#siblings === undefined) this.#siblings = this.proc ? this.procs.siblings(this.proc) : [];
    return this.#siblings;
  }

  /** The process that last wrote the acting process's program, if the run wrote it. */
  get programWriter(): ProcInfo | null | undefined {
    return this.writerOf(this.proc?.program);
  }

  /** The process that last wrote the program the kernel ran for a script (its interpreter), if the run wrote it. */
  get interpreterWriter(): ProcInfo | null | undefined {
    return this.writerOf(this.proc?.interpreter);
  }

  private writerOf(file: string | undefined): ProcInfo | null | undefined {
    if (file === undefined) return undefined;
    const w = this.files.writerOf(file);
    if (!w) return undefined;
    return this.procs.get(w.pid) ?? null;
  }
}

export type FieldValue = string | number | boolean | readonly string[] | undefined;
export type Accessor = (f: Frame) => FieldValue;

type AnyLeak = { where: string; detector: string; kind: string; encoding?: string };

/** A field of every leak the record or the written finding carries; undefined when it carries none. */
function leakField(f: Frame, pick: (l: AnyLeak) => string): readonly string[] | undefined {
  const leaks: readonly AnyLeak[] | undefined = f.net
    ? f.net.leaks
    : f.patch?.leak
      ? [f.patch.leak]
      : undefined;
  return leaks === undefined || leaks.length === 0 ? undefined : leaks.map(pick);
}

const envName = (entry: string): string => entry.slice(0, Math.max(0, entry.indexOf('=')));

const labels = (h: string | undefined) =>
  h === undefined || h === '' ? undefined : h.replace(/\.$/, '').split('.');

const ID_CALL_KIND: Readonly<Record<string, 'uid' | 'gid'>> = {
  setuid: 'uid',
  setreuid: 'uid',
  setresuid: 'uid',
  setgid: 'gid',
  setregid: 'gid',
  setresgid: 'gid',
};

/**
 * Whether a setid call could only set ids the process already held. Without CAP_SETUID/CAP_SETGID
 * the kernel lets these calls succeed only with ids among the caller's real, effective and saved
 * ones; the run user's processes hold no capability and no other ids (RuleContext.runUser). So a
 * call that succeeded under a run user, asking (where the tracer recorded it) only for the run
 * user's own id or -1, changed nothing: busybox's drop to the ids it already has at every start.
 */
function idsHeld(e: SysEvent, runUser: { uid: number; gid: number } | undefined): boolean | undefined {
  const which = ID_CALL_KIND[e.syscall];
  if (which === undefined) return undefined;
  if (runUser === undefined || (e.result ?? 0) < 0) return false;
  return (e.ids ?? []).every((id) => id === -1 || id === runUser[which]);
}

const ACCESSORS: Record<string, Accessor> = {
  kind: (f) => f.kind,
  syscall: (f) => f.sys?.syscall,
  mechanism: (f) => (f.sys ? syscallMechanism(f.sys.syscall) : undefined),
  path_as_written: (f) => f.sys?.path_as_written,
  seq: (f) => f.sys?.seq,
  ts: (f) => f.sys?.ts ?? f.net?.ts,
  result: (f) => f.sys?.result,
  failed: (f) => (f.sys ? (f.sys.result ?? 0) < 0 : undefined),
  truncated: (f) => (f.sys ? f.sys.truncated === true : undefined),
  path: (f) => f.path,
  path2: (f) => f.sys?.path2,
  'path.name': (f) => {
    const p = f.path;
    return p === undefined ? undefined : baseName(p);
  },
  target: (f) => f.target,
  source: (f) => f.source,
  'target.self': (f) => (f.sys?.target_pid === undefined ? undefined : f.sys.target_self === true),
  'ids.held': (f) => (f.sys ? idsHeld(f.sys, f.runUser) : undefined),
  access: (f) => f.sys?.access,
  mode: (f) => f.sys?.mode,
  'mode.setid': (f) => (f.sys?.mode === undefined ? undefined : (f.sys.mode & SETID_BITS) !== 0),
  flags: (f) => f.sys?.flags,
  'addr.family': (f) => f.sys?.addr?.family,
  'addr.ip': (f) => f.sys?.addr?.ip,
  'addr.port': (f) => f.sys?.addr?.port,
  'addr.path': (f) => f.sys?.addr?.path,
  'addr.listened': (f) =>
    f.sys?.addr === undefined || f.sys.addr.family === 'unix' ? undefined : f.ports.listened(f.sys),
  dest: (f) => f.dest,
  host: (f) => f.host,
  'host.length': (f) => f.host?.length,
  'host.labels': (f) => labels(f.host)?.length,
  'host.longest_label': (f) => labels(f.host)?.reduce((m, l) => Math.max(m, l.length), 0),
  port: (f) => f.port,
  protocol: (f) => f.net?.protocol,
  decision: (f) => f.net?.decision,
  method: (f) => f.net?.method,
  reason: (f) => f.net?.reason,
  finding: (f) => f.patch?.finding,
  'leak.detector': (f) => leakField(f, (l) => l.detector),
  'leak.kind': (f) => leakField(f, (l) => l.kind),
  'leak.encoding': (f) => leakField(f, (l) => l.encoding ?? 'exact'),
  'leak.where': (f) => leakField(f, (l) => l.where),
  line: (f) => f.patch?.text,
  pid: (f) => f.proc?.pid ?? f.sys?.pid,
  ppid: (f) => f.proc?.ppid ?? f.sys?.ppid,
  exe: (f) => f.proc?.exe ?? f.sys?.exe,
  argv: (f) => f.proc?.argvText,
  args: (f) => f.proc?.argv,
  cwd: (f) => f.sys?.cwd ?? f.proc?.cwd,
  'proc.name': (f) => f.proc?.name,
  program: (f) => f.proc?.program,
  'program.written': (f) => (f.proc ? f.files.writerOf(f.proc.program) !== undefined : undefined),
  'program.downloaded': (f) =>
    f.proc ? f.downloads.writerOf(f.proc.program, f.proc.pid) !== undefined : undefined,
  'program.writer': (f) => f.programWriter?.name,
  interpreter: (f) => f.proc?.interpreter,
  'interpreter.downloaded': (f) =>
    f.proc ? f.downloads.writerOf(f.proc.interpreter, f.proc.pid) !== undefined : undefined,
  'interpreter.writer': (f) => f.interpreterWriter?.name,
  'proc.net': (f) => f.proc?.net,
  downloaded_code: (f) => f.code?.file,
  'downloaded_code.route': (f) => f.code?.route,
  'proc.loaded_written': (f) => f.proc?.loadedWritten,
  env: (f) => f.proc?.env,
  'env.set': (f) => f.proc?.envSet,
  'env.set_names': (f) => f.proc?.envSet?.map(envName),
  'env.recorded': (f) => (f.proc ? f.proc.env !== undefined : undefined),
  // Judged where the run first sets them: an image whose parent had the same is not another alert.
  'env.malformed_tunables': (f) => {
    if (!f.proc) return undefined;
    const parent = new Set(malformedTunables(f.procs.get(f.proc.ppid)?.envSet));
    return malformedTunables(f.proc.envSet).filter((item) => !parent.has(item));
  },
  'env.truncated': (f) => (f.sys?.kind === 'exec' ? f.sys.env_truncated === true : undefined),
  'ancestors.env_set_names': (f) => f.ancestors.flatMap((p) => p.envSet?.map(envName) ?? []),
  'preload.files': (f) => f.proc?.preload?.files,
  'preload.dirs': (f) => f.proc?.preload?.dirs,
  'preload.written_files': (f) => f.proc?.preloadWritten?.files,
  'preload.written_dirs': (f) => f.proc?.preloadWritten?.dirs,
  'parent.net': (f) => (f.proc ? f.procs.get(f.proc.ppid)?.net : undefined),
  'siblings.name': (f) => f.siblings.map((p) => p.name),
  'siblings.argv': (f) => f.siblings.map((p) => p.argvText),
  'siblings.net': (f) => f.siblings.some((p) => p.net),
  'ancestors.exe': (f) => f.ancestors.map((p) => p.exe),
  'ancestors.argv': (f) => f.ancestors.map((p) => p.argvText),
  'ancestors.name': (f) => f.ancestors.map((p) => p.name),
};

/** The accessor for a field name (validated by the loader, so unknown names are internal errors). */
export function accessor(field: string): Accessor {
  const index = argvIndex(field);
  if (index !== undefined) return (f) => f.proc?.argv[index];
  const a = ACCESSORS[field];
  if (!a) throw new Error(`no accessor for field '${field}'`);
  return a;
}
