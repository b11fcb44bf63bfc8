import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage, SetupError } from '../../errors.js';
import type { SpawnSpec } from '../../exec/types.js';
import type { TracerContext, TracerFallback, TracerOutput, TracerSession } from '../types.js';
import { bpftraceVersion } from './availability.js';
import { type BpftraceExit, BpftraceProcess, stderrProblems } from './bpftrace-process.js';
import { generateScript } from './bpftrace-script.js';
import { wrapInCgroup } from './cgroup-launcher.js';
import { closeStream } from './close-stream.js';
import { mechanismTracepoints } from './mechanism-tracepoints.js';
import { findCgroup2Mount } from './mounts.js';
import { EBPF_RAW_LOG } from './raw-log-redaction.js';
import { TICK_MS } from './record-format.js';
import { nowNs, REORDER_WINDOW_NS, RecordStream, waitForTick } from './record-stream.js';
import { createRunCgroup, type RunCgroup, removeCgroup, stopCgroup } from './run-cgroup.js';
import { ensureTracefs, exitHasGroupDead, syscallTracepoints } from './tracefs.js';
import { WAKEUP_EVENTS, type WakeupBatching, wakeupBatching } from './wakeup-batching.js';

/** Loading ~100 probes (mostly LLVM) takes about 6 s on two cores; allow for a busy host. */
const READY_TIMEOUT_MS = 90_000;
/** How long bpftrace may take to work through a backlog once the workload is gone. */
const CATCH_UP_TIMEOUT_MS = 60_000;
const MAX_SAMPLES = 5;

/**
 * The fallback ebpf engine: bpftrace compiling a script generated for this run, on a fresh cgroup.
 * Resolves once every probe is attached.
 */
export async function startBpftraceSession(ctx: TracerContext): Promise<BpftraceSession> {
  const mount = await findCgroup2Mount();
  if (!mount)
    throw new SetupError('the ebpf tracer needs a cgroup v2 hierarchy; none is mounted (see /proc/mounts)');
  const tracefs = await ensureTracefs();
  if (!tracefs.ok) throw new SetupError(`the ebpf tracer cannot use syscall tracepoints: ${tracefs.reason}`);
  const version = await bpftraceVersion();
  if (!version)
    throw new SetupError('bpftrace is not installed or does not run (apt-get install -y bpftrace)');
  const cgroup = await createRunCgroup(mount, ctx.run_id);
  let session: BpftraceSession | undefined;
  try {
    const batching = wakeupBatching();
    const { script, missing } = generateScript({
      cgroupPath: cgroup.dir,
      cgroupId: cgroup.id,
      syscallTracepoints: await syscallTracepoints(tracefs.dir),
      exitHasGroupDead: await exitHasGroupDead(tracefs.dir),
      mechanisms: await mechanismTracepoints(tracefs.dir),
      ...(batching.ok ? { wakeupEvents: WAKEUP_EVENTS } : {}),
    });
    await mkdir(ctx.scratch_dir, { recursive: true });
    const scriptPath = join(ctx.scratch_dir, 'ebpf-trace.bt');
    await writeFile(scriptPath, script);
    const rawPath = join(ctx.scratch_dir, EBPF_RAW_LOG);
    session = new BpftraceSession(
      ctx,
      cgroup,
      scriptPath,
      rawPath,
      `bpftrace ${version.text}`,
      missing,
      batching,
    );
    await session.ready();
    return session;
  } catch (err) {
    if (session) await session.stop().catch(() => undefined);
    else await removeCgroup(cgroup).catch(() => undefined);
    throw err instanceof SetupError
      ? err
      : new SetupError(`the ebpf tracer did not start: ${errorMessage(err)}`, { cause: err });
  }
}

export class BpftraceSession implements TracerSession {
  readonly kind = 'ebpf' as const;
  fallback?: TracerFallback;
  private readonly bpftrace: BpftraceProcess;
  private readonly stream: RecordStream;
  /** This kernel has bind's tracepoints: the evidence says which ports the run's servers hold. */
  private readonly binds: boolean;
  private readonly warnings: string[] = [];
  /** How far past the stop a tick must be before everything up to the stop is known to be read. */
  private readonly catchUpNs: number;
  private stopping: Promise<TracerOutput> | null = null;

