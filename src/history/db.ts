import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { AgentGuardError, errorMessage, InputError, InternalError, SetupError } from '../errors.js';
import { alertRuleIds, migrateToAlertRules } from './alert-rules.js';
import { batchStatements, migrateToBatches } from './batches.js';
import { migrateToTraceHead } from './trace-head.js';
import type {
  History,
  HistoryFilter,
  HistoryKind,
  HistoryRow,
  RecordableBatch,
  RecordableRun,
  RecordedPaths,
} from './types.js';
import { migrateToUsage } from './usage-columns.js';

/** Stored in `PRAGMA user_version`. */
export const HISTORY_SCHEMA_VERSION = 5;
export const HISTORY_BUSY_TIMEOUT_MS = 5000;
const DEFAULT_LIMIT = 20;

const COLUMNS = [
  'run_id',
  'kind',
  'name',
  'benchmark_id',
  'benchmark_version',
  'category',
  'difficulty',
  'agent',
  'model',
  'result',
  'score',
  'failed_checks',
  'started_at',
  'finished_at',
  'duration_ms',
  'run_dir',
  'report_json',
  'report_md',
  'manifest_path',
  'trace_head',
  'alert_rules',
  'input_tokens',
  'output_tokens',
  'cost',
  'currency',
] as const satisfies readonly (keyof HistoryRow)[];

type Column = (typeof COLUMNS)[number];
type StoredRow = Omit<HistoryRow, 'failed_checks' | 'alert_rules'> & {
  failed_checks: string;
  alert_rules: string | null;
};
/**
 * Read, never written by recordRun: the batch layer links a run to its batch, and re-recording the
 * run (analyze) must not unlink it.
 */
