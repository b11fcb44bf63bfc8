import { MODEL_HOST } from '../../evidence/harness-hosts.js';
import type { NetworkRecord, SysEvent } from '../../evidence/types.js';
import type { FileState } from './file-state.js';
import { compileHostMatch } from './host-match.js';
import type { ProcessTable, ProcInfo } from './process-table.js';
import { baseName, inlineCodeOf, programSourceOf } from './program.js';

/** How a shell or interpreter took a downloaded file as its program without an exec naming it. */
export type CodeRoute = 'sourced' | 'stdin' | 'pipe' | 'inline';
export type DownloadedCode = { file: string; route: CodeRoute };

/** Calls that copy a descriptor: onto standard input or output they are recorded (stdioCopy). */
const STDIO_COPIES = new Set(['dup', 'dup2', 'dup3', 'fcntl']);

/** Substitutions a command's words can hold: the children forked for it, looked back this far. */
const MAX_SUBSTITUTIONS = 16;

const SHELLS = /^(sh|bash|dash|zsh|ksh|mksh|ash|busybox)$/;

// Devices a shell redirects to (`>/dev/null`) and then reads are not files; /dev/shm holds files.
const DEVICE = /^\/(proc|sys)\/|^\/dev\/(?!shm\/|mqueue\/)/;

const shellExes = new Map<string, boolean>();
const isShell = (p: ProcInfo): boolean => {
  let shell = shellExes.get(p.exe);
  if (shell === undefined) {
    shell = SHELLS.test(baseName(p.exe));
    if (shellExes.size < 4096) shellExes.set(p.exe, shell);
  }
  return shell;
};

/**
 * Provenance that follows the bytes. A file is downloaded when the process that wrote it received
 * network data (an allowed request that was not the agent's model traffic: a record with the
 * model's usage, or a vendor host), or held a downloaded file's bytes: it read one, had its input
 * redirected from one, or was forked from a process that had. A package manager's writes are
 * installs, not downloads, and so is what a process derives from them (a build reading
 * node_modules). The agent's model client is the author of what it writes, even after reading a
 * download: its writing is the model's.
 *
 * A shell or interpreter that reads a downloaded file as its program runs it though no exec names
 * it: sourced (`. f`, `( . f )`), redirected to the input of an interpreter that reads its program
 * there (`sh < f`, `python3 - < f`), or piped into one (`cat f | sh`). A shell's own read of a file
 * is a redirect when its next act is a fork (dash opens `< f` before it vforks the command; bash
 * opens it in the fork), else it sources the file. The collector and strace record a copy onto
 * standard input or output (dup2): a read the shell copied onto its standard input is a redirect
 * (`while read l; do …; done < f` reads data), one it did not copy and then forked is a file it read
 * itself for the command's words (bash's `$(< f)`). Without those records (bpftrace) a read before a
 * fork is taken as that command's redirect.
 *
 * Code given inline (`bash -c CODE`, `node -e CODE`) runs a download when the process that composed
 * the command held a download's bytes and CODE is not text it was given: a command substitution
 * (`$(cat f)`, `$(curl …)`: a child whose output pipe no other process read, so the shell did), the
 * shell's own read (`$(< f)`), or the input of a program that builds commands (`xargs sh -c < f`).
 */
/** Programs whose job is to build and run commands from what they read. */
const COMMAND_BUILDERS = new Set(['xargs', 'find', 'parallel']);

export class Downloads {
  readonly #vendor: (host: string) => boolean;
  /** Files a shell opened for a child's output before the fork (dash): the child is their writer. */
  readonly #outputs = new Map<string, { pid: number; seq: number }>();
  /** Pipes some process made its standard input: their readers were not the shell that forked the writer. */
  readonly #pipesRead = new Set<number>();

  constructor(
    private readonly procs: ProcessTable,
    private readonly files: FileState,
    private readonly installers: ReadonlySet<string>,
    vendorHosts: readonly string[],
    /** The evidence records copies onto standard input and output (the collector, strace). */
    private readonly copiesRecorded = true,
  ) {
    this.#vendor = compileHostMatch(vendorHosts);
  }

