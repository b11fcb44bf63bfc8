import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { runCommand } from '../exec/run-command.js';
import type { SpawnSpec } from '../exec/types.js';
import type { TracerContext, TracerSession } from '../observe/types.js';
import { bwrapSandbox } from '../sandbox/bwrap.js';
import type { SandboxSession } from '../sandbox/types.js';

export { median, overheadPct, percentile, rotation, round, spread } from '../overhead/stats.js';

/** How a run is observed: the compiled ebpf collector, bpftrace, strace, Linux audit, or not at all. */
export type Mode = 'untraced' | 'collector' | 'bpftrace' | 'strace' | 'auditd';
export type TracedMode = Exclude<Mode, 'untraced'>;

/** What the bench keeps of a run's observation (the engines record in different forms). */
export type BenchOutput = {
  events: number;
  /** Recorded opens of the open loop's target file. */
  target_opens: number;
  lost: number;
  warnings: string[];
};
export type BenchSession = { wrap(spec: SpawnSpec): SpawnSpec; stop(): Promise<BenchOutput> };
/** One observation engine as the bench drives it, and the processes whose CPU time is its own. */
export type BenchTracer = { start(ctx: TracerContext): Promise<BenchSession>; cpuPids(): number[] };

/**
 * A tracer of the pipeline (a TracerSession) as a bench engine: counts its events and the opens of
 * `target`, and checks that a live listener saw every event stop() returned.
 */
export function benchTracer(
  start: (ctx: TracerContext) => Promise<TracerSession>,
  target: string,
  cpuPids: () => number[] = () => [],
): BenchTracer {
  return {
    cpuPids,
    async start(ctx) {
      let seen = 0;
      const listener = ctx.onEvent;
      const session = await start(listener ? { ...ctx, onEvent: () => void seen++ } : ctx);
      return {
        wrap: (spec) => session.wrap(spec),
        async stop() {
          const output = await session.stop();
          const warnings = [...output.warnings];
          if (listener && seen !== output.events.length)
            warnings.push(`onEvent saw ${seen} events, stop() returned ${output.events.length}`);
          return {
            events: output.events.length,
            target_opens: output.events.filter((e) => e.kind === 'open' && e.path?.endsWith(`/${target}`))
              .length,
            lost: output.lost_events,
            warnings,
          };
        },
      };
    },
  };
}

/** One measured run of a workload. */
export type Sample = {
  mode: Mode;
  wall_ms: number;
  /** Tracer start (setup, not workload time); 0 when untraced. */
  start_ms: number;
  /** Tracer stop: catch-up, parse, clean-up; 0 when untraced. */
  stop_ms: number;
  exit_code: number | null;
  stdout: string;
  stderr: string;
  events: number;
  target_opens: number;
  lost: number;
  warnings: string[];
  /**
   * CPU time of the recorder's own processes while the command ran: bpftrace, the collector daemon,
   * auditd and kauditd (0 for strace, whose cost is in the traced processes, and untraced).
   */
  tracer_cpu_ms: number;
  /** CPU time of this process (runCommand, live parsing) while the command ran. */
  harness_cpu_ms: number;
};

export type RunSetup = {
  /** Bench scratch root; each run gets its own folder below it. */
  root: string;
  tracers: Partial<Record<TracedMode, BenchTracer>>;
  /** Run inside bubblewrap, as the pipeline does (tracer outside, sandbox inside). */
  sandbox: boolean;
  /**
   * Pass an onEvent listener, as the pipeline does when the live guard is on (its default): the
   * ebpf session then parses while the workload runs instead of at stop().
   */
  live: boolean;
  /** Host folders the sandboxed command must read (the open-loop binary). */
  visible: string[];
};

let counter = 0;

/**
 * Runs `makeSpec(workDir, hostHome)` once under `mode` the way the pipeline does: tracer.start, then
 * runCommand on tracer.wrap(sandbox.wrap(spec)), then tracer.stop. Only the command's own run is
 * its wall time; start and stop are timed apart.
 */
