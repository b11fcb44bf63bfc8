import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ebpfTracer } from '../observe/ebpf/index.js';
import { straceTracer } from '../observe/strace/index.js';
import type { Tracer } from '../observe/types.js';
import { bwrapAvailability } from '../sandbox/bwrap.js';
import {
  type Mode,
  measure,
  median,
  overheadPct,
  type RunSetup,
  rotation,
  round,
  type Sample,
  spread,
} from './tracer-overhead-run.js';
import { agentLikeCpuMs, agentLikeSpec, generateAgentLikeTemplate } from './workloads/agent-like.js';
import {
  buildOpenLoop,
  calibrateSpin,
  OPEN_LOOP_TARGET,
  type OpenLoopParams,
  openLoopSpec,
  parseOpenLoopOutput,
} from './workloads/open-loop.js';

/**
 * Wall-clock overhead of the ebpf and strace tracers against no tracer, side by side: every
 * repetition runs each workload untraced, under ebpf and under strace (in a rotating order), the way
 * the pipeline runs an agent (tracer.start → runCommand(tracer.wrap(sandbox.wrap(spec))) → stop).
 * Workloads: an agent-like session (git, two test suites, an offline npm install) and an open-heavy
 * C loop at ~20,000 opens/s, plus an exactly clock-paced 20,000/s loop for lost and missing events,
 * and an unpaced loop for the raw cost of one traced open. Prints one JSON line.
 *
 * Options: --reps N (default 5), --deferred (no onEvent listener: ebpf parses at stop instead of
 * live), --no-sandbox (skip bubblewrap), --verbose (each run as a JSON line on stderr).
 */

const RATE = 20_000;
const LOOP_SECONDS = 3;
const UNPACED_OPENS = 100_000;

type Options = { reps: number; live: boolean; sandbox: boolean; verbose: boolean };

function parseOptions(argv: string[]): Options {
  const options: Options = { reps: 5, live: true, sandbox: true, verbose: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--reps') options.reps = Math.max(1, Number(argv[++i]) || 5);
    else if (arg === '--deferred') options.live = false;
    else if (arg === '--no-sandbox') options.sandbox = false;
    else if (arg === '--verbose') options.verbose = true;
  }
  return options;
}

async function whyNot(options: Options): Promise<string | null> {
  if (process.getuid?.() !== 0) return 'needs root (the ebpf tracer loads BPF programs and makes cgroups)';
  const ebpf = await ebpfTracer.available();
  if (!ebpf.ok) return `ebpf tracer unavailable: ${ebpf.reason} (fix: ${ebpf.fix})`;
  if (options.sandbox && !bwrapAvailability().ok) return 'bubblewrap is unavailable (or pass --no-sandbox)';
  return null;
}

function openEvents(sample: Sample): number {
  return sample.events.filter((e) => e.kind === 'open' && e.path?.endsWith(`/${OPEN_LOOP_TARGET}`)).length;
}