  /** A proxy record names what its client received: the model's answers, or data from elsewhere. */
  observeRecord(r: NetworkRecord, client: ProcInfo | undefined): void {
    if (!client || r.decision !== 'allowed' || r.protocol === 'dns') return;
    if (r.usage !== undefined || r.host === MODEL_HOST || this.#vendor(r.host)) client.netModel = true;
    else client.netOther = true;
  }

  /** Does what this process writes carry network data? */
  carriesNetData(p: ProcInfo): boolean {
    if (this.installers.has(p.name)) return false;
    return (p.net && !this.#model(p)) || p.carries !== undefined;
  }

  /**
   * The process that wrote `path` with network data in it, if one did. `reader`: the process about
   * to run or read it, which cannot also have been the command whose output it was.
   */
  writerOf(path: string | undefined, reader?: number): ProcInfo | undefined {
    if (path === undefined) return undefined;
    const w = this.files.writerOf(path);
    if (!w) return undefined;
    const out = this.#outputs.get(this.files.resolve(path));
    const child = out !== undefined && out.seq === w.seq && out.pid !== reader;
    const p = this.procs.get(child ? out.pid : w.pid);
    return p && this.carriesNetData(p) ? p : undefined;
  }

  /**
   * Judges an event (after the process table saw it; `before` is an exec's previous image) and
   * updates what processes carry. Returns the downloaded code it runs, if it runs any.
   */
  observe(e: SysEvent, proc: ProcInfo, before: ProcInfo | undefined): DownloadedCode | undefined {
    if (e.kind === 'fork') {
      this.#fork(proc);
      return undefined;
    }
    if (e.kind === 'exec') return this.#exec(e, proc, before);
    if (e.kind === 'other' && STDIO_COPIES.has(e.syscall) && (e.result === 0 || e.result === 1))
      return this.#stdio(e, proc);
    if (e.kind !== 'open' || (e.result ?? 0) < 0 || e.path === undefined) return this.#settle(proc);
    if (isShell(proc)) {
      const file = this.files.resolve(e.path);
      // One command's redirects come together before its fork (`jq . < f > out`); a second read
      // means the first was not one of them.
      if (e.access !== 'read') {
        proc.pendingWrite = { path: file, seq: e.seq };
        return undefined;
      }
      const sourced = proc.pendingRead === undefined ? undefined : this.#settle(proc);
      proc.pendingRead = file;
      return sourced;
    }
    // Most reads are of files the run never wrote (libraries, sources): settled by one lookup.
    if (e.access !== 'read' || DEVICE.test(e.path) || this.files.writerOf(e.path) === undefined)
      return undefined;
    const file = this.files.resolve(e.path);
    if (this.writerOf(file, proc.pid) === undefined) return undefined;
    const first = proc.carries === undefined || proc.carriesInherited === true;
    this.#hold(proc, file);
    // A helper's bytes reach the program that started it (tar's decompressor, a subprocess's output);
    // a shell gets them through a command substitution, judged where its words are used (#composed).
    const parent = this.procs.get(proc.ppid);
    if (parent && !isShell(parent)) this.#hold(parent, file);
    // A subshell whose output is a pipe (`$(cat f | base64 -d)`) holds what its commands read.
    else if (parent?.forked && typeof parent.stdoutPipe === 'number') this.#hold(parent, file);
    // The writing end of a pipe whose reader already runs: `cat f | sh` where sh started first
    // (looked for at the first download a process reads: a pipe's writer has one).
    if (!first) return undefined;
    const reader = this.procs
      .pipeSiblings(proc)
      .some((s) => !s.forked && !this.procs.exited(s.pid) && programSourceOf(s.exe, s.argv) === 'stdin');
    return reader ? { file, route: 'pipe' } : undefined;
  }

  /** A copy onto standard input or output: a redirect or a pipe's end. */
  #stdio(e: SysEvent, proc: ProcInfo): DownloadedCode | undefined {
    if (e.result === 1) {
      // A fork's first copy sets up its output; later ones put a saved descriptor back.
      if (proc.forked && proc.stdoutPipe === undefined) proc.stdoutPipe = e.pipe ?? null;
      return undefined;
    }
    if (e.pipe !== undefined) this.#pipesRead.add(e.pipe);
    const read = proc.pendingRead;
    if (!isShell(proc) || read === undefined) return undefined;
    if (proc.pendingDup) {
      // The second copy puts the saved input back: the redirect is over.
      proc.pendingRead = undefined;
      proc.pendingDup = undefined;
      return undefined;
    }
    proc.pendingDup = true;
    // A shell that reads its commands from standard input goes on reading them there (`exec < f`).
    const own = !proc.forked && programSourceOf(proc.exe, proc.argv) === 'stdin';
    return own && this.writerOf(read) !== undefined ? { file: read, route: 'stdin' } : undefined;
  }

  /** A shell's read or write not handed to a fork: a script it sourced, or its own output. */
  #settle(proc: ProcInfo): DownloadedCode | undefined {
    const read = proc.pendingRead;
    const redirect = proc.pendingDup === true;
    proc.pendingRead = undefined;
    proc.pendingWrite = undefined;
    proc.pendingDup = undefined;
    // Copied onto its standard input: a builtin reads it as data (`while read … < f`).
    if (read === undefined || redirect || read === proc.program || this.writerOf(read) === undefined)
      return undefined;
    this.#hold(proc, read);
    return { file: read, route: 'sourced' };
  }