const SELECTED = [...COLUMNS, 'batch_id'] as const;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS runs (
  run_id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  name TEXT NOT NULL,
  benchmark_id TEXT,
  benchmark_version TEXT,
  category TEXT,
  difficulty TEXT,
  agent TEXT NOT NULL,
  model TEXT,
  result TEXT NOT NULL,
  score REAL NOT NULL,
  failed_checks TEXT NOT NULL,
  started_at TEXT NOT NULL,
  finished_at TEXT NOT NULL,
  duration_ms INTEGER NOT NULL,
  run_dir TEXT NOT NULL,
  report_json TEXT NOT NULL,
  report_md TEXT NOT NULL,
  manifest_path TEXT
);
CREATE INDEX IF NOT EXISTS runs_started_at ON runs (started_at);
CREATE INDEX IF NOT EXISTS runs_agent ON runs (agent);
CREATE INDEX IF NOT EXISTS runs_benchmark_id ON runs (benchmark_id);
`;

/**
 * Re-recording a run without a new seal (analyze of a run that no longer verifies) keeps the
 * manifest and trace head it was sealed with: they are the anchor that exposes the change.
 */
const KEPT_WHEN_ABSENT: ReadonlySet<Column> = new Set(['manifest_path', 'trace_head']);

const INSERT = `INSERT INTO runs (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((c) => `@${c}`).join(', ')})
ON CONFLICT (run_id) DO UPDATE SET ${COLUMNS.filter((c) => c !== 'run_id')
  .map((c) => (KEPT_WHEN_ABSENT.has(c) ? `${c} = COALESCE(excluded.${c}, ${c})` : `${c} = excluded.${c}`))
  .join(', ')}`;

/** Filter fields and the column each one matches exactly. */
const FILTER_COLUMNS = {
  kind: 'kind',
  agent: 'agent',
  benchmark: 'benchmark_id',
  result: 'result',
  batch: 'batch_id',
  task: 'name',
} as const satisfies Record<
  Exclude<keyof HistoryFilter, 'limit' | 'since' | 'until' | 'check' | 'rule'>,
  (typeof SELECTED)[number]
>;

/**
 * Open (creating if needed) the history index at `dbPath`. Several processes may write at once:
 * WAL lets readers run beside a writer, and writers wait up to 5 s for each other.
 */
export function openHistory(dbPath: string): History {
  try {
    mkdirSync(dirname(dbPath), { recursive: true });
  } catch (err) {
    throw new SetupError(`cannot create the folder for history database ${dbPath}: ${errorMessage(err)}`, {
      cause: err,
    });
  }
  let db: Database.Database;
  try {
    db = new Database(dbPath);
  } catch (err) {
    throw translate(err, dbPath);
  }
  try {
    // The timeout first: switching to WAL and creating the schema already need the write lock.
    db.pragma(`busy_timeout = ${HISTORY_BUSY_TIMEOUT_MS}`);
    db.pragma('journal_mode = WAL');
    migrate(db, dbPath);
    keepToOwner(dbPath);
  } catch (err) {
    db.close();
    throw translate(err, dbPath);
  }
  return historyOn(db, dbPath);
}

/**
 * Every run's history is its owner's alone, whatever folder holds it: no sandboxed run user may read
 * it. A file of another user's (a shared index opened by someone else) is left as it is.
 */
function keepToOwner(dbPath: string): void {
  for (const file of [dbPath, `${dbPath}-wal`, `${dbPath}-shm`]) {
    try {
      if (existsSync(file)) chmodSync(file, 0o600);
    } catch {
      // not ours to change
    }
  }
}

/**
 * Opens the history index and checks it before a run spends its time: a corrupt file is found
 * now, in one sentence, rather than after the agent ran. Creates the file when it is missing.
 */
export function checkHistory(dbPath: string): void {
  const history = openHistory(dbPath);
  history.close();
  let db: Database.Database | undefined;
  try {
    db = new Database(dbPath, { readonly: true });
    db.pragma(`busy_timeout = ${HISTORY_BUSY_TIMEOUT_MS}`);
    const problems = db.pragma('quick_check', { simple: false }) as { quick_check: string }[];
    const first = problems[0]?.quick_check ?? 'ok';
    if (first !== 'ok') {
      throw new InputError(
        `history database ${dbPath} is corrupt (${first}); move it aside: history is rebuilt from report.json files as runs are re-recorded`,
      );
    }
  } catch (err) {
    throw translate(err, dbPath);
  } finally {
    db?.close();
  }
}

function migrate(db: Database.Database, dbPath: string): void {
  const schemaVersion = () => {
    const version = Number(db.pragma('user_version', { simple: true }));
    if (version > HISTORY_SCHEMA_VERSION) {
      throw new InputError(
        `history database ${dbPath} has schema version ${version}, newer than this agentguard understands (${HISTORY_SCHEMA_VERSION}); upgrade agentguard or move the file aside`,
      );
    }
    return version;
  };
  // Only a database that needs the schema takes the write lock; IMMEDIATE takes it up front so two
  // processes creating the schema queue up, and the second then finds the work done.
  if (schemaVersion() < HISTORY_SCHEMA_VERSION) {
    db.transaction(() => {
      const from = schemaVersion();
      if (from < HISTORY_SCHEMA_VERSION) {
        // Each step is idempotent and only adds: a version 1 file keeps every run it indexed.
        db.exec(SCHEMA);
        if (from < 2) migrateToBatches(db);
        if (from < 3) migrateToTraceHead(db);
        if (from < 4) migrateToAlertRules(db);
        if (from < 5) migrateToUsage(db);
        db.pragma(`user_version = ${HISTORY_SCHEMA_VERSION}`);
      }
    }).immediate();
  }
  const present = new Set(
    db
      .prepare<[string], { name: string }>('SELECT name FROM pragma_table_info(?)')
      .all('runs')
      .map((c) => c.name),
  );
  const missing = SELECTED.filter((c) => !present.has(c));
  if (missing.length > 0) {
    throw new InputError(
      `${dbPath} is not an agentguard history database (table runs lacks ${missing.join(', ')}); move it aside: history is rebuilt from report.json files as runs are re-recorded`,
    );
  }
}

function historyOn(db: Database.Database, dbPath: string): History {
  const guarded =
    <A extends unknown[], R>(fn: (...args: A) => R) =>
    (...args: A): R => {
      try {
        return fn(...args);
      } catch (err) {
        throw translate(err, dbPath);
      }
    };
  const insert = db.prepare<[Record<Column, string | number | null>]>(INSERT);
  const byId = db.prepare<[string], StoredRow>(`SELECT ${SELECTED.join(', ')} FROM runs WHERE run_id = ?`);
  const batches = batchStatements(db);
  // The row and its batch link in one transaction: one commit (and sync) for both, and a batch
  // killed right after the run finds it linked or not recorded at all, never half.
  const record = db.transaction(
    (report: RecordableRun, paths: RecordedPaths, kind: HistoryKind, batchId?: string) => {
      insert.run(rowOf(report, paths, kind));
      if (batchId !== undefined) batches.link(batchId, report.run_id);
    },
  );

  return {
    recordRun: guarded(
      (report: RecordableRun, paths: RecordedPaths, kind: HistoryKind = 'run', batchId?: string) =>
        record(report, paths, kind, batchId),
    ),
    listRuns: guarded((filter: HistoryFilter = {}) => {
      const { where, params } = runFilter(filter);
      const sql = `SELECT ${SELECTED.join(', ')} FROM runs ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY started_at DESC, run_id DESC LIMIT @limit`;
      return db
        .prepare<[Record<string, string | number>], StoredRow>(sql)
        .all(params)
        .map((row) => parseRow(row, dbPath));
    }),
    getRun: guarded((runId: string) => {
      const row = byId.get(runId);
      return row === undefined ? null : parseRow(row, dbPath);
    }),
    recordBatch: guarded((batch: RecordableBatch) => batches.record(batch)),
    listBatches: guarded((limit: number = DEFAULT_LIMIT) => batches.list(checkedLimit(limit))),
    getBatch: guarded((batchId: string) => batches.get(batchId)),
    close: () => {
      if (db.open) db.close();
    },
  };
}

/** The WHERE terms and parameters of a run listing's filter. */
function runFilter(filter: HistoryFilter): { where: string[]; params: Record<string, string | number> } {
  const where: string[] = [];
  const params: Record<string, string | number> = { limit: checkedLimit(filter.limit ?? DEFAULT_LIMIT) };
  for (const [key, column] of Object.entries(FILTER_COLUMNS)) {
    const value = filter[key as keyof typeof FILTER_COLUMNS];
    if (value === undefined) continue;
    where.push(`${column} = @${key}`);
    params[key] = value;
  }
  // Membership in the stored JSON arrays: a run whose check failed, a run with that rule's alert.
  if (filter.check !== undefined) {
    where.push('EXISTS (SELECT 1 FROM json_each(failed_checks) WHERE value = @check)');
    params.check = filter.check;
  }
  if (filter.rule !== undefined) {
    where.push('EXISTS (SELECT 1 FROM json_each(alert_rules) WHERE value = @rule)');
    params.rule = filter.rule;
  }
  if (filter.since !== undefined) {
    where.push('started_at >= @since');
    params.since = filter.since;
  }
  if (filter.until !== undefined) {
    where.push('started_at < @until');
    params.until = filter.until;
  }
  return { where, params };
}

function checkedLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1) {
    throw new InternalError(`history: limit must be a positive integer, got ${limit}`);
  }
  return limit;
}

function rowOf(
  report: RecordableRun,
  paths: RecordedPaths,
  kind: HistoryKind,
): Record<Column, string | number | null> {
  return {
    run_id: report.run_id,
    kind,
    name: report.task.name,
    benchmark_id: report.benchmark.id,
    benchmark_version: report.benchmark.version,
    category: report.benchmark.category,
    difficulty: report.benchmark.difficulty,
    agent: report.agent.name,
    model: report.agent.model,
    result: report.result,
    score: report.score,
    failed_checks: JSON.stringify(report.failed_checks),
    started_at: report.started_at,
    finished_at: report.finished_at,
    duration_ms: report.duration_ms,
    run_dir: report.run_dir,
    report_json: paths.report_json,
    report_md: paths.report_md,
    manifest_path: paths.manifest ?? null,
    trace_head: paths.trace_head ?? null,
    alert_rules: JSON.stringify(alertRuleIds(report.alerts)),
    input_tokens: report.usage?.input_tokens ?? null,
    output_tokens: report.usage?.output_tokens ?? null,
    cost: report.usage?.cost ?? null,
    currency: report.usage?.currency ?? null,
  };
}

function parseRow(row: StoredRow, dbPath: string): HistoryRow {
  const failed = idList(row.failed_checks);
  const rules = row.alert_rules === null ? null : idList(row.alert_rules);
  for (const [column, value] of [
    ['failed_checks', failed],
    ['alert_rules', rules],
  ] as const) {
    if (value === undefined) {
      throw new InputError(
        `history database ${dbPath}: run ${row.run_id} has unreadable ${column}; move the file aside: history is rebuilt from report.json files as runs are re-recorded`,
      );
    }
  }
  return { ...row, failed_checks: failed as string[], alert_rules: rules ?? null };
}

/** A stored JSON array of ids, or undefined when it is not one. */
function idList(text: string): string[] | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return Array.isArray(value) && value.every((id) => typeof id === 'string') ? value : undefined;
}

const CORRUPT = new Set(['SQLITE_NOTADB', 'SQLITE_CORRUPT', 'SQLITE_CORRUPT_INDEX', 'SQLITE_CORRUPT_VTAB']);

function translate(err: unknown, dbPath: string): Error {
  if (err instanceof AgentGuardError) return err;
  const code = err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : '';
  const detail = errorMessage(err);
  if (CORRUPT.has(code)) {
    return new InputError(
      `history database ${dbPath} is corrupt or not a SQLite database (${detail}); move it aside: history is rebuilt from report.json files as runs are re-recorded`,
      { cause: err },
    );
  }
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new SetupError(
      `history database ${dbPath} stayed locked by another process for ${HISTORY_BUSY_TIMEOUT_MS / 1000} s; retry when it finishes`,
      { cause: err },
    );
  }
  if (/^SQLITE_(CANTOPEN|READONLY|PERM|IOERR|FULL|AUTH)/.test(code)) {
    return new SetupError(`cannot use history database ${dbPath}: ${detail}; check that it is writable`, {
      cause: err,
    });
  }
  return new InternalError(`history database ${dbPath}: ${detail}`, { cause: err });
}
