import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { demoConfigs } from '../cli/commands/demo.js';
import { loadConfigOrThrow } from '../config/load.js';
import { median } from '../overhead/stats.js';
import { runTask } from '../pipeline/run-task.js';

/**
 * What the grading copy costs (issue 34: at most +20 % of the median run time of the demo's
 * tasks): each demo task run by mock-solve with `grading: copy` and with `grading: in-place`,
 * alternating, under the run's default sandbox and tracer. One run per task first fills the
 * baseline-tests cache, whose one-off cost is shown on its own. `--repeat N` (default 5).
 */
async function main(): Promise<void> {
  const at = process.argv.indexOf('--repeat');
  const repeat = at > 0 ? Number(process.argv[at + 1]) : 5;
  const dir = mkdtempSync(path.join(tmpdir(), 'ag-grading-bench-'));
  const ctx = { outputDir: dir, env: process.env, now: () => new Date(), log: () => {}, history: false };
  try {
    const figures: Record<string, number | string> = {};
    const copyMs: number[] = [];
    const inPlaceMs: number[] = [];
    const firstRunMs: number[] = [];
    const ratios: number[] = [];
    for (const file of demoConfigs()) {
      const cfg = loadConfigOrThrow(file);
      const timed = async (grading: 'copy' | 'in-place') => {
        const t0 = performance.now();
        const r = await runTask(ctx, { ...cfg, grading }, { agent: 'mock-solve' });
        if (r.report.result !== 'PASS') throw new Error(`${cfg.name} ${grading}: ${r.report.result}`);
        return performance.now() - t0;
      };
      firstRunMs.push(await timed('copy'));
      const copy: number[] = [];
      const inPlace: number[] = [];
      for (let i = 0; i < repeat; i++) {
        // Alternate which goes first, so a slow moment of the host falls on both.
        if (i % 2 === 0) {
          copy.push(await timed('copy'));
          inPlace.push(await timed('in-place'));
        } else {
          inPlace.push(await timed('in-place'));
          copy.push(await timed('copy'));
        }
      }
      copyMs.push(...copy);
      inPlaceMs.push(...inPlace);
      ratios.push((median(copy) / median(inPlace) - 1) * 100);
      figures[`${cfg.name}_copy_median_ms`] = Math.round(median(copy));
      figures[`${cfg.name}_in_place_median_ms`] = Math.round(median(inPlace));
    }
    figures.copy_median_ms = Math.round(median(copyMs));
    figures.in_place_median_ms = Math.round(median(inPlaceMs));
    figures.added_median_pct = Math.round(median(ratios) * 10) / 10;
    figures.first_run_with_baseline_tests_median_ms = Math.round(median(firstRunMs));
    figures.repeat = repeat;
    process.stdout.write(`${JSON.stringify(figures)}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
