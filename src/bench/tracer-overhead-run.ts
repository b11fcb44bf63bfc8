import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { SysEvent } from '../evidence/types.js';
import { runCommand } from '../exec/run-command.js';
import type { SpawnSpec } from '../exec/types.js';
import type { Tracer } from '../observe/types.js';
import { bwrapSandbox } from '../sandbox/bwrap.js';
import type { SandboxSession } from '../sandbox/types.js';

export type Mode = 'untraced' | 'ebpf' | 'strace';

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
  events: SysEvent[];
  lost: number;
  warnings: string[];
  /** CPU time of the bpftrace process while the command ran (ebpf only; 0 otherwise). */
  tracer_cpu_ms: number;
  /** CPU time of this process (runCommand, live parsing) while the command ran. */
  harness_cpu_ms: number;
};

export type RunSetup = {
  /** Bench scratch root; each run gets its own folder below it. */
  root: string;
  tracers: Partial<Record<Exclude<Mode, 'untraced'>, Tracer>>;
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
 * Runs `makeSpec(workDir, homeDir)` once under `mode` the way the pipeline does: tracer.start, then
 * runCommand on tracer.wrap(sandbox.wrap(spec)), then tracer.stop. Only the command's own run is
 * its wall time; start and stop are timed apart.
 */
export async function measure(
  setup: RunSetup,
  mode: Mode,
  label: string,
  makeSpec: (workDir: string, homeDir: string) => SpawnSpec,
): Promise<Sample> {
  const runId = `bench-${process.pid}-${++counter}-${label}-${mode}`;
  const runDir = path.join(setup.root, runId);
  const workDir = path.join(runDir, 'repo');
  const homeDir = path.join(runDir, 'home');
  const scratch = path.join(runDir, 'scratch');
  mkdirSync(runDir, { recursive: true });
  mkdirSync(scratch, { recursive: true });
  const spec = makeSpec(workDir, homeDir);
  mkdirSync(homeDir, { recursive: true });

  let sandbox: SandboxSession | null = null;
  if (setup.sandbox) {
    sandbox = await bwrapSandbox.start({
      runId,
      runDir,
      repoDir: workDir,
      homeDir,
      homeInside: homeDir,
      visible: setup.visible,
      network: { mode: 'none', allow: [], hosts: {} },
    });
  }
  try {
    const tracer = mode === 'untraced' ? undefined : setup.tracers[mode];
    if (mode !== 'untraced' && !tracer) throw new Error(`tracer ${mode} is not available`);
    let seen = 0;
    const t0 = performance.now();
    const session = tracer
      ? await tracer.start({
          run_id: runId,
          scratch_dir: scratch,
          workspace: workDir,
          ...(setup.live ? { onEvent: () => void seen++ } : {}),
        })
      : null;
    const startMs = performance.now() - t0;
    const bpftrace = mode === 'ebpf' ? childNamed('bpftrace') : null;
    const tracerCpu0 = bpftrace ? processCpuMs(bpftrace) : 0;
    const harnessCpu0 = process.cpuUsage();
    const sandboxed = sandbox ? sandbox.wrap(spec) : spec;
    const outcome = await runCommand({
      spec: session ? session.wrap(sandboxed) : sandboxed,
      timeoutMs: 600_000,
      maxOutputBytes: 1 << 20,
    });
    const tracerCpu = bpftrace ? processCpuMs(bpftrace) - tracerCpu0 : 0;
    const harnessCpu = process.cpuUsage(harnessCpu0);
    const t1 = performance.now();
    const output = session ? await session.stop() : null;
    const stopMs = session ? performance.now() - t1 : 0;
    if (output && setup.live && seen !== output.events.length) {
      output.warnings.push(`onEvent saw ${seen} events, stop() returned ${output.events.length}`);
    }
    return {
      mode,
      wall_ms: outcome.duration_ms,
      start_ms: session ? startMs : 0,
      stop_ms: stopMs,
      exit_code: outcome.exit_code,
      stdout: outcome.stdout,
      stderr: outcome.stderr,
      events: output?.events ?? [],
      lost: output?.lost_events ?? 0,
      warnings: output?.warnings ?? [],
      tracer_cpu_ms: Math.round(tracerCpu),
      harness_cpu_ms: Math.round((harnessCpu.user + harnessCpu.system) / 1000),
    };
  } finally {
    await sandbox?.stop();
  }
}

/** A child process of this one with the given command name (the tracer's own process), or null. */
function childNamed(name: string): number | null {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(Number(entry));
    if (stat && stat.comm === name && stat.fields[1] === String(process.pid)) return Number(entry);
  }
  return null;
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

/** The rotation of modes for repetition `rep`, so no mode always runs first (or right after another). */
export function rotation(modes: Mode[], rep: number): Mode[] {
  const shift = rep % modes.length;
  return [...modes.slice(shift), ...modes.slice(0, shift)];
}

export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** `min..max`, rounded, for the spread of a set of figures. */
export function spread(values: number[], digits = 0): string {
  if (values.length === 0) return 'n/a';
  return `${round(Math.min(...values), digits)}..${round(Math.max(...values), digits)}`;
}

export function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** Overhead of `traced` over `base` in percent. */
export function overheadPct(traced: number, base: number): number {
  return round((traced / base - 1) * 100, 1);
}
