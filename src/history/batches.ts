import type Database from 'better-sqlite3';
import type { BatchHistoryRow, RecordableBatch } from './types.js';

/*
 * Batches in the history index: one row per benchmark, suite or matrix batch, and its child runs
 * linked by `runs.batch_id`. The batch folder (summary.json, checkpoint) stays the source of
 * truth; this is the index `reports batches` lists.
 */

/** Schema version 2: the batches table and runs.batch_id. Idempotent, so safe to run again. */
export function migrateToBatches(db: Database.Database): void {
  db.exec(`
CREATE TABLE IF NOT EXISTS batches (
  batch_id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  complete INTEGER NOT NULL,
  attempts_planned INTEGER NOT NULL,
  pass INTEGER NOT NULL,
  fail INTEGER NOT NULL,
  error INTEGER NOT NULL,
  not_run INTEGER NOT NULL,
  batch_dir TEXT NOT NULL,
  summary_json TEXT
);
CREATE INDEX IF NOT EXISTS batches_started_at ON batches (started_at);
`);
  const hasColumn = db
    .prepare<[string], { name: string }>('SELECT name FROM pragma_table_info(?)')
    .all('runs')
    .some((c) => c.name === 'batch_id');
  // ADD COLUMN keeps every existing row (batch_id null: a run recorded before batches were).
  if (!hasColumn) db.exec('ALTER TABLE runs ADD COLUMN batch_id TEXT');
  db.exec('CREATE INDEX IF NOT EXISTS runs_batch_id ON runs (batch_id)');
}

const BATCH_COLUMNS = [
  'batch_id',
  'kind',
  'started_at',
  'finished_at',
  'complete',
  'attempts_planned',
  'pass',
  'fail',
  'error',
  'not_run',
  'batch_dir',
  'summary_json',
] as const;

type StoredBatch = Omit<BatchHistoryRow, 'complete' | 'runs'> & { complete: number; runs: number };

export function batchStatements(db: Database.Database) {
  const upsert = db.prepare<[Record<(typeof BATCH_COLUMNS)[number], string | number | null>]>(
    `INSERT INTO batches (${BATCH_COLUMNS.join(', ')}) VALUES (${BATCH_COLUMNS.map((c) => `@${c}`).join(', ')})
     ON CONFLICT (batch_id) DO UPDATE SET ${BATCH_COLUMNS.filter(
       (c) => c !== 'batch_id' && c !== 'started_at',
     )
       .map((c) => `${c} = excluded.${c}`)
       .join(', ')}`,
  );
  const link = db.prepare<[string, string]>('UPDATE runs SET batch_id = ? WHERE run_id = ?');
  const select = `SELECT ${BATCH_COLUMNS.map((c) => `b.${c}`).join(', ')},
      (SELECT COUNT(*) FROM runs r WHERE r.batch_id = b.batch_id) AS runs FROM batches b`;
  const list = db.prepare<[number], StoredBatch>(
    `${select} ORDER BY b.started_at DESC, b.batch_id DESC LIMIT ?`,
  );
  const byId = db.prepare<[string], StoredBatch>(`${select} WHERE b.batch_id = ?`);
  const parse = (b: StoredBatch): BatchHistoryRow => ({ ...b, complete: b.complete === 1 });
  return {
    record: (batch: RecordableBatch) => {
      db.transaction(() => {
        upsert.run({
          ...batch,
          complete: batch.complete ? 1 : 0,
        });
        for (const runId of batch.run_ids) link.run(batch.batch_id, runId);
      })();
    },
    /** Links one run to its batch (the batch row may not exist yet: it is recorded at the start). */
    link: (batchId: string, runId: string) => {
      link.run(batchId, runId);
    },
    list: (limit: number) => list.all(limit).map(parse),
    get: (id: string) => {
      const b = byId.get(id);
      return b === undefined ? null : parse(b);
    },
  };
}
