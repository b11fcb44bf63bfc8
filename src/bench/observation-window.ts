import { mkdirSync } from 'node:fs';
import type { SpawnSpec } from '../exec/types.js';
import type { CollectorHost } from './engines.js';
import {
  measure,
  median,
  percentile,
  type RunSetup,
  round,
  type Sample,
  spread,
  type TracedMode,
} from './tracer-overhead-run.js';

/**
 * What opening and closing the observation window costs a run: tracer start + stop around `true`
 * in the sandbox, the fixed price every run pays before and after its agent. The collector is
 * measured apart for the run that loads it (no daemon yet) and for runs it already serves.
 */

export type WindowSamples = { warm: Partial<Record<TracedMode, Sample[]>>; cold: Sample[] };

const trivial = (work: string): SpawnSpec => {
  mkdirSync(work, { recursive: true });
  return { argv: ['/bin/true'], cwd: work, env: { PATH: '/usr/bin:/bin' } };
};

function checked(sample: Sample): Sample {
  if (sample.exit_code !== 0)
    throw new Error(`true under ${sample.mode} exited ${sample.exit_code}: ${sample.stderr.slice(-300)}`);
  return sample;
}

/**
 * `runs` windows per engine (`runsOf` may lower it for a slow engine), in turns so that no engine
 * has the host to itself; first `coldRuns` collector loads, each daemon ended after its run. Leaves
 * the bench's warm collector running (started by a first, unmeasured run).
 */
export async function measureWindows(
  setup: RunSetup,
  modes: TracedMode[],
  collector: CollectorHost | null,
  runs: (mode: TracedMode) => number,
  coldRuns: number,
  target: string,
): Promise<WindowSamples> {
  const out: WindowSamples = { warm: {}, cold: [] };
  if (collector) {
    for (let i = 0; i < coldRuns; i++) {
      const { tracer, socket } = collector.coldTracer(target);
      out.cold.push(checked(await measure(setup, 'collector', 'window-cold', trivial, tracer)));
      await collector.end(socket);
    }
    // Loads the daemon the warm runs (and the overhead runs after them) are served by.
    checked(await measure(setup, 'collector', 'window-warmup', trivial));
  }
  const most = Math.max(0, ...modes.map(runs));
  for (let i = 0; i < most; i++) {
    for (const mode of modes) {
      if (i >= runs(mode)) continue;
      const list = out.warm[mode] ?? [];
      out.warm[mode] = list;
      list.push(checked(await measure(setup, mode, 'window', trivial)));
    }
  }
  return out;
}

export function windowFigures(samples: WindowSamples): Record<string, number | string> {
  const out: Record<string, number | string> = {};
  const total = (s: Sample) => s.start_ms + s.stop_ms;
  if (samples.cold.length > 0) {
    out.window_collector_first_run_ms = Math.round(median(samples.cold.map(total)));
    out.window_collector_first_run_spread_ms = spread(samples.cold.map(total));
    out.window_collector_first_runs = samples.cold.length;
  }
  for (const [mode, list] of Object.entries(samples.warm)) {
    if (!list || list.length === 0) continue;
    out[`window_${mode}_runs`] = list.length;
    out[`window_${mode}_p50_ms`] = round(percentile(list.map(total), 50), 0);
    out[`window_${mode}_p95_ms`] = round(percentile(list.map(total), 95), 0);
    out[`window_${mode}_open_p50_ms`] = round(
      percentile(
        list.map((s) => s.start_ms),
        50,
      ),
      0,
    );
    out[`window_${mode}_close_p50_ms`] = round(
      percentile(
        list.map((s) => s.stop_ms),
        50,
      ),
      0,
    );
  }
  return out;
}