/** Throws unless the workload ran to a clean end: a failed run would make every figure meaningless. */
function checked(sample: Sample, what: string, verbose: boolean): Sample {
  if (verbose) {
    const { events, stdout, stderr, warnings, ...rest } = sample;
    const detail = {
      what,
      ...rest,
      events: events.length,
      opens: openEvents(sample),
      out: stdout.trim().slice(-200),
    };
    process.stderr.write(`${JSON.stringify(detail)}\n`);
  }
  if (sample.exit_code !== 0) {
    const tail = `${sample.stderr}${sample.stdout}`.trim().split('\n').slice(-3).join(' | ');
    throw new Error(`${what} under ${sample.mode} exited ${sample.exit_code}: ${tail}`);
  }
  return sample;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const loadStart = loadAverage();
  const skipped = await whyNot(options);
  if (skipped) {
    process.stdout.write(`${JSON.stringify({ skipped })}\n`);
    return;
  }
  const strace = await straceTracer.available();
  const tracers: Partial<Record<Exclude<Mode, 'untraced'>, Tracer>> = { ebpf: ebpfTracer };
  if (strace.ok) tracers.strace = straceTracer;
  else process.stderr.write(`strace figures skipped: ${strace.reason}\n`);
  const modes: Mode[] = strace.ok ? ['untraced', 'ebpf', 'strace'] : ['untraced', 'ebpf'];
  const traced = modes.filter((m): m is Exclude<Mode, 'untraced'> => m !== 'untraced');

  const root = mkdtempSync(path.join(tmpdir(), 'ag-tracer-bench-'));
  try {
    const template = path.join(root, 'template');
    generateAgentLikeTemplate(template);
    const bin = path.join(root, 'bin');
    mkdirSync(bin);
    const built = buildOpenLoop(bin);
    if ('error' in built) {
      process.stdout.write(`${JSON.stringify({ skipped: built.error })}\n`);
      return;
    }
    const calibration = path.join(root, 'calibrate');
    mkdirSync(calibration);
    const spin = calibrateSpin(built.binary, calibration, 1e6 / RATE);
    const count = RATE * LOOP_SECONDS;
    const workPaced: OpenLoopParams = { count, spin, rate: 0, batch: 1 };
    const clockPaced: OpenLoopParams = { count, spin: 0, rate: RATE, batch: 20 };
    const unpaced: OpenLoopParams = { count: UNPACED_OPENS, spin: 0, rate: 0, batch: 1 };

    const setup: RunSetup = { root, tracers, sandbox: options.sandbox, live: options.live, visible: [bin] };
    const realistic: Sample[] = [];
    const loop: Sample[] = [];
    const paced: Sample[] = [];
    const raw: Sample[] = [];
    const loopSpec = (params: OpenLoopParams) => (work: string) => {
      mkdirSync(work, { recursive: true });
      return openLoopSpec(built.binary, work, params);
    };
    for (let rep = 0; rep < options.reps; rep++) {
      for (const mode of rotation(modes, rep)) {
        const spec = (work: string, home: string) => agentLikeSpec(template, work, home);
        realistic.push(
          checked(await measure(setup, mode, 'realistic', spec), 'the agent-like workload', options.verbose),
        );
      }
      for (const mode of rotation(modes, rep + 1)) {
        loop.push(
          checked(await measure(setup, mode, 'loop', loopSpec(workPaced)), 'the open loop', options.verbose),
        );
      }
      for (const mode of rotation(traced, rep)) {
        paced.push(
          checked(
            await measure(setup, mode, 'paced', loopSpec(clockPaced)),
            'the paced loop',
            options.verbose,
          ),
        );
      }
      for (const mode of rotation(modes, rep + 2)) {
        raw.push(
          checked(
            await measure(setup, mode, 'unpaced', loopSpec(unpaced)),
            'the unpaced loop',
            options.verbose,
          ),
        );
      }
    }
    process.stdout.write(
      `${JSON.stringify(figures(options, spin, { realistic, loop, paced, raw }, traced, loadStart))}\n`,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

type AllSamples = { realistic: Sample[]; loop: Sample[]; paced: Sample[]; raw: Sample[] };

/** The 1-minute load average: wall-clock figures mean little on a host busy with other work. */
function loadAverage(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ')[0] ?? '?';
  } catch {
    return '?';
  }
}

function figures(
  options: Options,
  spin: number,
  all: AllSamples,
  traced: Exclude<Mode, 'untraced'>[],
  loadStart: string,
): Record<string, number | string> {
  const of = (samples: Sample[], mode: Mode) => samples.filter((s) => s.mode === mode);
  const wall = (samples: Sample[], mode: Mode) => of(samples, mode).map((s) => s.wall_ms);
  /** Per-repetition overheads: each traced run against the untraced run of the same repetition. */
  const paired = (samples: Sample[], mode: Mode) => {
    const base = wall(samples, 'untraced');
    return wall(samples, mode).map((ms, i) => overheadPct(ms, base[i] as number));
  };
  const loopOut = (s: Sample) => parseOpenLoopOutput(s.stdout);
  const out: Record<string, number | string> = {
    repetitions: options.reps,
    sandbox: options.sandbox ? 'bwrap' : 'none',
    ebpf_parsing: options.live ? 'live (onEvent, as with the live guard)' : 'deferred to stop()',
    host_load: `${loadStart} -> ${loadAverage()}`,
  };

  const baseReal = median(wall(all.realistic, 'untraced'));
  out.realistic_untraced_ms = Math.round(baseReal);
  out.realistic_untraced_spread_ms = spread(wall(all.realistic, 'untraced'));
  const cpu = (mode: Mode) =>
    median(of(all.realistic, mode).map((s) => agentLikeCpuMs(s.stdout) ?? Number.NaN));
  out.realistic_untraced_cpu_ms = cpu('untraced');
  for (const mode of traced) {
    const ms = median(wall(all.realistic, mode));
    out[`realistic_${mode}_ms`] = Math.round(ms);
    out[`realistic_${mode}_spread_ms`] = spread(wall(all.realistic, mode));
    out[`realistic_${mode}_overhead_pct`] = overheadPct(ms, baseReal);
    out[`realistic_${mode}_paired_overhead_pct`] = spread(paired(all.realistic, mode), 1);
    out[`realistic_${mode}_cpu_ms`] = cpu(mode);
    out[`realistic_${mode}_tracer_cpu_ms`] = median(of(all.realistic, mode).map((s) => s.tracer_cpu_ms));
    out[`realistic_${mode}_harness_cpu_ms`] = median(of(all.realistic, mode).map((s) => s.harness_cpu_ms));
    out[`realistic_${mode}_events`] = median(of(all.realistic, mode).map((s) => s.events.length));
    out[`realistic_${mode}_lost`] = Math.max(...of(all.realistic, mode).map((s) => s.lost));
  }

  const baseLoop = median(wall(all.loop, 'untraced'));
  const performed = of(all.loop, 'untraced').map((s) => loopOut(s)?.performed ?? 0);
  out.open_loop_performed = median(performed);
  out.open_loop_rate_per_s = Math.round((median(performed) / baseLoop) * 1000);
  out.open_loop_spin = spin;
  out.open_loop_untraced_ms = Math.round(baseLoop);
  out.open_loop_untraced_spread_ms = spread(wall(all.loop, 'untraced'));
  // System time of the loop itself: in-kernel tracing cost (BPF programs, ptrace stops), unlike
  // wall time hardly moved by other work on the host.
  const loopSys = (mode: Mode) => Math.round(median(of(all.loop, mode).map((s) => loopOut(s)?.sys_ms ?? 0)));
  out.open_loop_untraced_sys_ms = loopSys('untraced');
  for (const mode of traced) {
    const ms = median(wall(all.loop, mode));
    out[`open_loop_${mode}_ms`] = Math.round(ms);
    out[`open_loop_${mode}_spread_ms`] = spread(wall(all.loop, mode));
    out[`open_loop_${mode}_overhead_pct`] = overheadPct(ms, baseLoop);
    out[`open_loop_${mode}_paired_overhead_pct`] = spread(paired(all.loop, mode), 1);
    out[`open_loop_${mode}_sys_ms`] = loopSys(mode);
    out[`open_loop_${mode}_tracer_cpu_ms`] = median(of(all.loop, mode).map((s) => s.tracer_cpu_ms));
    out[`open_loop_${mode}_harness_cpu_ms`] = median(of(all.loop, mode).map((s) => s.harness_cpu_ms));
  }

  // Loss at an exact 20,000 opens/s, and in the ~20,000/s work-paced loop.
  out.open_paced_rate_per_s = RATE;
  out.open_paced_performed = RATE * LOOP_SECONDS;
  for (const mode of traced) {
    const runs = [...of(all.paced, mode), ...of(all.loop, mode)];
    out[`open_loop_${mode}_lost`] = Math.max(...runs.map((s) => s.lost));
    out[`open_loop_${mode}_recorded`] = Math.min(...runs.map(openEvents));
    out[`open_loop_${mode}_missing`] = Math.max(
      ...runs.map((s) => (loopOut(s)?.performed ?? 0) - openEvents(s)),
    );
    const lag = of(all.paced, mode).map((s) => loopOut(s)?.max_lag_ms ?? Number.NaN);
    out[`open_paced_${mode}_max_lag_ms`] = round(Math.max(...lag), 1);
    out[`open_paced_${mode}_ms`] = Math.round(median(wall(all.paced, mode)));
  }

  // The raw cost of one traced open (no work between opens): microseconds added per open.
  const baseRaw = median(wall(all.raw, 'untraced'));
  out.open_unpaced_opens = UNPACED_OPENS;
  out.open_unpaced_untraced_ms = Math.round(baseRaw);
  for (const mode of traced) {
    const ms = median(wall(all.raw, mode));
    out[`open_unpaced_${mode}_ms`] = Math.round(ms);
    out[`open_unpaced_${mode}_us_per_open`] = round(((ms - baseRaw) * 1000) / UNPACED_OPENS, 2);
    out[`open_unpaced_${mode}_lost`] = Math.max(...of(all.raw, mode).map((s) => s.lost));
    out[`open_unpaced_${mode}_recorded`] = Math.min(...of(all.raw, mode).map(openEvents));
  }

  const every = [...all.realistic, ...all.loop, ...all.paced, ...all.raw];
  for (const mode of traced) {
    out[`${mode}_start_ms`] = Math.round(median(of(every, mode).map((s) => s.start_ms)));
    out[`${mode}_start_spread_ms`] = spread(of(every, mode).map((s) => s.start_ms));
    out[`${mode}_stop_ms`] = Math.round(median(of(every, mode).map((s) => s.stop_ms)));
    out[`${mode}_stop_spread_ms`] = spread(of(every, mode).map((s) => s.stop_ms));
  }
  const warnings = new Set(every.flatMap((s) => s.warnings.map((w) => `${s.mode}: ${w.slice(0, 160)}`)));
  if (warnings.size > 0) out.warnings = [...warnings].slice(0, 5).join(' | ');
  return out;
}

await main();
