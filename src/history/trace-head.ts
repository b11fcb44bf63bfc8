import type Database from 'better-sqlite3';

/**
 * Schema version 3: runs.trace_head, the head hash of each run's trace.jsonl. Stored outside the
 * run folder so that rewriting a run's files and its trace consistently still disagrees with the
 * index. Idempotent; existing rows keep null (sealed before traces existed).
 */
export function migrateToTraceHead(db: Database.Database): void {
  const hasColumn = db
    .prepare<[string], { name: string }>('SELECT name FROM pragma_table_info(?)')
    .all('runs')
    .some((c) => c.name === 'trace_head');
  if (!hasColumn) db.exec('ALTER TABLE runs ADD COLUMN trace_head TEXT');
}
