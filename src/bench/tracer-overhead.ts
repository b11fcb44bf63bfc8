import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bwrapAvailability } from '../sandbox/bwrap.js';
import { closeEngines, closeEnginesSync, type Engines, openEngines } from './engines.js';
import { measureWindows, windowFigures } from './observation-window.js';
import { type AllSamples, overheadFigures } from './tracer-overhead-figures.js';
import {
  type Mode,
  measure,
  type RunSetup,
  rotation,
  type Sample,
  type TracedMode,
} from './tracer-overhead-run.js';
import { agentLikeSpec, generateAgentLikeTemplate } from './workloads/agent-like.js';
import {
  buildOpenLoop,
  calibrateSpin,
  OPEN_LOOP_TARGET,
  type OpenLoopParams,
  openLoopSpec,
} from './workloads/open-loop.js';

/**
 * The observation engines side by side: the compiled ebpf collector, bpftrace, strace and Linux
 * audit (auditd, the peer), against no tracer. First the observation window (tracer start + stop
 * around `true` in bwrap, p50/p95; the collector's first, loading run apart), then the overhead:
 * every repetition runs each workload untraced and under each engine (in a rotating order), the way
 * the pipeline runs an agent (tracer.start → runCommand(tracer.wrap(sandbox.wrap(spec))) → stop).
 * Workloads: an agent-like session (git, two test suites, an offline npm install) and an open-heavy
 * C loop at ~20,000 opens/s, plus exactly clock-paced loops at 20,000 and 100,000 opens/s for lost
 * and missing events, and an unpaced loop for the raw cost of one traced open. Prints one JSON line.
 *
 * Options: --reps N (default 3), --window-runs N (default 20), --window-bpftrace-runs N (default 6:
 * each bpftrace start compiles for seconds), --cold-runs N (collector loads, default 3),
 * --loss-reps N (repetitions of the paced and unpaced loops, default 1), --engines a,b (a subset of collector,bpftrace,strace,auditd), --deferred (no onEvent listener:
 * ebpf parses at stop instead of live), --no-sandbox (skip bubblewrap), --verbose (each run as a
 * JSON line on stderr).
 */

const RATE = 20_000;
const LOOP_SECONDS = 3;
const HIGH_RATE = 100_000;
const HIGH_SECONDS = 2;
const UNPACED_OPENS = 100_000;
const ENGINES: TracedMode[] = ['collector', 'bpftrace', 'strace', 'auditd'];

type Options = {
  reps: number;
  windowRuns: number;
  windowBpftraceRuns: number;
  coldRuns: number;
  lossReps: number;
  engines: TracedMode[];
  live: boolean;
  sandbox: boolean;
  verbose: boolean;
};

function parseOptions(argv: string[]): Options {
  const options: Options = {
    reps: 3,
    windowRuns: 20,
    windowBpftraceRuns: 6,
    coldRuns: 3,
    lossReps: 1,
    engines: ENGINES,
    live: true,
    sandbox: true,
    verbose: false,
  };
  const count = (value: string | undefined, fallback: number) =>
    Number.isInteger(Number(value)) && Number(value) >= 0 ? Number(value) : fallback;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--reps') options.reps = Math.max(1, count(argv[++i], 3));
    else if (arg === '--window-runs') options.windowRuns = count(argv[++i], 20);
    else if (arg === '--window-bpftrace-runs') options.windowBpftraceRuns = count(argv[++i], 6);
    else if (arg === '--cold-runs') options.coldRuns = count(argv[++i], 3);
    else if (arg === '--loss-reps') options.lossReps = Math.max(1, count(argv[++i], 1));
    else if (arg === '--engines') {
      const named = (argv[++i] ?? '').split(',');
      options.engines = ENGINES.filter((e) => named.includes(e));
    } else if (arg === '--deferred') options.live = false;
    else if (arg === '--no-sandbox') options.sandbox = false;
    else if (arg === '--verbose') options.verbose = true;
  }
  return options;
}

function whyNot(options: Options): string | null {
  if (process.getuid?.() !== 0)
    return 'needs root (the ebpf engines load BPF programs and make cgroups; audit rules are host-wide)';
  if (options.sandbox && !bwrapAvailability().ok) return 'bubblewrap is unavailable (or pass --no-sandbox)';
  return null;
}

