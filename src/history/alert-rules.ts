import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type Database from 'better-sqlite3';

/** A report.json bigger than this is not read to backfill a row (the reports browser's limit too). */
const MAX_BACKFILL_REPORT_BYTES = 16 * 1024 * 1024;

/**
 * Schema version 4: runs.alert_rules, the distinct rule ids of a run's security alerts (a JSON
 * array), so that `reports list --rule` and `reports incidents` need not open every report.json.
 * Rows recorded before it are filled from their report.json while it is still readable; a row
 * whose report is gone keeps null, which means "not known", not "no alerts". Idempotent.
 */
export function migrateToAlertRules(db: Database.Database): void {
  const hasColumn = db
    .prepare<[string], { name: string }>('SELECT name FROM pragma_table_info(?)')
    .all('runs')
    .some((c) => c.name === 'alert_rules');
  if (!hasColumn) db.exec('ALTER TABLE runs ADD COLUMN alert_rules TEXT');
  const pending = db
    .prepare<[], { run_id: string; report_json: string }>(
      'SELECT run_id, report_json FROM runs WHERE alert_rules IS NULL',
    )
    .all();
  const fill = db.prepare<[string, string]>('UPDATE runs SET alert_rules = ? WHERE run_id = ?');
  for (const row of pending) {
    const rules = rulesFromReport(row.report_json);
    if (rules !== null) fill.run(JSON.stringify(rules), row.run_id);
  }
}

/** The stored form: each rule once, sorted, so equal sets compare equal. */
export function alertRuleIds(alerts: readonly { rule: string }[]): string[] {
  return [...new Set(alerts.map((a) => a.rule))].sort();
}

/** The alert rules a report.json names, or null when it cannot be read as a run report. */
function rulesFromReport(file: string): string[] | null {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const size = fstatSync(fd).size;
    if (size > MAX_BACKFILL_REPORT_BYTES) return null;
    const buf = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, buf, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    const report = JSON.parse(buf.subarray(0, read).toString('utf8')) as { alerts?: unknown };
    if (!Array.isArray(report.alerts)) return null;
    const alerts = report.alerts.filter(
      (a): a is { rule: string } => typeof a === 'object' && a !== null && typeof a.rule === 'string',
    );
    return alerts.length === report.alerts.length ? alertRuleIds(alerts) : null;
  } catch {
    // Moved, deleted or damaged since it was indexed: the row keeps null (not known).
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