  constructor(
    ctx: TracerContext,
    private readonly cgroup: RunCgroup,
    scriptPath: string,
    private readonly rawPath: string,
    private readonly version: string,
    missing: string[],
    batching: WakeupBatching,
  ) {
    this.binds = !missing.includes('bind');
    if (missing.length > 0) {
      this.warnings.push(`not traced (no tracepoint in this kernel): ${missing.join(', ')}`);
    }
    if (!batching.ok)
      this.warnings.push(`perf wakeups not batched: ${batching.reason} (fix: ${batching.fix})`);
    // With batched wakeups a record may wait up to a tick period before bpftrace reads it.
    this.catchUpNs = (batching.ok ? 2 : 1) * TICK_MS * 1e6;
    this.stream = new RecordStream('bpftrace', REORDER_WINDOW_NS.perCpuBuffers, ctx.onEvent);
    const env = batching.ok ? batching.env : {};
    this.bpftrace = new BpftraceProcess(scriptPath, rawPath, env, (line, complete) => {
      if (this.stream.wantsLive(line)) this.stream.line(line, complete);
    });
  }

  get zeroWallMs(): number | null {
    return this.stream.zeroWallMs;
  }

  wrap(spec: SpawnSpec): SpawnSpec {
    return wrapInCgroup(spec, this.cgroup.dir);
  }

  /** Resolves when bpftrace's BEGIN probe has run, i.e. every other probe is attached. */
  ready(): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new SetupError(`bpftrace did not attach its probes within ${READY_TIMEOUT_MS / 1000} s`));
      }, READY_TIMEOUT_MS);
      this.stream.onReady(() => {
        clearTimeout(timer);
        resolve();
      });
      this.bpftrace.exited.then((exit) => {
        clearTimeout(timer);
        const problems = stderrProblems(this.bpftrace.stderr).slice(-5).join(' | ');
        reject(
          new SetupError(`bpftrace exited before attaching its probes (${describeExit(exit)}): ${problems}`),
        );
      });
    });
  }

  stop(): Promise<TracerOutput> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  private async shutdown(): Promise<TracerOutput> {
    const exitedEarly = this.bpftrace.hasExited;
    this.warnings.push(...(await stopCgroup(this.cgroup.dir)));
    // Every record from before now is in a perf buffer; once bpftrace has printed a tick from a
    // full period later, it has read those buffers too. (A session that never got ready has none.)
    let incomplete: string | undefined;
    if (!exitedEarly && this.stream.ready) {
      const caughtUp = await waitForTick(
        this.stream,
        nowNs() + this.catchUpNs,
        CATCH_UP_TIMEOUT_MS,
        () => this.bpftrace.hasExited,
      );
      if (!caughtUp) {
        incomplete = `bpftrace did not catch up within ${CATCH_UP_TIMEOUT_MS / 1000} s; the last events may be missing`;
      }
    }
    this.bpftrace.kill();
    await this.bpftrace.drained.catch((err: unknown) => {
      incomplete ??= `could not read all of bpftrace's output: ${errorMessage(err)}`;
    });
    if (exitedEarly) {
      const exit = await this.bpftrace.exited;
      incomplete = `bpftrace exited during the run (${describeExit(exit)}); events after that are missing`;
    }
    for (const problem of stderrProblems(this.bpftrace.stderr).slice(0, MAX_SAMPLES)) {
      this.warnings.push(`bpftrace: ${problem}`);
    }
    const output = await closeStream({
      stream: this.stream,
      source: 'bpftrace',
      rawPath: this.rawPath,
      cgroup: this.cgroup,
      version: this.version,
      warnings: this.warnings,
      incomplete,
      binds: this.binds,
    });
    // bpftrace reads the path a call was given, not the file the kernel opened (docs/coverage.md).
    return { ...output, paths: 'as-written' };
  }
}

function describeExit(exit: BpftraceExit): string {
  return exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
}
