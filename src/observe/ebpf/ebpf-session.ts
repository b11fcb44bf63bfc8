import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage, SetupError } from '../../errors.js';
import type { SysEvent } from '../../evidence/types.js';
import type { SpawnSpec } from '../../exec/types.js';
import type { TracerContext, TracerOutput, TracerSession } from '../types.js';
import { bpftraceVersion } from './availability.js';
import { type BpftraceExit, BpftraceProcess, stderrProblems } from './bpftrace-process.js';
import { generateScript } from './bpftrace-script.js';
import { wrapInCgroup } from './cgroup-launcher.js';
import { EventAssembler, type RawEvent } from './event-assembler.js';
import { EventNormaliser } from './event-normaliser.js';
import { readLines } from './line-splitter.js';
import { mechanismTracepoints } from './mechanism-tracepoints.js';
import { findCgroup2Mount } from './mounts.js';
import { EBPF_RAW_LOG } from './raw-log-redaction.js';
import { REC_READY, REC_TICK, TICK_MS } from './record-format.js';
import { type BpfRecord, parseLine, quickRecordType } from './record-parser.js';
import { ReorderBuffer } from './reorder-buffer.js';
import { createRunCgroup, killCgroup, type RunCgroup, removeCgroup } from './run-cgroup.js';
import { ensureTracefs, exitHasGroupDead, syscallTracepoints } from './tracefs.js';
import { WAKEUP_EVENTS, type WakeupBatching, wakeupBatching } from './wakeup-batching.js';

/** Loading ~100 probes (mostly LLVM) takes about 6 s on two cores; allow for a busy host. */
const READY_TIMEOUT_MS = 90_000;
/** Records from different CPUs arrive up to one bpftrace poll (100 ms) apart; wait a bit longer. */
const REORDER_WINDOW_NS = 300e6;
const RELEASE_EVERY_NS = 20e6;
/** How long bpftrace may take to work through a backlog once the workload is gone. */
const CATCH_UP_TIMEOUT_MS = 60_000;
const MAX_SAMPLES = 5;

