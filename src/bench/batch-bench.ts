import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { planBatch, runBatch } from '../batch/run-batch.js';
import type { AgentSpec } from '../batch/types.js';
import { demoConfigs } from '../cli/commands/demo.js';
import { loadConfigOrThrow } from '../config/load.js';
import type { RunContext } from '../pipeline/context.js';
import { runTask } from '../pipeline/run-task.js';

const ATTEMPTS = Number(process.env.AG_BATCH_BENCH_ATTEMPTS ?? 100);

/**
 * The batch layer's own cost: N attempts of a trivial agent (tracer off, no sandbox) through
 * runBatch at one worker, against the same N runTask calls in a plain loop; the difference per
 * attempt is the scheduler, checkpoint and summary. Memory is sampled after the first and the
 * last quarter. Then the demo's 15 runs as one matrix at --workers 2 against --workers 1.
 */
async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ag-batch-bench-'));
  try {
    mkdirSync(path.join(dir, 'repo'));
    writeFileSync(path.join(dir, 'repo/README.md'), 'x\n');
    writeFileSync(
      path.join(dir, 'config.yaml'),
      "name: trivial\ntask: {prompt: nothing}\nrepo: repo\ntest_command: ['true']\nagent_command: ['true']\nsandbox: local\ntracer: off\n",
    );
    const cfg = loadConfigOrThrow(path.join(dir, 'config.yaml'));
    const ctx = (out: string): RunContext => ({
      outputDir: path.join(dir, out),
      env: process.env,
      now: () => new Date(),
      log: () => {},
      history: true,
    });
    const direct = ctx('direct');
    let t = performance.now();
    for (let i = 0; i < ATTEMPTS; i++) await runTask(direct, cfg, { agent: 'agent-command' });
    const directMs = performance.now() - t;

    const agent: AgentSpec = { name: 'trivial', kind: 'builtin', adapter: 'agent-command' };
    const batched = ctx('batch');
    const plan = planBatch(batched, {
      kind: 'benchmark',
      sourceFile: null,
      agents: [agent],
      configs: [cfg],
      trials: ATTEMPTS,
      options: { workers: 1, fail_fast: false },
    });
    const rss: number[] = [];
    t = performance.now();
    await runBatch(batched, plan, ({ done }) => {
      if (done === Math.round(ATTEMPTS / 4) || done === ATTEMPTS) rss.push(process.memoryUsage().rss);
    });
    const batchMs = performance.now() - t;

    const demo = demoConfigs().map((f) => loadConfigOrThrow(f));
    const mocks = [
      'mock-solve',
      'mock-tamper-tests',
      'mock-out-of-scope',
      'mock-secret',
      'mock-noop',
    ] as const;
    const matrix = async (workers: number) => {
      const c = ctx(`demo-${workers}`);
      const p = planBatch(c, {
        kind: 'matrix',
        sourceFile: null,
        agents: mocks.map((m) => ({ name: m, kind: 'builtin', adapter: m })),
        configs: demo,
        trials: 1,
        options: { workers, fail_fast: false, tracer: 'off' },
      });
      const start = performance.now();
      await runBatch(c, p);
      return performance.now() - start;
    };
    const one = await matrix(1);
    const two = await matrix(2);
    console.log(
      JSON.stringify({
        attempts: ATTEMPTS,
        run_ms_per_attempt: Math.round(directMs / ATTEMPTS),
        scheduler_overhead_ms_per_attempt: Math.round((batchMs - directMs) / ATTEMPTS),
        rss_growth_mb_last_three_quarters: Math.round((((rss[1] ?? 0) - (rss[0] ?? 0)) / 1e6) * 10) / 10,
        demo_matrix_runs: demo.length * mocks.length,
        demo_matrix_workers_1_ms: Math.round(one),
        demo_matrix_workers_2_ms: Math.round(two),
        demo_matrix_speedup: Math.round((one / two) * 100) / 100,
      }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
