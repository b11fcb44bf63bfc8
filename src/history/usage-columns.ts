import type Database from 'better-sqlite3';

/** The columns schema version 5 adds: a run's model tokens and cost (null: no scripted model, or no pricing). */
export const USAGE_COLUMNS = {
  input_tokens: 'INTEGER',
  output_tokens: 'INTEGER',
  cost: 'REAL',
  currency: 'TEXT',
} as const;

/**
 * Schema version 5: runs.input_tokens, output_tokens, cost and currency, from report.json's
 * `usage`. Rows recorded before keep null: their reports had no usage to read. Idempotent.
 */
export function migrateToUsage(db: Database.Database): void {
  const have = new Set(
    db
      .prepare<[string], { name: string }>('SELECT name FROM pragma_table_info(?)')
      .all('runs')
      .map((c) => c.name),
  );
  for (const [name, type] of Object.entries(USAGE_COLUMNS))
    if (!have.has(name)) db.exec(`ALTER TABLE runs ADD COLUMN ${name} ${type}`);
}
