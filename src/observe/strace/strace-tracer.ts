import { rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage, InternalError, SetupError } from '../../errors.js';
import { rootFileName } from '../../evidence/root-files.js';
import type { SysEvent } from '../../evidence/types.js';
import type { SpawnSpec } from '../../exec/types.js';
import { appendRoot } from '../append-root.js';
import { readLines } from '../line-reader.js';
import type { Tracer, TracerContext, TracerOutput, TracerSession } from '../types.js';
import { CloneIndexer } from './clone-index.js';
import { LogTail } from './log-tail.js';
import { findExecutable, INSTALL_FIX, probeStrace, straceOptions, straceVersion } from './strace-command.js';
import { type StraceParseResult, StraceParser } from './strace-parser.js';

export type StraceTracerOptions = {
  /** strace binary name or path; looked up on PATH. */
  bin?: string;
  /** `-s`: longest string strace prints in full (argv items, sendto data); longer ones are marked truncated. */
  stringLimit?: number;
  /** How often the log is read for live events, when the context wants them. */
  pollMs?: number;
};

const LOG_FILE = 'strace.log';

/** The `strace -f` tracer (syscall stops: strace-command.ts says why). */
export function createStraceTracer(options: StraceTracerOptions = {}): Tracer {
  const binName = options.bin ?? 'strace';
  return {
    kind: 'strace',
    available: () => probeStrace(binName),
    async start(ctx) {
      const startMs = Date.now();
      const bin = findExecutable(binName);
      if (!bin) throw new SetupError(`strace tracer: ${binName} not found on PATH; fix: ${INSTALL_FIX}`);
      const version = (await straceVersion(bin)) ?? 'unknown';
      await mkdir(ctx.scratch_dir, { recursive: true });
      return new StraceSession(ctx, {
        bin,
        version,
        startMs,
        stringLimit: options.stringLimit ?? 4096,
        pollMs: options.pollMs ?? 200,
      });
    },
  };
}

export const straceTracer: Tracer = createStraceTracer();

type SessionSettings = { bin: string; version: string; startMs: number; stringLimit: number; pollMs: number };

class StraceSession implements TracerSession {
  readonly kind = 'strace' as const;
  /** One strace per wrapped command (the agent, then the tests), each with its own log. */
  private readonly roots: { logPath: string; cwd: string }[] = [];
  private live: { tail: LogTail; parser: StraceParser; timer: NodeJS.Timeout } | undefined;
  private polling: Promise<void> = Promise.resolve();
  private stopping: Promise<TracerOutput> | undefined;
  private readonly liveWarnings: string[] = [];
  readonly zeroWallMs: number;

  constructor(
    private readonly ctx: TracerContext,
    private readonly settings: SessionSettings,
  ) {
    this.zeroWallMs = settings.startMs;
  }

  wrap(spec: SpawnSpec): SpawnSpec {
    // One log per root: each parser's process tree and cwd tracking start from its own spawn.
    if (this.stopping) throw new InternalError('strace tracer: wrap() after stop()');
    const n = this.roots.length;
    const logPath = join(this.ctx.scratch_dir, rootFileName(LOG_FILE, n));
    this.roots.push({ logPath, cwd: spec.cwd });
    // A stale log from an earlier attempt would be read as this run's first lines.
    rmSync(logPath, { force: true });
    // Live events (the guard) follow the first root, the agent.
    if (n === 0 && this.ctx.onEvent) this.startLive(logPath, spec.cwd);
    const { bin, stringLimit } = this.settings;
    return { ...spec, argv: [bin, ...straceOptions(logPath, stringLimit), ...spec.argv] };
  }

  stop(): Promise<TracerOutput> {
    this.stopping ??= this.finish();
    return this.stopping;
  }

  private startLive(logPath: string, rootCwd: string): void {
    const onEvent = this.ctx.onEvent as (event: SysEvent) => void;
    const deliver = (event: SysEvent) => {
      try {
        onEvent(event);
      } catch (err) {
        if (this.liveWarnings.length === 0)
          this.liveWarnings.push(`live event consumer failed: ${errorMessage(err)}`);
      }
    };
    // Live events infer parents from pending clone calls; stop() re-reads the log with the full index.
    const parser = new StraceParser({ rootCwd, startMs: this.settings.startMs, onEvent: deliver });
    const tail = new LogTail(logPath, (line) => parser.push(line));
    const timer = setInterval(() => this.poll(), this.settings.pollMs);
    timer.unref();
    this.live = { tail, parser, timer };
  }

  private poll(): Promise<void> {
    const live = this.live;
    if (!live) return this.polling;
    this.polling = this.polling
      .then(() => live.tail.poll())
      .then(
        () => undefined,
        (err: unknown) => {
          if (this.liveWarnings.length < 5)
            this.liveWarnings.push(`reading the strace log: ${errorMessage(err)}`);
        },
      );
    return this.polling;
  }

  private async finish(): Promise<TracerOutput> {
    const { version, startMs } = this.settings;
    let liveResult: StraceParseResult | undefined;
    if (this.live) {
      clearInterval(this.live.timer);
      await this.poll();
      await this.live.tail.close();
      liveResult = this.live.parser.finish();
      this.live = undefined;
    }
    if (this.roots.length === 0) {
      return { version, events: [], lost_events: 0, warnings: ['strace tracer: nothing was wrapped'] };
    }
    const out: TracerOutput = {
      version,
      events: [],
      lost_events: 0,
      binds: true,
      warnings: [...this.liveWarnings],
    };
    for (const [i, root] of this.roots.entries()) {
      appendRoot(out, await parseLog(root.logPath, root.cwd, startMs, i === 0 ? liveResult : undefined));
    }
    return out;
  }
}

/** One strace log parsed in two passes: clone results first, so every child knows its parent. */
export async function parseLog(
  logPath: string,
  rootCwd: string,
  startMs: number,
  liveResult: StraceParseResult | undefined,
): Promise<Omit<TracerOutput, 'version'>> {
  try {
    const indexer = new CloneIndexer();
    if (!(await readLines(logPath, (line) => indexer.push(line)))) {
      return { events: [], lost_events: 0, warnings: [`strace wrote no log at ${logPath}`] };
    }
    const parser = new StraceParser({ rootCwd, startMs, clones: indexer.index });
    await readLines(logPath, (line) => parser.push(line));
    return parser.finish();
  } catch (err) {
    // The live parse saw the same lines (with inferred parents): better than nothing.
    const warning = `reading ${logPath} failed: ${errorMessage(err)}`;
    return {
      events: liveResult?.events ?? [],
      lost_events: liveResult?.lost_events ?? 0,
      warnings: [warning, ...(liveResult?.warnings ?? [])],
    };
  }
}