  /** The fork takes what its shell opened for it: its input and its output. */
  #fork(child: ProcInfo): void {
    const parent = this.procs.get(child.ppid);
    if (!parent) return;
    const read = parent.pendingRead;
    if (read !== undefined && this.copiesRecorded && !parent.pendingDup && isShell(parent)) {
      // Not copied onto standard input: the shell read it itself, for the command's words. (Any
      // other program reads files for its own work: an agent its session log, whatever it runs next.)
      child.shellRead = read;
      if (this.writerOf(read) !== undefined) this.#hold(parent, read);
    } else if (read !== undefined) {
      child.redirected = read;
      child.inputSet = true;
    }
    parent.pendingDup = undefined;
    if (parent.pendingWrite !== undefined)
      this.#outputs.set(parent.pendingWrite.path, { pid: child.pid, seq: parent.pendingWrite.seq });
    parent.pendingRead = undefined;
    parent.pendingWrite = undefined;
  }

  #exec(e: SysEvent, image: ProcInfo, before: ProcInfo | undefined): DownloadedCode | undefined {
    // A failed exec runs nothing (env and timeout try each folder of PATH).
    if ((e.result ?? 0) < 0) return undefined;
    // A read the shell did not copy onto its input is no redirect: it read it for the words (`$(< f)`).
    const ownRead =
      before?.pendingRead !== undefined && this.copiesRecorded && !before.pendingDup && isShell(before);
    if (ownRead && before) {
      before.shellRead = before.pendingRead;
      before.pendingRead = undefined;
    }
    const input = before?.pendingRead ?? before?.redirected;
    const downloaded = input !== undefined && this.writerOf(input, image.pid) !== undefined;
    const ownInput = before?.pendingRead !== undefined || before?.inputSet === true;
    // Standard input stays across the exec (`env sh < f`, `timeout 5 sh < f`).
    if (input !== undefined) {
      image.redirected = input;
      image.inputSet = ownInput;
    }
    // The new image reads what its input was redirected from; what the old one read is gone.
    const kept = before?.carriesInherited ? undefined : before?.carries;
    const carries = downloaded ? input : kept;
    if (carries !== undefined) image.carries = carries;
    if (typeof before?.stdoutPipe === 'number') image.stdoutPipe = before.stdoutPipe;
    const inline = inlineCodeOf(image.exe, image.argv);
    if (inline !== undefined) return before ? this.#composed(inline, before) : undefined;
    // A wrapper (timeout, env, nice) whose words came from a download passes them on to what it runs.
    if (before && programSourceOf(image.exe, image.argv) === undefined && !isShell(image)) {
      const held = this.#heldForWords(before);
      if (held !== undefined && !this.#written(image.argvText, before)) image.argvHeld = held;
    }
    if (programSourceOf(image.exe, image.argv) !== 'stdin') return undefined;
    if (downloaded) return { file: input, route: 'stdin' };
    // Its own redirect from a file the run did not download: not a pipe.
    if (ownInput) return undefined;
    // The writing end of the pipe: a sibling holding a download's bytes (it may have finished
    // already), or one still running that fetches them itself (`wget -O- … | sh`).
    for (const s of this.procs.pipeSiblings(image)) {
      if (s.pid === image.pid || s.forked || !this.carriesNetData(s)) continue;
      if (s.carries !== undefined) return { file: s.carries, route: 'pipe' };
      if (!this.procs.exited(s.pid)) return { file: `what ${s.name} fetched`, route: 'pipe' };
    }
    return undefined;
  }

  /**
   * Inline code not written in the command of the process that composed it (`before`, the image
   * that exec'd: a shell's fork, the shell itself, xargs), when that process held a download's bytes.
   */
  #composed(code: string, before: ProcInfo): DownloadedCode | undefined {
    if (this.#written(code, before)) {
      // Passed on whole by a wrapper whose own words came from a download.
      return before.argvHeld === undefined ? undefined : { file: before.argvHeld, route: 'inline' };
    }
    const held = this.#heldForWords(before);
    if (held === undefined || this.#ownWork(held, before)) return undefined;
    return { file: held, route: 'inline' };
  }

  /**
   * A file written by the composer's own ancestor (a coding agent's session log or shell snapshot,
   * which its tool calls' shells read): the agent composing its own commands, not a download. A
   * download that comes to be run inline is written by a process the composer started or ran
   * beside it (curl, a helper), never by the process that started it.
   */
  #ownWork(file: string, composer: ProcInfo): boolean {
    const w = this.writerOf(file);
    return w !== undefined && this.procs.ancestors(composer).some((a) => a.pid === w.pid);
  }

  /** Is `text` written in the command of `composer` (quotes, escapes and spaces aside: the shell's)? */
  #written(text: string, composer: ProcInfo): boolean {
    const bare = (t: string) => t.replace(/["'\\\s]+/g, '');
    const wanted = bare(text);
    return wanted === '' || bare(composer.argvText).includes(wanted);
  }

  /** A download whose bytes could be in the words of the command `before` composed. */
  #heldForWords(before: ProcInfo): string | undefined {
    if (before.shellRead !== undefined && this.writerOf(before.shellRead) !== undefined)
      return before.shellRead;
    if (!isShell(before)) {
      // A program that builds commands from what it reads (xargs, find), or an interpreter given
      // its program inline: its whole text is its argv. An interpreter running a script has text
      // the evidence does not hold, and any other program (a coding agent composing commands from
      // the model's answers and its own session files) is not judged by its words.
      const source = programSourceOf(before.exe, before.argv);
      if (source === 'inline' || COMMAND_BUILDERS.has(baseName(before.exe))) return before.carries;
      return undefined;
    }
    // The command substitutions evaluated for this command: the shell's latest children whose
    // output went to a pipe no other process read (a pipeline's writer has a reader).
    // Its own children when it runs the command in place (a subshell's last command), else the
    // siblings its shell forked before it.
    const own = this.procs.lastChildren(before.pid, MAX_SUBSTITUTIONS);
    const children = (
      own.length > 0 || !before.forked ? own : this.procs.lastChildren(before.ppid, MAX_SUBSTITUTIONS + 1)
    ).reverse();
    for (const c of children) {
      if (c.pid === before.pid) continue;
      if (typeof c.stdoutPipe !== 'number' || this.#pipesRead.has(c.stdoutPipe)) return undefined;
      if (c.carries !== undefined && !c.carriesInherited) return c.carries;
      if (this.carriesNetData(c)) return `what ${c.name} fetched`;
    }
    return undefined;
  }

  #hold(p: ProcInfo, file: string): void {
    if (this.#model(p) || (p.carries !== undefined && !p.carriesInherited)) return;
    p.carries = file;
    p.carriesInherited = false;
  }

  /** Only the model's answers came in (its own client, or a helper of it that spoke to the vendor). */
  #model(p: ProcInfo): boolean {
    return p.netModel === true && p.netOther !== true;
  }
}
