import { spawn } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { noteGroup } from './owner-registry.js';
import { safeTimeout } from './safe-timer.js';
import { resumeStuckWrappers } from './stuck-wrappers.js';
import type { SpawnSpec } from './types.js';

export type RunOptions = {
  spec: SpawnSpec;
  timeoutMs: number;
  /** Bytes of stdout and of stderr kept in memory (each); the rest is counted, not kept. */
  maxOutputBytes: number;
  /** Optional log file receiving both streams, also capped at maxOutputBytes. */
  logFile?: string;
  /** Time between SIGTERM and SIGKILL when the command overruns. */
  killGraceMs?: number;
  /** Called once the process exists, with its pid (the process group id too). */
  onStart?: (pid: number) => void;
  /** Ends the command early (interrupt, run time limit): the group gets SIGTERM, then SIGKILL. */
  signal?: AbortSignal;
  /**
   * Which processes of the tree are harness wrappers that must not be left stopped once their
   * child exited (see resumeStuckWrappers); checked every `wrapperPollMs` (default 1 s).
   */
  isWrapper?: (argv: string[]) => boolean;
  wrapperPollMs?: number;
};

export type RunOutcome = {
  pid: number | null;
  exit_code: number | null;
  signal: string | null;
  timed_out: boolean;
  /** Ended by `signal` (interrupt or run time limit), not by its own doing or its timeout. */
  aborted: boolean;
  duration_ms: number;
  stdout: string;
  stderr: string;
  stdout_bytes: number;
  stderr_bytes: number;
  stdout_truncated: boolean;
  stderr_truncated: boolean;
  /** Processes of the group still alive after the main process exited, killed by the harness. */
  stragglers_killed: boolean;
  spawn_error?: string;
};

const activeGroups = new Set<number>();

/** Kill every process group this module started that is still running (harness shutdown). */
export function killActiveGroups(signal: NodeJS.Signals = 'SIGKILL'): void {
  for (const pgid of activeGroups) {
    try {
      process.kill(-pgid, signal);
    } catch {
      // already gone
    }
  }
  activeGroups.clear();
}

/**
 * Keeps the first part of a stream and its last `limit / 4` bytes (where a program says why it
 * failed: a test summary, an error), and counts the rest. A cut leaves one line in between saying
 * how many bytes were left out there.
 */
export class BoundedBuffer {
  private head: Buffer[] = [];
  private kept = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private readonly headLimit: number;
  private readonly tailLimit: number;
  total = 0;
  constructor(limit: number) {
    this.tailLimit = Math.floor(limit / 4);
    this.headLimit = limit - this.tailLimit;
  }
  push(chunk: Buffer): void {
    this.total += chunk.length;
    const room = this.headLimit - this.kept;
    if (room > 0) {
      const piece = chunk.length <= room ? chunk : chunk.subarray(0, room);
      this.head.push(piece);
      this.kept += piece.length;
      if (piece.length === chunk.length) return;
      chunk = chunk.subarray(piece.length);
    }
    if (this.tailLimit === 0) return;
    this.tail.push(chunk.length > this.tailLimit ? chunk.subarray(chunk.length - this.tailLimit) : chunk);
    this.tailBytes += Math.min(chunk.length, this.tailLimit);
    while (this.tail.length > 1 && this.tailBytes - (this.tail[0]?.length ?? 0) >= this.tailLimit) {
      this.tailBytes -= this.tail.shift()?.length ?? 0;
    }
  }
  get truncated(): boolean {
    return this.total > this.kept + Math.min(this.tailBytes, this.tailLimit);
  }
  /** At most `limit` bytes, the line saying what was cut included. */
  text(): string {
    const head = Buffer.concat(this.head);
    if (this.tailBytes === 0) return head.toString('utf8');
    const whole = Buffer.concat(this.tail);
    const tail = whole.subarray(Math.max(0, whole.length - this.tailLimit));
    if (this.total === head.length + tail.length) return Buffer.concat([head, tail]).toString('utf8');
    // The marker takes its room from the head; its length depends on the number it carries.
    let keep = head.length;
    let marker = '';
    for (let i = 0; i < 3; i += 1) {
      marker = `\n[agentguard: ${this.total - keep - tail.length} bytes left out here]\n`;
      keep = Math.max(0, head.length - Buffer.byteLength(marker));
    }
    return `${head.subarray(0, keep).toString('utf8')}${marker}${tail.toString('utf8')}`;
  }
}

/**
 * Run one command in its own process group, without a shell. The whole group is killed on timeout,
 * and whatever is left of it once the main process exits. Never throws for the command's own failures:
 * a missing binary, a crash or a timeout all come back as data.
 */
