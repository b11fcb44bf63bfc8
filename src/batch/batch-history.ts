import path from 'node:path';
import { openHistory } from '../history/db.js';
import type { RunContext } from '../pipeline/context.js';
import type { BatchPlan, BatchSummary, Row } from '../reports/batch-types.js';

/**
 * Index the batch in history.db: at its start (no counts yet), after each finished attempt (its
 * run linked), and when its summary is written (counts, finish, summary path). The batch folder
 * stays the source of truth; `reports batches` lists this index.
 */
export function recordBatchHistory(
  ctx: RunContext,
  plan: BatchPlan,
  dir: string,
  rows: readonly Row[],
  summary: BatchSummary | null,
): void {
  if (!ctx.history) return;
  const count = (r: Row['result']) => rows.filter((x) => x.result === r).length;
  const db = openHistory(path.join(ctx.outputDir, 'history.db'));
  try {
    db.recordBatch({
      batch_id: plan.batch_id,
      kind: plan.kind,
      started_at: plan.created_at,
      finished_at: summary?.finished_at ?? null,
      complete: summary?.complete ?? false,
      attempts_planned: plan.attempts.length,
      ...(summary
        ? summary.totals
        : {
            pass: count('PASS'),
            fail: count('FAIL'),
            error: count('ERROR'),
            not_run: plan.attempts.length - rows.length,
          }),
      batch_dir: dir,
      summary_json: summary ? path.join(dir, 'summary.json') : null,
      run_ids: rows.flatMap((r) => (r.run_id ? [r.run_id] : [])),
    });
  } finally {
    db.close();
  }
}