export async function measure(
  setup: RunSetup,
  mode: Mode,
  label: string,
  makeSpec: (workDir: string, hostHome: string) => SpawnSpec,
  /** The engine to use instead of setup.tracers[mode] (the collector's cold starts). */
  engine?: BenchTracer,
): Promise<Sample> {
  const runId = `bench-${process.pid}-${++counter}-${label}-${mode}`;
  const runDir = path.join(setup.root, runId);
  const workDir = path.join(runDir, 'repo');
  const hostHome = path.join(runDir, 'home');
  const scratch = path.join(runDir, 'scratch');
  mkdirSync(runDir, { recursive: true });
  mkdirSync(scratch, { recursive: true });
  const spec = makeSpec(workDir, hostHome);
  mkdirSync(hostHome, { recursive: true });

  let sandbox: SandboxSession | null = null;
  if (setup.sandbox) {
    sandbox = await bwrapSandbox.start({
      runId,
      runDir,
      repoDir: workDir,
      hostHome,
      agentHome: hostHome,
      visible: setup.visible,
      network: { mode: 'none', allow: [], hosts: {} },
    });
  }
  try {
    const tracer = mode === 'untraced' ? undefined : (engine ?? setup.tracers[mode]);
    if (mode !== 'untraced' && !tracer) throw new Error(`tracer ${mode} is not available`);
    const t0 = performance.now();
    const session = tracer
      ? await tracer.start({
          run_id: runId,
          scratch_dir: scratch,
          workspace: workDir,
          ...(setup.live ? { onEvent: () => {} } : {}),
        })
      : null;
    const startMs = performance.now() - t0;
    const cpuPids = tracer?.cpuPids() ?? [];
    const tracerCpu0 = cpuMsOf(cpuPids);
    const harnessCpu0 = process.cpuUsage();
    const sandboxed = sandbox ? sandbox.wrap(spec) : spec;
    const outcome = await runCommand({
      spec: session ? session.wrap(sandboxed) : sandboxed,
      timeoutMs: 600_000,
      maxOutputBytes: 1 << 20,
    });
    const tracerCpu = cpuMsOf(cpuPids) - tracerCpu0;
    const harnessCpu = process.cpuUsage(harnessCpu0);
    const t1 = performance.now();
    const output = session ? await session.stop() : null;
    const stopMs = session ? performance.now() - t1 : 0;
    return {
      mode,
      wall_ms: outcome.duration_ms,
      start_ms: session ? startMs : 0,
      stop_ms: stopMs,
      exit_code: outcome.exit_code,
      stdout: outcome.stdout,
      stderr: outcome.stderr,
      events: output?.events ?? 0,
      target_opens: output?.target_opens ?? 0,
      lost: output?.lost ?? 0,
      warnings: output?.warnings ?? [],
      tracer_cpu_ms: Math.round(tracerCpu),
      harness_cpu_ms: Math.round((harnessCpu.user + harnessCpu.system) / 1000),
    };
  } finally {
    await sandbox?.stop();
  }
}

/** A child process of this one with the given command name (the tracer's own process), or null. */
export function childNamed(name: string): number | null {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(Number(entry));
    if (stat && stat.comm === name && stat.fields[1] === String(process.pid)) return Number(entry);
  }
  return null;
}

function cpuMsOf(pids: number[]): number {
  return pids.reduce((ms, pid) => ms + processCpuMs(pid), 0);
}

/** utime + stime of a live process, in ms (clock ticks are 100 Hz on Linux). */
function processCpuMs(pid: number): number {
  const stat = procStat(pid);
  return stat ? (Number(stat.fields[11]) + Number(stat.fields[12])) * 10 : 0;
}

/** /proc/PID/stat split after the command name (fields[0] is the state, fields[1] the parent). */
function procStat(pid: number): { comm: string; fields: string[] } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = text.lastIndexOf(')');
    return { comm: text.slice(text.indexOf('(') + 1, close), fields: text.slice(close + 2).split(' ') };
  } catch {
    return null;
  }
}