/** Throws unless the workload ran to a clean end: a failed run would make every figure meaningless. */
function checked(sample: Sample, what: string, verbose: boolean): Sample {
  if (verbose) {
    const { stdout, stderr, warnings, ...rest } = sample;
    process.stderr.write(`${JSON.stringify({ what, ...rest, out: stdout.trim().slice(-200) })}\n`);
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
  const skipped = whyNot(options);
  if (skipped) {
    process.stdout.write(`${JSON.stringify({ skipped })}\n`);
    return;
  }
  const root = mkdtempSync(path.join(tmpdir(), 'ag-tracer-bench-'));
  let engines: Engines | null = null;
  // Audit rules and settings are host-wide: an interrupted bench still puts them back.
  const interrupted = (signal: NodeJS.Signals) => {
    if (engines) closeEnginesSync(engines);
    rmSync(root, { recursive: true, force: true });
    process.stderr.write(`tracer bench interrupted (${signal}); audit state restored\n`);
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    engines = await openEngines(path.join(root, 'engines'), OPEN_LOOP_TARGET);
    const opened = engines;
    const traced = options.engines.filter((m) => opened.tracers[m]);
    if (traced.length === 0) {
      process.stdout.write(
        `${JSON.stringify({ skipped: 'no observation engine runs here', engines: opened.skipped })}\n`,
      );
      return;
    }
    const modes: Mode[] = ['untraced', ...traced];
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
    const workPaced: OpenLoopParams = { count: RATE * LOOP_SECONDS, spin, rate: 0, batch: 1 };
    const clockPaced: OpenLoopParams = { count: RATE * LOOP_SECONDS, spin: 0, rate: RATE, batch: 20 };
    const highPaced: OpenLoopParams = {
      count: HIGH_RATE * HIGH_SECONDS,
      spin: 0,
      rate: HIGH_RATE,
      batch: 100,
    };
    const unpaced: OpenLoopParams = { count: UNPACED_OPENS, spin: 0, rate: 0, batch: 1 };

    const setup: RunSetup = {
      root,
      tracers: engines.tracers,
      sandbox: options.sandbox,
      live: options.live,
      visible: [bin],
    };
    const t0 = performance.now();
    const windows = await measureWindows(
      setup,
      traced,
      traced.includes('collector') ? engines.collector : null,
      (mode) =>
        mode === 'bpftrace' ? Math.min(options.windowRuns, options.windowBpftraceRuns) : options.windowRuns,
      options.coldRuns,
      OPEN_LOOP_TARGET,
    );
    const windowSeconds = Math.round((performance.now() - t0) / 1000);

    const all: AllSamples = { realistic: [], loop: [], paced: [], pacedHigh: [], raw: [] };
    const loopSpec = (params: OpenLoopParams) => (work: string) => {
      mkdirSync(work, { recursive: true });
      return openLoopSpec(built.binary, work, params);
    };
    const run = async (
      into: Sample[],
      mode: Mode,
      label: string,
      spec: Parameters<typeof measure>[3],
      what: string,
    ) => into.push(checked(await measure(setup, mode, label, spec), what, options.verbose));
    for (let rep = 0; rep < options.reps; rep++) {
      for (const mode of rotation(modes, rep)) {
        const spec = (work: string, home: string) => agentLikeSpec(template, work, home);
        await run(all.realistic, mode, 'realistic', spec, 'the agent-like workload');
      }
      for (const mode of rotation(modes, rep + 1))
        await run(all.loop, mode, 'loop', loopSpec(workPaced), 'the open loop');
      // The loss loops are long under strace and audit, and their figures are maxima: fewer repetitions.
      if (rep >= options.lossReps) continue;
      for (const mode of rotation(traced, rep))
        await run(all.paced, mode, 'paced', loopSpec(clockPaced), 'the paced loop');
      for (const mode of rotation(traced, rep + 1))
        await run(all.pacedHigh, mode, 'paced-100k', loopSpec(highPaced), 'the 100,000/s paced loop');
      for (const mode of rotation(modes, rep + 2))
        await run(all.raw, mode, 'unpaced', loopSpec(unpaced), 'the unpaced loop');
    }
    const rates = {
      low: RATE,
      lowOpens: clockPaced.count,
      high: HIGH_RATE,
      highOpens: highPaced.count,
      unpacedOpens: UNPACED_OPENS,
    };
    const figures: Record<string, number | string> = {
      repetitions: options.reps,
      loss_repetitions: Math.min(options.reps, options.lossReps),
      sandbox: options.sandbox ? 'bwrap' : 'none',
      ebpf_parsing: options.live ? 'live (onEvent, as with the live guard)' : 'deferred to stop()',
      engines: traced.join(', '),
      ...Object.fromEntries(Object.entries(opened.skipped).map(([m, why]) => [`${m}_skipped`, why])),
      ...windowFigures(windows),
      window_section_s: windowSeconds,
      ...overheadFigures(all, traced, spin, rates),
      overhead_section_s: Math.round((performance.now() - t0) / 1000) - windowSeconds,
      host_load: `${loadStart} -> ${loadAverage()}`,
    };
    process.stdout.write(`${JSON.stringify(figures)}\n`);
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    if (engines) await closeEngines(engines);
    rmSync(root, { recursive: true, force: true });
  }
}

/** The 1-minute load average: wall-clock figures mean little on a host busy with other work. */
function loadAverage(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ')[0] ?? '?';
  } catch {
    return '?';
  }
}

await main();
