import { readFileSync } from 'node:fs';
import path from 'node:path';
import { readCheckpoint } from '../batch/checkpoint.js';
import { BATCH_FILES, batchDir, runBatch } from '../batch/run-batch.js';
import { writeJson, writeText } from '../evidence/write.js';
import { openHistory } from '../history/db.js';
import type { HistoryRow } from '../history/types.js';
import type { RunContext } from '../pipeline/context.js';
import { newRunId } from '../pipeline/run-id.js';
import type { AgentSpec, Attempt, BatchPlan, BatchSummary } from '../reports/batch-types.js';
import { renderStressMarkdown, type StressCheck, type StressReport, stressChecks } from './stress-checks.js';
import { syntheticRunId, syntheticWorker } from './synthetic-worker.js';

export type StressOptions = {
  outputDir: string;
  attempts: number;
  workers: number;
  failFast: boolean;
  signal?: AbortSignal;
};

export type StressResult = { report: StressReport; dir: string };

export const STRESS_FILES = { json: 'report.json', markdown: 'report.md' } as const;

/** The synthetic agent. Never run as a command: the worker seam does its attempts (see synthetic-worker.ts). */
const AGENT: AgentSpec = {
  name: 'synthetic',
  kind: 'command',
  argv: ['(internal sleep-and-arithmetic worker)'],
};
const TASKS = 4;
const ITERATIONS = 20_000;
const sleepMs = (index: number) => 2 + ((index * 7) % 9);

/**
 * Run `attempts` synthetic attempts through the real batch layer (runBatch: bounded scheduler,
 * checkpoint, per-attempt history, summaries, batch manifest) with at most `workers` in flight, in
 * a folder of its own (`<output>/diagnostics/matrix-stress/<id>/`, with its own history.db, so the
 * user's history gets no synthetic runs), then check what the layer wrote against what ran.
 */
export async function runMatrixStress(opts: StressOptions): Promise<StressResult> {
  const now = new Date();
  const id = newRunId(now);
  const dir = path.join(opts.outputDir, 'diagnostics', 'matrix-stress', id);
  const ctx: RunContext = {
    outputDir: dir,
    env: {},
    now: () => new Date(),
    log: () => {},
    history: true,
    ...(opts.signal ? { signal: opts.signal } : {}),
  };
  const attempts: Attempt[] = Array.from({ length: opts.attempts }, (_, index) => ({
    index,
    agent: AGENT,
    task: `arith-${index % TASKS}`,
    config_path: 'internal:matrix-stress',
    trial: Math.floor(index / TASKS) + 1,
  }));
  const plan: BatchPlan = {
    schema_version: 1,
    batch_id: id,
    kind: 'matrix',
    created_at: now.toISOString(),
    source: null,
    options: { workers: opts.workers, fail_fast: opts.failFast },
    attempts,
    hashes: { configs: {}, repos: {} },
  };
  // A third of the way in, so fail-fast has work left to not start.
  const failIndex = Math.floor(opts.attempts / 3);
  const starts = new Map<number, number>();
  const ends = new Map<number, number>();
  let inFlight = 0;
  let peakInFlight = 0;
  let peakRss = process.memoryUsage().rss;
  const cpuBefore = process.cpuUsage();
  const t0 = performance.now();
  const summary: BatchSummary = await runBatch(ctx, plan, () => {}, {
    worker: syntheticWorker({
      dir: path.join(dir, 'attempts'),
      historyFile: path.join(dir, 'history.db'),
      failIndex,
      sleepMs,
      iterations: ITERATIONS,
      onStart: (a) => {
        starts.set(a.index, performance.now() - t0);
        inFlight++;
        peakInFlight = Math.max(peakInFlight, inFlight);
      },
      onEnd: (a) => {
        ends.set(a.index, performance.now() - t0);
        inFlight--;
        peakRss = Math.max(peakRss, process.memoryUsage().rss);
      },
    }),
  });
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpuBefore);
  const bdir = batchDir(ctx, id);
  const db = openHistory(path.join(dir, 'history.db'));
  let history: HistoryRow[];
  let batchRow: ReturnType<typeof db.getBatch>;
  try {
    history = db.listRuns({ batch: id, limit: opts.attempts + 100 });
    batchRow = db.getBatch(id);
  } finally {
    db.close();
  }
  const checkpoint = readCheckpoint(path.join(bdir, BATCH_FILES.checkpoint));
  const written = JSON.parse(readFileSync(path.join(bdir, BATCH_FILES.summaryJson), 'utf8')) as BatchSummary;
  const checks: StressCheck[] = stressChecks({
    plan,
    summary: written,
    returned: summary,
    checkpoint,
    history,
    batchRow,
    starts,
    ends,
    failIndex,
    peakInFlight,
    expectedRunId: (i) => syntheticRunId(id, i),
  });
  const executed = summary.rows.length;
  const report: StressReport = {
    schema_version: 1,
    kind: 'matrix-stress',
    id,
    created_at: now.toISOString(),
    workload: {
      description:
        'closed synthetic sleep-and-arithmetic attempts through the real batch layer; no repository, sandbox, tracer or agent process',
      attempts: opts.attempts,
      workers: opts.workers,
      fail_fast: opts.failFast,
      planted_failure_index: failIndex,
      sleep_ms: '2 + (index × 7 mod 9)',
      arithmetic_iterations: ITERATIONS,
      tasks: TASKS,
    },
    accounting: {
      planned: plan.attempts.length,
      submitted: starts.size,
      executed,
      not_run: plan.attempts.length - executed,
      history_rows: history.length,
      checkpoint_rows: checkpoint.length,
    },
    totals: summary.totals,
    performance: {
      wall_ms: Math.round(wallMs),
      throughput_per_s: Math.round((executed / (wallMs / 1000)) * 10) / 10,
      cpu_user_ms: Math.round(cpu.user / 1000),
      cpu_system_ms: Math.round(cpu.system / 1000),
      peak_rss_bytes: peakRss,
      process_max_rss_bytes: process.resourceUsage().maxRSS * 1024,
      peak_in_flight: peakInFlight,
    },
    checks,
    passed: checks.every((c) => c.passed),
    batch_dir: path.relative(dir, bdir),
  };
  writeJson(path.join(dir, STRESS_FILES.json), report);
  writeText(path.join(dir, STRESS_FILES.markdown), renderStressMarkdown(report));
  return { report, dir };
}