export function runCommand(options: RunOptions): Promise<RunOutcome> {
  const { spec, timeoutMs, maxOutputBytes } = options;
  const grace = options.killGraceMs ?? spec.stopGraceMs ?? 2000;
  const started = performance.now();
  const out = new BoundedBuffer(maxOutputBytes);
  const err = new BoundedBuffer(maxOutputBytes);
  let log: WriteStream | null = null;
  let logged = 0;
  const toLog = (chunk: Buffer) => {
    if (!log || logged >= maxOutputBytes) return;
    const piece = chunk.subarray(0, maxOutputBytes - logged);
    logged += piece.length;
    log.write(piece);
  };

  return new Promise<RunOutcome>((resolve) => {
    const [file, ...args] = spec.argv;
    const finish = (partial: Partial<RunOutcome> & Pick<RunOutcome, 'exit_code' | 'signal'>) => {
      const done = () =>
        resolve({
          pid: child.pid ?? null,
          timed_out: false,
          aborted: false,
          stragglers_killed: false,
          ...partial,
          duration_ms: Math.round(performance.now() - started),
          stdout: out.text(),
          stderr: err.text(),
          stdout_bytes: out.total,
          stderr_bytes: err.total,
          stdout_truncated: out.truncated,
          stderr_truncated: err.truncated,
        });
      if (log) log.end(done);
      else done();
    };
    if (!file) {
      resolve(emptyOutcome('empty command'));
      return;
    }
    if (options.logFile) log = createWriteStream(options.logFile, { flags: 'a' });

    const child = spawn(file, args, {
      cwd: spec.cwd,
      env: spec.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let timedOut = false;
    let aborted = false;
    let settled = false;
    let killTimer: NodeJS.Timeout | undefined;

    const killGroup = (signal: NodeJS.Signals): boolean => {
      if (child.pid === undefined) return false;
      try {
        process.kill(-child.pid, signal);
        return true;
      } catch {
        return false;
      }
    };
    const stop = () => {
      killGroup('SIGTERM');
      killTimer = setTimeout(() => killGroup('SIGKILL'), grace);
    };
    const timer = safeTimeout(() => {
      if (aborted) return;
      timedOut = true;
      stop();
    }, timeoutMs);
    const onAbort = () => {
      if (settled || timedOut) return;
      aborted = true;
      stop();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const isWrapper = options.isWrapper;
    const wrapperPoll =
      isWrapper && child.pid !== undefined
        ? setInterval(
            () => resumeStuckWrappers(child.pid as number, isWrapper),
            options.wrapperPollMs ?? 1000,
          )
        : undefined;
    const stopWatching = () => {
      timer.clear();
      if (wrapperPoll) clearInterval(wrapperPoll);
      options.signal?.removeEventListener('abort', onAbort);
    };
    if (options.signal?.aborted) onAbort();

    child.stdout.on('data', (c: Buffer) => {
      out.push(c);
      toLog(c);
    });
    child.stderr.on('data', (c: Buffer) => {
      err.push(c);
      toLog(c);
    });
    if (child.pid !== undefined) {
      activeGroups.add(child.pid);
      noteGroup(child.pid);
      options.onStart?.(child.pid);
    }

    child.on('error', (e: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      stopWatching();
      const reason =
        e.code === 'ENOENT' ? `program '${file}' not found` : `${e.code ?? 'error'}: ${e.message}`;
      finish({ exit_code: null, signal: null, spawn_error: reason });
    });
    child.on('exit', (code, signal) => {
      if (settled) return;
      settled = true;
      stopWatching();
      if (child.pid !== undefined) activeGroups.delete(child.pid);
      // Background children may still hold the pipes open; the run is over for them too.
      const stragglers = killGroup('SIGKILL');
      const closeWait = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, 500);
      let closed = 0;
      const onClose = () => {
        if (++closed < 2) return;
        clearTimeout(closeWait);
        if (killTimer) clearTimeout(killTimer);
        finish({
          exit_code: code,
          signal,
          timed_out: timedOut,
          aborted,
          stragglers_killed: stragglers,
        });
      };
      if (child.stdout.closed) closed++;
      else child.stdout.once('close', onClose);
      if (child.stderr.closed) closed++;
      else child.stderr.once('close', onClose);
      if (closed >= 2) onClose();
    });
  });
}

function emptyOutcome(reason: string): RunOutcome {
  return {
    pid: null,
    exit_code: null,
    signal: null,
    timed_out: false,
    aborted: false,
    duration_ms: 0,
    stdout: '',
    stderr: '',
    stdout_bytes: 0,
    stderr_bytes: 0,
    stdout_truncated: false,
    stderr_truncated: false,
    stragglers_killed: false,
    spawn_error: reason,
  };
}
