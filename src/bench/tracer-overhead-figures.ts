import {
  type Mode,
  median,
  overheadPct,
  round,
  type Sample,
  spread,
  type TracedMode,
} from './tracer-overhead-run.js';
import { agentLikeCpuMs } from './workloads/agent-like.js';
import { parseOpenLoopOutput } from './workloads/open-loop.js';

export type AllSamples = {
  realistic: Sample[];
  loop: Sample[];
  /** The clock-paced loop at the low rate (20,000 opens/s) and at the high one (100,000/s). */
  paced: Sample[];
  pacedHigh: Sample[];
  raw: Sample[];
};

export type Rates = { low: number; lowOpens: number; high: number; highOpens: number; unpacedOpens: number };

/** The overhead, loss and cost figures of every engine, keyed `<workload>_<mode>_<figure>`. */
export function overheadFigures(
  all: AllSamples,
  traced: TracedMode[],
  spin: number,
  rates: Rates,
): Record<string, number | string> {
  const out: Record<string, number | string> = {};
  const of = (samples: Sample[], mode: Mode) => samples.filter((s) => s.mode === mode);
  const wall = (samples: Sample[], mode: Mode) => of(samples, mode).map((s) => s.wall_ms);
  /** Per-repetition overheads: each traced run against the untraced run of the same repetition. */
  const paired = (samples: Sample[], mode: Mode) => {
    const base = wall(samples, 'untraced');
    return wall(samples, mode).map((ms, i) => overheadPct(ms, base[i] as number));
  };
  const loopOut = (s: Sample) => parseOpenLoopOutput(s.stdout);
  const missing = (runs: Sample[]) =>
    Math.max(...runs.map((s) => (loopOut(s)?.performed ?? 0) - s.target_opens));

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
    // The median of the per-repetition overheads: a host's jitter moves single pairs, not their middle.
    out[`realistic_${mode}_paired_median_pct`] = round(median(paired(all.realistic, mode)), 1);
    out[`realistic_${mode}_cpu_ms`] = cpu(mode);
    // CPU time of the workload's own processes (in-kernel tracing cost included), hardly moved by
    // other work on the host, unlike wall time.
    out[`realistic_${mode}_cpu_overhead_pct`] = overheadPct(cpu(mode), cpu('untraced'));
    out[`realistic_${mode}_tracer_cpu_ms`] = median(of(all.realistic, mode).map((s) => s.tracer_cpu_ms));
    out[`realistic_${mode}_harness_cpu_ms`] = median(of(all.realistic, mode).map((s) => s.harness_cpu_ms));
    out[`realistic_${mode}_events`] = median(of(all.realistic, mode).map((s) => s.events));
    out[`realistic_${mode}_lost`] = Math.max(...of(all.realistic, mode).map((s) => s.lost));
  }

  const baseLoop = median(wall(all.loop, 'untraced'));
  const performed = of(all.loop, 'untraced').map((s) => loopOut(s)?.performed ?? 0);
  out.open_loop_performed = median(performed);
  out.open_loop_rate_per_s = Math.round((median(performed) / baseLoop) * 1000);
  out.open_loop_spin = spin;
  out.open_loop_untraced_ms = Math.round(baseLoop);
  out.open_loop_untraced_spread_ms = spread(wall(all.loop, 'untraced'));
  // System time of the loop itself: in-kernel tracing cost (BPF programs, ptrace stops, audit
  // records), unlike wall time hardly moved by other work on the host.
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

  // Loss at an exact 20,000 opens/s (and in the ~20,000/s work-paced loop, as before), then at
  // 100,000/s. Lost: what the engine says it dropped; missing: opens performed but not recorded.
  out.open_paced_rate_per_s = rates.low;
  out.open_paced_performed = rates.lowOpens;
  out.open_paced_100k_rate_per_s = rates.high;
  out.open_paced_100k_performed = rates.highOpens;
  for (const mode of traced) {
    const runs = [...of(all.paced, mode), ...of(all.loop, mode)];
    out[`open_loop_${mode}_lost`] = Math.max(...runs.map((s) => s.lost));
    out[`open_loop_${mode}_recorded`] = Math.min(...runs.map((s) => s.target_opens));
    out[`open_loop_${mode}_missing`] = missing(runs);
    const lag = of(all.paced, mode).map((s) => loopOut(s)?.max_lag_ms ?? Number.NaN);
    out[`open_paced_${mode}_lost`] = Math.max(...of(all.paced, mode).map((s) => s.lost));
    out[`open_paced_${mode}_missing`] = missing(of(all.paced, mode));
    out[`open_paced_${mode}_max_lag_ms`] = round(Math.max(...lag), 1);
    out[`open_paced_${mode}_ms`] = Math.round(median(wall(all.paced, mode)));
    const high = of(all.pacedHigh, mode);
    if (high.length === 0) continue;
    out[`open_paced_100k_${mode}_lost`] = Math.max(...high.map((s) => s.lost));
    out[`open_paced_100k_${mode}_missing`] = missing(high);
    // Below the asked rate when the engine slows each open down (strace, audit's backlog wait).
    out[`open_paced_100k_${mode}_achieved_per_s`] = Math.round(
      median(high.map((s) => ((loopOut(s)?.performed ?? 0) / (loopOut(s)?.elapsed_ms ?? Number.NaN)) * 1000)),
    );
  }

  // The raw cost of one traced open (no work between opens): microseconds added per open.
  const baseRaw = median(wall(all.raw, 'untraced'));
  out.open_unpaced_opens = rates.unpacedOpens;
  out.open_unpaced_untraced_ms = Math.round(baseRaw);
  for (const mode of traced) {
    const ms = median(wall(all.raw, mode));
    out[`open_unpaced_${mode}_ms`] = Math.round(ms);
    out[`open_unpaced_${mode}_us_per_open`] = round(((ms - baseRaw) * 1000) / rates.unpacedOpens, 2);
    out[`open_unpaced_${mode}_lost`] = Math.max(...of(all.raw, mode).map((s) => s.lost));
    out[`open_unpaced_${mode}_recorded`] = Math.min(...of(all.raw, mode).map((s) => s.target_opens));
  }

  const every = [...all.realistic, ...all.loop, ...all.paced, ...all.pacedHigh, ...all.raw];
  for (const mode of traced) {
    out[`${mode}_start_ms`] = Math.round(median(of(every, mode).map((s) => s.start_ms)));
    out[`${mode}_start_spread_ms`] = spread(of(every, mode).map((s) => s.start_ms));
    out[`${mode}_stop_ms`] = Math.round(median(of(every, mode).map((s) => s.stop_ms)));
    out[`${mode}_stop_spread_ms`] = spread(of(every, mode).map((s) => s.stop_ms));
  }
  const warnings = new Set(every.flatMap((s) => s.warnings.map((w) => `${s.mode}: ${w.slice(0, 160)}`)));
  if (warnings.size > 0) out.warnings = [...warnings].slice(0, 6).join(' | ');
  return out;
}
