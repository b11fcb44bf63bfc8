import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AttemptOutcome, AttemptWorker } from '../batch/run-batch.js';
import { openHistory } from '../history/db.js';
import type { Attempt } from '../reports/batch-types.js';

export type SyntheticWorkerOptions = {
  /** Where each attempt's folder goes (`<dir>/<index>/`) and history.db lies. */
  dir: string;
  historyFile: string;
  /** The attempt that must fail: the planted failure. */
  failIndex: number;
  /** Sleep of attempt i: `sleepMs(i)` (deterministic, so a run is repeatable). */
  sleepMs: (index: number) => number;
  /** Loop length of the arithmetic. */
  iterations: number;
  /** Called as the attempt starts and ends (the diagnostic's own accounting). */
  onStart: (attempt: Attempt) => void;
  onEnd: (attempt: Attempt) => void;
};

/** Σ i² mod 2^31 for i < n, by the loop (the attempt's work) — its closed form checks it. */
export function sumOfSquares(n: number): number {
  let acc = 0;
  for (let i = 0; i < n; i++) acc = (acc + ((i * i) % 2147483648)) % 2147483648;
  return acc;
}

export function sumOfSquaresClosed(n: number): number {
  const big = BigInt(n);
  return Number((((big - 1n) * big * (2n * big - 1n)) / 6n) % 2147483648n);
}

/** The run id a synthetic attempt records: the batch and the attempt's index, nothing random. */
export function syntheticRunId(batchId: string, index: number): string {
  return `${batchId}-a${String(index).padStart(5, '0')}`;
}

/**
 * A closed, internal stand-in for an agent run: sleep, a loop of arithmetic checked against its
 * closed form, a two-file report, and the history row a run records (same writer, same batch link).
 * No repository, sandbox, tracer or process; only the batch layer around it is under test.
 */
export function syntheticWorker(opts: SyntheticWorkerOptions): AttemptWorker {
  return async (attempt, batchId): Promise<AttemptOutcome> => {
    opts.onStart(attempt);
    const started = new Date();
    try {
      await new Promise((r) => setTimeout(r, opts.sleepMs(attempt.index)));
      const n = opts.iterations + attempt.index;
      const value = sumOfSquares(n);
      const correct = value === sumOfSquaresClosed(n);
      const planted = attempt.index === opts.failIndex;
      const passed = correct && !planted;
      const runId = syntheticRunId(batchId, attempt.index);
      const runDir = path.join(opts.dir, String(attempt.index));
      mkdirSync(runDir, { recursive: true });
      const reportJson = path.join(runDir, 'report.json');
      const reportMd = path.join(runDir, 'report.md');
      const failed = planted ? ['planted-failure'] : correct ? [] : ['arithmetic'];
      writeFileSync(reportJson, `${JSON.stringify({ run_id: runId, n, value, correct, planted })}\n`);
      writeFileSync(
        reportMd,
        `# ${runId}\n\nsum of squares below ${n}: ${value} (${correct ? 'correct' : 'WRONG'})\n`,
      );
      const finished = new Date();
      const db = openHistory(opts.historyFile);
      try {
        db.recordRun(
          {
            run_id: runId,
            run_dir: runDir,
            started_at: started.toISOString(),
            finished_at: finished.toISOString(),
            duration_ms: finished.getTime() - started.getTime(),
            result: passed ? 'PASS' : 'FAIL',
            score: passed ? 100 : 75,
            failed_checks: failed,
            alerts: [],
            task: { name: attempt.task },
            agent: { name: attempt.agent.name, model: null },
            benchmark: { id: attempt.task, version: '1', category: 'synthetic', difficulty: null },
          },
          { report_json: reportJson, report_md: reportMd },
          'run',
          batchId,
        );
      } finally {
        db.close();
      }
      return {
        run_id: runId,
        run_dir: runDir,
        result: passed ? 'PASS' : 'FAIL',
        score: passed ? 100 : 75,
        tests_passed: correct,
        failed_checks: failed,
        alerts: [],
        benchmark_version: '1',
      };
    } finally {
      opts.onEnd(attempt);
    }
  };
}
