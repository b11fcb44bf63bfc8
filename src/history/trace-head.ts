import Database from 'better-sqlite3';

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

/**
 * The trace head history recorded for a run, read without writing anything (no migration, no
 * WAL switch): undefined when the file, the column or the row is not there or cannot be read.
 */
export function readTraceHead(dbPath: string, runId: string): string | null | undefined {
  let db: Database.Database | undefined;
  try {
    db = new Database(dbPath, { readonly: true, fileMustExist: true });
    const row = db
      .prepare<[string], { trace_head: string | null }>('SELECT trace_head FROM runs WHERE run_id = ?')
      .get(runId);
    return row === undefined ? undefined : row.trace_head;
  } catch {
    return undefined;
  } finally {
    db?.close();
  }
}
