import type { SysEvent } from '../../evidence/types.js';
import type { FileState, WriteRecord } from './file-state.js';
import { MODULE_FILE_EXTENSIONS, type Preload, preloadOf } from './preload.js';
import { programOf } from './program.js';
import type { AlertProcessRef } from './types.js';

/** A process (or, for an exec event, the image it is about to become). */
export type ProcInfo = {
  pid: number;
  ppid: number;
  exe: string;
  argv: readonly string[];
  argvText: string;
  cwd: string | undefined;
  /** The script or module an interpreter runs, else the exe's base name. */
  name: string;
  /** The file whose code runs, run-created symlinks resolved. */
  program: string;
  /** The program the kernel ran for it when that is another file (a script's `#!` interpreter), where the tracer records it. */
  interpreter?: string;
  /** The process has made an inet/inet6 connection (including to the proxy bridge). */
  net: boolean;
  /** An allowed proxy request of this process carried the model's traffic (downloads.ts). */
  netModel?: boolean;
  /** An allowed proxy request of this process fetched something other than the model's traffic. */
  netOther?: boolean;
  /** A downloaded file whose bytes this process holds: it read it, or was forked from one that had (downloads.ts). */
  carries?: string;
  /** `carries` came with the fork, not from this image's own reads: an exec drops it. */
  carriesInherited?: boolean;
  /** A fork that has not exec'd yet: a shell's open here is a redirect for the program it is about to run. */
  forked?: boolean;
  /** The file this process's standard input was redirected from (`sh < f`), inherited by fork and exec. */
  redirected?: string;
  /** `redirected` was set for this process's own command, not inherited from its parent's input. */
  inputSet?: boolean;
  /** A file this shell image opened for reading and has not yet handed to a child: a redirect, or a script it sources. */
  pendingRead?: string;
  /** `pendingRead` was copied onto standard input: a redirect, not a script the shell sources. */
  pendingDup?: boolean;
  /** A file this shell read itself and did not source (bash's `$(< f)`): its bytes may be in the words of the command it forks next. */
  shellRead?: string;
  /** A download whose bytes were in this image's argv: its composer held them and did not write the words (downloads.ts). */
  argvHeld?: string;
  /**
   * The pipe a fork made its standard output with its first copy onto it, before it exec'd
   * (downloads.ts); null: that copy was of a file. A fork does not inherit it, an exec keeps it.
   */
  stdoutPipe?: number | null;
  /** A file this shell image opened for writing and has not yet handed to a child (dash redirects in the parent). */
  pendingWrite?: { path: string; seq: number };
  /**
   * Files the run wrote that this image opened for reading (JSON aside: parsed, never run), the
   * first few: code an interpreter may have loaded into a program that is otherwise trusted
   * (`NODE_OPTIONS=--require`, a `.pnpmfile.cjs`, a `pip/` folder shadowing `python -m pip`).
   */
  loadedWritten: string[];
  /** The image's recorded loader and interpreter variables (exec-env.ts); undefined: not recorded. */
  env?: readonly string[];
  /** Entries of `env` the run set or changed: not in the run's starting environment (its first exec's). */
  envSet?: readonly string[];
  /** What this exec's set environment and node command line name as code to load (preload.ts). */
  preload?: Preload;
  /**
   * The run-written files, and folders outside the workspace with run-written files, that this exec
   * was the first in its line to be told to load; inherited ones were judged at the exec that introduced them, unless
   * written since.
   */
  preloadWritten?: { files: string[]; dirs: string[] };
  /** Every run-written preload judged so far in this line of images (inherited by fork and exec). */
  preloadJudged?: readonly string[];
};

/** Enough to tell that a process loaded run-written files, and which ones first. */
const MAX_LOADED = 16;

const MAX_CHAIN = 64;

/** Builds the image an exec event describes (whether or not the exec succeeded). */
export function imageOf(e: SysEvent, parent: ProcInfo | undefined, files: FileState): ProcInfo {
  const exe = e.path ?? e.exe;
  const argv = e.argv ?? [];
  const cwd = e.cwd ?? parent?.cwd;
  const info = programOf(exe, argv, cwd);
  return {
    pid: e.pid,
    ppid: parent?.ppid ?? e.ppid,
    exe,
    argv,
    argvText: argv.join(' '),
    cwd,
    name: info.name,
    program: files.resolve(info.program),
    ...(e.interpreter === undefined ? {} : { interpreter: files.resolve(e.interpreter) }),
    net: false,
    loadedWritten: [],
  };
}

/**
 * The processes seen so far: fork copies the parent, a successful exec replaces the image, and a
 * pid seen first in some other event is added from what that event says. Exited processes stay, so
 * that their children's chains still reach the root.
 */
