import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage, SetupError } from '../../../errors.js';
import type { SpawnSpec } from '../../../exec/types.js';
import type { TracerContext, TracerOutput, TracerSession } from '../../types.js';
import { wrapInCgroup } from '../cgroup-launcher.js';
import { closeStream } from '../close-stream.js';
import { FileTail } from '../file-tail.js';
import { findCgroup2Mount } from '../mounts.js';
import { EBPF_RAW_LOG } from '../raw-log-redaction.js';
import { REORDER_WINDOW_NS, RecordStream } from '../record-stream.js';
import { createRunCgroup, type RunCgroup, removeCgroup, stopCgroup } from '../run-cgroup.js';
import { ensureTracefs } from '../tracefs.js';
import type { CollectorConnection } from './connection.js';
import { connectToCollector, defaultPaths, type Paths } from './daemon.js';
import { COLLECTOR_IDLE_EXIT_S, COLLECTOR_PROTOCOL } from './paths.js';

/** The READY line follows OK at once; allow for a loaded host. */
const READY_TIMEOUT_MS = 10_000;

/**
 * The run's view of the host's compiled collector: a cgroup of its own, registered with the
 * collector before the agent starts, and the file the collector writes this cgroup's records to,
 * followed line by line. Opening costs a cgroup, a connection and one round trip.
 */
export async function startCollectorSession(
  ctx: TracerContext,
  paths: Paths = defaultPaths(),
): Promise<TracerSession> {
  const mount = await findCgroup2Mount();
  if (!mount)
    throw new SetupError('the ebpf tracer needs a cgroup v2 hierarchy; none is mounted (see /proc/mounts)');
  // libbpf finds each tracepoint's id in tracefs.
  const tracefs = await ensureTracefs();
  if (!tracefs.ok) throw new SetupError(`the ebpf tracer cannot use syscall tracepoints: ${tracefs.reason}`);
  mkdirSync(ctx.scratch_dir, { recursive: true });
  const rawPath = join(ctx.scratch_dir, EBPF_RAW_LOG);
  // Made here, so that the tail can open it before the collector's first write.
  closeSync(openSync(rawPath, 'w', 0o600));
  const connection = await connectToCollector(paths);
  let cgroup: RunCgroup | null = null;
  try {
    // The collector follows the run's cgroup tree: what the run starts in a child cgroup is still traced.
    cgroup = await createRunCgroup(mount, ctx.run_id, { children: true });
    const watching = await connection.watch(cgroup.id, rawPath);
    if (!watching.version.startsWith(`agentguard-collector ${COLLECTOR_PROTOCOL} `)) {
      throw new SetupError(
        `the collector serving this host is another version (${watching.version}; this agentguard speaks ${COLLECTOR_PROTOCOL}); it exits once idle for ${COLLECTOR_IDLE_EXIT_S} s`,
      );
    }
    const session = new CollectorSession(
      ctx,
      cgroup,
      connection,
      rawPath,
      watching.version,
      watching.missing,
    );
    await session.ready().catch(async (err: unknown) => {
      await session.stop().catch(() => undefined);
      throw err;
    });
    return session;
  } catch (err) {
    connection.close();
    if (cgroup) await removeCgroup(cgroup).catch(() => undefined);
    throw err instanceof SetupError
      ? err
      : new SetupError(`the compiled collector did not take the run: ${errorMessage(err)}`, { cause: err });
  }
}

class CollectorSession implements TracerSession {
  readonly kind = 'ebpf' as const;
  private readonly stream: RecordStream;
  private readonly tail: FileTail;
  /** This kernel has bind's tracepoints: the evidence says which ports the run's servers hold. */
  private readonly binds: boolean;
  private readonly warnings: string[] = [];
  private stopping: Promise<TracerOutput> | null = null;

  constructor(
    ctx: TracerContext,
    private readonly cgroup: RunCgroup,
    private readonly connection: CollectorConnection,
    private readonly rawPath: string,
    private readonly version: string,
    missing: string[],
  ) {
    this.binds = !missing.includes('bind');
    if (missing.length > 0)
      this.warnings.push(`not traced (no tracepoint in this kernel): ${missing.join(', ')}`);
    this.stream = new RecordStream('collector', REORDER_WINDOW_NS.ringBuffer, ctx.onEvent);
    this.tail = new FileTail(rawPath, (line, complete) => {
      if (this.stream.wantsLive(line)) this.stream.line(line, complete);
    });
  }

  get zeroWallMs(): number | null {
    return this.stream.zeroWallMs;
  }

  get cgroupTree(): string {
    return this.cgroup.path;
  }

  wrap(spec: SpawnSpec): SpawnSpec {
    return wrapInCgroup(spec, this.cgroup.dir);
  }

  ready(): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        clearInterval(watchdog);
        reject(
          new SetupError(`the compiled collector wrote no READY record within ${READY_TIMEOUT_MS / 1000} s`),
        );
      }, READY_TIMEOUT_MS);
      const watchdog = setInterval(() => {
        if (this.connection.isOpen) return;
        clearTimeout(timer);
        clearInterval(watchdog);
        reject(new SetupError(`the compiled collector went away: ${this.connection.lostReason}`));
      }, 20);
      this.stream.onReady(() => {
        clearTimeout(timer);
        clearInterval(watchdog);
        resolve();
      });
    });
  }

  stop(): Promise<TracerOutput> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  private async shutdown(): Promise<TracerOutput> {
    this.warnings.push(...(await stopCgroup(this.cgroup.dir)));
    // Noticed before STOP: a collector that died mid-run closed the connection at that moment.
    const diedEarly = this.connection.isOpen ? null : this.connection.lostReason;
    // STOP makes the collector drain its ring buffer into the file and close it before it answers:
    // after DONE the file is complete.
    const done = diedEarly ? null : await this.connection.stop();
    let incomplete: string | undefined;
    if (!done) {
      const why = diedEarly ?? this.connection.lostReason ?? 'it did not answer';
      incomplete = `the compiled collector stopped serving the run (${why}); events after its last record are missing`;
    }
    // After DONE the collector has closed the file: what it holds now is all there is.
    await this.tail.end({ writerClosed: done !== null }).catch((err: unknown) => {
      incomplete ??= `could not read the collector's output: ${errorMessage(err)}`;
    });
    return closeStream({
      stream: this.stream,
      source: 'collector',
      rawPath: this.rawPath,
      cgroup: this.cgroup,
      version: this.version,
      warnings: this.warnings,
      incomplete,
      binds: this.binds,
    });
  }
}