/** Starts bpftrace on a fresh cgroup for the run; resolves once every probe is attached. */
export async function startEbpfSession(ctx: TracerContext): Promise<TracerSession> {
  const mount = await findCgroup2Mount();
  if (!mount)
    throw new SetupError('the ebpf tracer needs a cgroup v2 hierarchy; none is mounted (see /proc/mounts)');
  const tracefs = await ensureTracefs();
  if (!tracefs.ok) throw new SetupError(`the ebpf tracer cannot use syscall tracepoints: ${tracefs.reason}`);
  const version = await bpftraceVersion();
  if (!version)
    throw new SetupError('bpftrace is not installed or does not run (apt-get install -y bpftrace)');
  const cgroup = await createRunCgroup(mount, ctx.run_id);
  let session: EbpfSession | undefined;
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
    session = new EbpfSession(
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

class EbpfSession implements TracerSession {
  readonly kind = 'ebpf' as const;
  private readonly bpftrace: BpftraceProcess;
  private readonly assembler = new EventAssembler();
  /**
   * Records, not yet joined into events, wait here to be put in time order: an exec's argv is sent
   * at syscall entry and its record after the exec, possibly from another CPU's buffer (exec
   * migrates tasks), which with batched wakeups may be read later.
   */
  private readonly reorder = new ReorderBuffer<EventRecord>(REORDER_WINDOW_NS);
  private lastRelease = 0;
  private normaliser: EventNormaliser | null = null;
  zeroWallMs: number | null = null;
  private readonly events: SysEvent[] = [];
  private readonly warnings: string[] = [];
  private lost = 0;
  private corrupt = 0;
  private readonly corruptSamples: string[] = [];
  private lastTick = 0;
  /** How far past the stop a tick must be before everything up to the stop is known to be read. */
  private readonly catchUpNs: number;
  private onReady: (() => void) | null = null;
  private stopping: Promise<TracerOutput> | null = null;
  /**
   * With an onEvent listener, lines are parsed as they come. Without one, parsing waits for stop():
   * on a small host it would take CPU from the workload, and only ticks are needed until then.
   */
  private readonly live: boolean;

  constructor(
    private readonly ctx: TracerContext,
    private readonly cgroup: RunCgroup,
    scriptPath: string,
    private readonly rawPath: string,
    private readonly version: string,
    missing: string[],
    batching: WakeupBatching,
  ) {
    if (missing.length > 0) {
      this.warnings.push(`not traced (no tracepoint in this kernel): ${missing.join(', ')}`);
    }
    if (!batching.ok)
      this.warnings.push(`perf wakeups not batched: ${batching.reason} (fix: ${batching.fix})`);
    // With batched wakeups a record may wait up to a tick period before bpftrace reads it.
    this.catchUpNs = (batching.ok ? 2 : 1) * TICK_MS * 1e6;
    this.live = ctx.onEvent !== undefined;
    const env = batching.ok ? batching.env : {};
    this.bpftrace = new BpftraceProcess(scriptPath, rawPath, env, (line, complete) => {
      if (this.live || isClockLine(line)) this.line(line, complete);
    });
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
      this.onReady = () => {
        clearTimeout(timer);
        resolve();
      };
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
    // Whatever still runs in the cgroup (a daemon the agent left, or a hostile workload) is killed
    // first, so that its exit is traced and nothing outlives the window.
    const { killed, remaining } = await killCgroup(this.cgroup.dir);
    if (killed.length > 0) {
      this.warnings.push(`killed ${killed.length} process(es) still running at stop: ${killed.join(', ')}`);
    }
    if (remaining.length > 0) {
      this.warnings.push(`could not kill process(es) ${remaining.join(', ')} in ${this.cgroup.dir}`);
    }
    // Every record from before now is in a perf buffer; once bpftrace has printed a tick from a
    // full period later, it has read those buffers too. (A session that never got ready has none.)
    if (!exitedEarly && this.normaliser) {
      if (!(await this.waitForTick(nowNs() + this.catchUpNs))) {
        this.warnings.push(
          `bpftrace did not catch up within ${CATCH_UP_TIMEOUT_MS / 1000} s; the last events may be missing`,
        );
      }
    }
    this.bpftrace.kill();
    await this.bpftrace.drained.catch((err: unknown) => {
      this.warnings.push(`could not read all of bpftrace's output: ${errorMessage(err)}`);
    });
    if (!this.live) {
      await readLines(this.rawPath, (line, complete) => this.line(line, complete)).catch((err: unknown) => {
        this.warnings.push(`could not read bpftrace's output: ${errorMessage(err)}`);
      });
    }
    for (const record of this.reorder.drain()) this.assemble(record);
    this.assembler.finish();
    if (exitedEarly) {
      const exit = await this.bpftrace.exited;
      this.warnings.push(
        `bpftrace exited during the run (${describeExit(exit)}); events after that are missing`,
      );
    }
    for (const problem of stderrProblems(this.bpftrace.stderr).slice(0, MAX_SAMPLES)) {
      this.warnings.push(`bpftrace: ${problem}`);
    }
    if (this.corrupt > 0) {
      this.warnings.push(
        `${this.corrupt} unreadable bpftrace line(s) counted as lost, e.g. ${this.corruptSamples.join(' | ')}`,
      );
    }
    if (this.assembler.orphanParts > 0) {
      this.warnings.push(
        `${this.assembler.orphanParts} string part(s) without their event (lost in the kernel)`,
      );
    }
    try {
      await removeCgroup(this.cgroup);
    } catch (err) {
      this.warnings.push(`could not remove cgroup ${this.cgroup.dir}: ${errorMessage(err)}`);
    }
    return {
      events: this.events,
      lost_events: this.lost + this.corrupt,
      version: this.version,
      warnings: this.warnings,
    };
  }

  private waitForTick(targetNs: number): Promise<boolean> {
    const deadline = Date.now() + CATCH_UP_TIMEOUT_MS;
    return new Promise((resolve) => {
      const check = () => {
        if (this.lastTick >= targetNs) resolve(true);
        else if (this.bpftrace.hasExited || Date.now() > deadline) resolve(false);
        else setTimeout(check, 20);
      };
      check();
    });
  }

  /** `complete` is false for a last line without its newline (bpftrace was killed mid-write). */
  private line(line: string, complete: boolean): void {
    const parsed = parseLine(line);
    switch (parsed.kind) {
      case 'ignored':
        return;
      case 'lost':
        this.lost += parsed.count;
        return;
      case 'corrupt':
        // A cut-off tick or bookkeeping line at the very end is no lost event.
        if (!complete && !/"data": \[[1-5],/.test(line)) return;
        this.corrupt++;
        if (this.corruptSamples.length < MAX_SAMPLES)
          this.corruptSamples.push(`${parsed.reason}: ${line.slice(0, 120)}`);
        return;
      case 'record': {
        const { record } = parsed;
        if (record.type === 'ready') this.started(record.t);
        else if (record.type === 'tick') {
          this.lastTick = Math.max(this.lastTick, record.t);
          // Once bpftrace printed a tick, it has read what the CPUs wrote a window before it. (Ticks
          // come in batches of almost the same time: one release per RELEASE_EVERY_NS is enough.)
          if (this.lastTick - this.lastRelease >= RELEASE_EVERY_NS) {
            this.lastRelease = this.lastTick;
            for (const held of this.reorder.release(this.lastTick)) this.assemble(held);
          }
        } else {
          this.reorder.push(record);
        }
      }
    }
  }

  private started(t: number): void {
    if (this.normaliser) return;
    this.normaliser = new EventNormaliser(t);
    // bpftrace's nsecs and Node's hrtime are both CLOCK_MONOTONIC.
    this.zeroWallMs = Date.now() - (Number(process.hrtime.bigint()) - t) / 1e6;
    this.onReady?.();
  }

  private assemble(record: EventRecord): void {
    const raw = this.assembler.push(record);
    if (raw) this.normalise(raw);
  }

  private normalise(raw: RawEvent): void {
    this.normaliser ??= new EventNormaliser(raw.t);
    const event = this.normaliser.push(raw);
    if (!event) return;
    this.events.push(event);
    try {
      this.ctx.onEvent?.(event);
    } catch (err) {
      if (this.warnings.length < 50) this.warnings.push(`onEvent threw: ${errorMessage(err)}`);
    }
  }
}

type EventRecord = Exclude<BpfRecord, { type: 'ready' | 'tick' }>;

/** READY and TICK lines: all a deferred session reads while the workload runs. */
function isClockLine(line: string): boolean {
  const type = quickRecordType(line);
  return type === REC_READY || type === REC_TICK;
}

/** CLOCK_MONOTONIC in nanoseconds: the clock of bpftrace's `nsecs`. */
function nowNs(): number {
  return Number(process.hrtime.bigint());
}

function describeExit(exit: BpftraceExit): string {
  return exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
}