export class ProcessTable {
  readonly #procs = new Map<number, ProcInfo>();
  /** Each process's lifetime in event numbers (fork or first sight, exit), for siblings(). */
  readonly #life = new Map<number, { from: number; to?: number }>();
  readonly #children = new Map<number, Set<number>>();
  /** The children of each parent still running, and each process's sibling forked just before it. */
  readonly #running = new Map<number, Set<number>>();
  readonly #lastChild = new Map<number, number>();
  /** Each parent's children in fork order, for lastChildren(). */
  readonly #order = new Map<number, number[]>();
  readonly #previous = new Map<number, number>();
  #startEnv: Set<string> | undefined;

  /** `workspace`: the agent's own project, whose folders on a search path are everyday work. */
  constructor(
    private readonly workspace?: string,
    /** proc.name of the programs whose writes are installs, not planted code (`package_managers`). */
    private readonly installers: ReadonlySet<string> = new Set(),
    /** The sandbox HOME, whose `.node_modules` node searches for a bare module name. */
    private readonly home?: string,
  ) {}

  get(pid: number): ProcInfo | undefined {
    return this.#procs.get(pid);
  }

  /** Updates the table for an event and returns the acting process (the new image for an exec). */
  observe(e: SysEvent, files: FileState): ProcInfo {
    if (e.kind === 'fork' && (e.result === undefined || e.result > 0) && e.pid !== e.ppid) {
      const parent = this.#procs.get(e.ppid);
      const child: ProcInfo = parent
        ? {
            ...parent,
            pid: e.pid,
            ppid: e.ppid,
            net: false,
            netModel: false,
            netOther: false,
            carriesInherited: parent.carries !== undefined,
            forked: true,
            inputSet: false,
            pendingRead: undefined,
            pendingWrite: undefined,
            pendingDup: undefined,
            shellRead: undefined,
            stdoutPipe: undefined,
            loadedWritten: [...parent.loadedWritten],
          }
        : this.#fresh(e, files);
      this.#procs.set(e.pid, child);
      this.#born(e.pid, e.ppid, e.seq);
      return child;
    }
    const known = this.#procs.get(e.pid);
    if (e.kind === 'exec') {
      const image = imageOf(e, known, files);
      this.#loads(image, e, known, files);
      if ((e.result ?? 0) >= 0) {
        image.net = known?.net ?? false;
        if (known?.netModel) image.netModel = true;
        if (known?.netOther) image.netOther = true;
        this.#procs.set(e.pid, image);
        if (!known) this.#born(e.pid, image.ppid, e.seq);
      }
      return image;
    }
    const proc = known ?? this.#fresh(e, files);
    if (!known) {
      this.#procs.set(e.pid, proc);
      this.#born(e.pid, e.ppid, e.seq);
    }
    if (e.kind === 'exit') {
      const life = this.#life.get(e.pid);
      if (life) life.to = e.seq;
      this.#running.get(proc.ppid)?.delete(e.pid);
    }
    if (e.kind === 'connect' && (e.addr?.family === 'inet' || e.addr?.family === 'inet6')) proc.net = true;
    if (loadsWritten(e, files) && proc.loadedWritten.length < MAX_LOADED && e.path !== undefined)
      proc.loadedWritten.push(files.resolve(e.path));
    return proc;
  }

  /**
   * The exec's environment against the run's starting one (the first recorded exec's: the harness
   * set what is there, not the agent), and what it is told to load.
   */
  #loads(image: ProcInfo, e: SysEvent, before: ProcInfo | undefined, files: FileState): void {
    if (e.env !== undefined) {
      this.#startEnv ??= new Set(e.env);
      image.env = e.env;
    }
    const start = this.#startEnv;
    image.envSet = (image.env ?? []).filter((entry) => !start?.has(entry));
    const preload = preloadOf(image.envSet, image.exe, image.argv, image.cwd, this.home);
    image.preload = preload;
    const judged = before?.preloadJudged ?? [];
    const fresh = (path: string) => !judged.includes(path);
    const planted = (w: WriteRecord | undefined) =>
      w !== undefined && !this.installers.has(this.#procs.get(w.pid)?.name ?? '');
    // A bare name (`node -r evil`) loads the package node finds: planted if the run wrote into it.
    const plantedPackage = (folder: string) =>
      files.wroteUnder(folder, planted) ||
      MODULE_FILE_EXTENSIONS.some((ext) => planted(files.writerOf(`${folder}${ext}`)));
    const written = {
      files: [
        ...preload.files.filter((path) => planted(files.writerOf(path)) && fresh(path)),
        ...preload.packages.filter((folder) => fresh(folder) && plantedPackage(folder)),
      ],
      dirs: preload.dirs.filter(
        (path) => !this.#inWorkspace(path) && files.wroteUnder(path, planted) && fresh(path),
      ),
    };
    image.preloadWritten = written;
    image.preloadJudged = [...judged, ...written.files, ...written.dirs];
  }

