import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { planBatch, runBatch } from '../batch/run-batch.js';
import { demoConfigs } from '../cli/commands/demo.js';
import { loadConfigOrThrow } from '../config/load.js';
import { ENGINE_ENV } from '../observe/ebpf/collector/paths.js';
import { collectorAvailability } from '../observe/ebpf/engine.js';
import type { RunContext } from '../pipeline/context.js';
import { runTask } from '../pipeline/run-task.js';
import type { AgentSpec } from '../reports/batch-types.js';

const ATTEMPTS = Number(process.env.AG_BATCH_BENCH_ATTEMPTS ?? 100);

/**
 * The batch layer's own cost: N attempts of a trivial agent (tracer off, no sandbox) through
 * runBatch at one worker, against the same N runTask calls in a plain loop; the difference per
 * attempt is the scheduler, checkpoint and summary. Memory is sampled after the first and the
 * last quarter. Then the demo's 15 runs as one matrix at --workers 2 against --workers 1 (tracer
 * off), and at --workers 2 under each ebpf engine (AGENTGUARD_EBPF_ENGINE=collector, then bpftrace;
 * the collector's first run loads it, as a user's first demo does).
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
    const matrix = async (workers: number, tracer = 'off', name = `demo-${workers}`) => {
      const c = ctx(name);
      const p = planBatch(c, {
        kind: 'matrix',
        sourceFile: null,
        agents: mocks.map((m) => ({ name: m, kind: 'builtin', adapter: m })),
        configs: demo,
        trials: 1,
        options: { workers, fail_fast: false, tracer },
      });
      const start = performance.now();
      const summary = await runBatch(c, p);
      return { ms: performance.now() - start, errors: summary.totals.error };
    };
    const one = (await matrix(1)).ms;
    const two = (await matrix(2)).ms;
    const engines: Record<string, number | string> = {};
    const collector = await collectorAvailability();
    for (const engine of ['collector', 'bpftrace'] as const) {
      if (engine === 'collector' && !collector.ok) {
        engines.demo_matrix_collector_skipped = `${collector.reason} (fix: ${collector.fix})`;
        continue;
      }
      const before = process.env[ENGINE_ENV];
      process.env[ENGINE_ENV] = engine;
      try {
        const run = await matrix(2, 'ebpf', `demo-${engine}`);
        engines[`demo_matrix_${engine}_ms`] = Math.round(run.ms);
        engines[`demo_matrix_${engine}_errors`] = run.errors;
      } finally {
        if (before === undefined) delete process.env[ENGINE_ENV];
        else process.env[ENGINE_ENV] = before;
      }
    }
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
        ...engines,
      }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
