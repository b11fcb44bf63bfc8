import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { compareRuns } from '../batch/compare.js';
import { demoConfigs } from '../cli/commands/demo.js';
import { loadConfigOrThrow } from '../config/load.js';
import { runTask } from '../pipeline/run-task.js';

/**
 * The paper's homogeneous-versus-mixed comparison on the built-in tasks: each task run several
 * times by a scripted agent that explores a random subset of the repository before solving, under
 * the strace tracer in the bwrap sandbox. Prints one JSON line.
 */
const TRIALS = Number(process.env.AGENTGUARD_BENCH_TRIALS ?? 4);

async function main(): Promise<void> {
  if (process.getuid?.() !== 0) {
    process.stdout.write(`${JSON.stringify({ skipped: 'needs root for the sandbox and tracer' })}\n`);
    return;
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'ag-rel-'));
  try {
    const ctx = {
      outputDir: path.join(dir, '.agentguard'),
      env: process.env,
      now: () => new Date(),
      log: () => {},
      history: false,
    };
    const runDirs: string[] = [];
    const t0 = performance.now();
    for (const file of demoConfigs()) {
      const cfg = loadConfigOrThrow(file);
      for (let i = 0; i < TRIALS; i++) {
        const r = await runTask(ctx, cfg, { agent: 'mock-explore', tracer: 'strace', guard: 'off' });
        runDirs.push(r.runDir);
      }
    }
    const runMs = performance.now() - t0;
    const c0 = performance.now();
    const comparison = compareRuns(runDirs);
    const h = comparison.homogeneous_vs_mixed;
    process.stdout.write(
      `${JSON.stringify({
        tasks: comparison.tasks.length,
        trials_per_task: TRIALS,
        runs: runDirs.length,
        comparisons: h?.comparisons ?? 0,
        homogeneous_wins: h?.wins ?? 0,
        homogeneous_wins_share: h?.homogeneous_wins_share ?? null,
        per_task: h?.tasks.map((t) => ({ task: t.task, own: t.homogeneous, mixed: t.mixed_mean })) ?? [],
        compare_ms: Math.round(performance.now() - c0),
        runs_ms: Math.round(runMs),
      })}\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