  #inWorkspace(path: string): boolean {
    const ws = this.workspace;
    return ws !== undefined && (path === ws || path.startsWith(ws.endsWith('/') ? ws : `${ws}/`));
  }

  #born(pid: number, ppid: number, seq: number): void {
    this.#life.set(pid, { from: seq });
    const last = this.#lastChild.get(ppid);
    if (last !== undefined) this.#previous.set(pid, last);
    this.#lastChild.set(ppid, pid);
    const running = this.#running.get(ppid);
    if (running) running.add(pid);
    else this.#running.set(ppid, new Set([pid]));
    const order = this.#order.get(ppid);
    if (order) order.push(pid);
    else this.#order.set(ppid, [pid]);
    const siblings = this.#children.get(ppid);
    if (siblings) siblings.add(pid);
    else this.#children.set(ppid, new Set([pid]));
  }

  /**
   * The other children of p's parent that could share a pipeline with p: those whose lifetimes
   * overlap p's, and the one forked just before p even if it has exited (in `echo … | base64 -d |
   * sh` the decoder can finish before the shell is forked). Commands the parent ran one after the
   * other, with another command between them, are not siblings in this sense.
   */
  siblings(p: ProcInfo): ProcInfo[] {
    const children = [...(this.#children.get(p.ppid) ?? [])];
    const previous = children[children.indexOf(p.pid) - 1];
    const mine = this.#life.get(p.pid);
    const out: ProcInfo[] = [];
    for (const pid of children) {
      const life = this.#life.get(pid);
      const sibling = this.#procs.get(pid);
      if (pid === p.pid || !life || !sibling || sibling.ppid !== p.ppid) continue;
      const overlaps =
        mine === undefined ||
        ((life.to === undefined || life.to > mine.from) && (mine.to === undefined || mine.to > life.from));
      if (overlaps || pid === previous) out.push(sibling);
    }
    return out;
  }

  /** The children of `pid` in the order they were forked, the last `max` of them. */
  lastChildren(pid: number, max: number): ProcInfo[] {
    const pids = (this.#order.get(pid) ?? []).slice(-max);
    return pids
      .map((c) => this.#procs.get(c))
      .filter((c): c is ProcInfo => c !== undefined && c.ppid === pid);
  }

  /**
   * The siblings that could be the other end of a pipe with p now: those still running, and the
   * one forked just before it. Unlike siblings(), it costs what is running, not every child the
   * parent ever had.
   */
  pipeSiblings(p: ProcInfo): ProcInfo[] {
    const pids = new Set(this.#running.get(p.ppid));
    const previous = this.#previous.get(p.pid);
    if (previous !== undefined) pids.add(previous);
    pids.delete(p.pid);
    const out: ProcInfo[] = [];
    for (const pid of pids) {
      const sibling = this.#procs.get(pid);
      if (sibling && sibling.ppid === p.ppid) out.push(sibling);
    }
    return out;
  }

  /** Whether the process's exit has been seen. */
  exited(pid: number): boolean {
    return this.#life.get(pid)?.to !== undefined;
  }

  #fresh(e: SysEvent, files: FileState): ProcInfo {
    const info = programOf(e.exe, [], undefined);
    return {
      pid: e.pid,
      ppid: e.ppid,
      exe: e.exe,
      argv: [],
      argvText: '',
      cwd: e.cwd,
      name: info.name,
      program: files.resolve(info.program),
      net: false,
      loadedWritten: [],
    };
  }

  /** The ancestors of a process, nearest first, up to the root (ppid 0 or unknown). */
  ancestors(p: ProcInfo): ProcInfo[] {
    const out: ProcInfo[] = [];
    const seen = new Set<number>([p.pid]);
    let ppid = p.ppid;
    while (ppid > 0 && !seen.has(ppid) && out.length < MAX_CHAIN) {
      const parent = this.#procs.get(ppid);
      if (!parent) break;
      out.push(parent);
      seen.add(ppid);
      ppid = parent.ppid;
    }
    return out;
  }

  /** The alert chain: the acting process first, then its ancestors up to the root. */
  chain(p: ProcInfo): AlertProcessRef[] {
    return [p, ...this.ancestors(p)].map(ref);
  }
}

// Devices a shell redirects to (`>/dev/null`) and then reads are not files; /dev/shm holds files.
const DEVICE = /^\/(proc|sys)\/|^\/dev\/(?!shm\/|mqueue\/)/;

/** A successful read-open of a file the run wrote, other than JSON and devices. */
function loadsWritten(e: SysEvent, files: FileState): boolean {
  return (
    e.kind === 'open' &&
    e.access === 'read' &&
    (e.result ?? 0) >= 0 &&
    e.path !== undefined &&
    !e.path.endsWith('.json') &&
    !DEVICE.test(e.path) &&
    files.writerOf(e.path) !== undefined
  );
}

export function ref(p: ProcInfo): AlertProcessRef {
  return { pid: p.pid, exe: p.exe, argv: [...p.argv] };
}
