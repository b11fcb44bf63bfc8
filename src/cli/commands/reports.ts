import { existsSync } from 'node:fs';
import path from 'node:path';
import { loadRuleSet } from '../../analysis/rules/load-rules.js';
import { closestKey } from '../../config/closest-key.js';
import { InputError } from '../../errors.js';
import { readEvidenceText, readJson } from '../../evidence/read.js';
import { refuseOversizedReport } from '../../evidence/report-file-limit.js';
import { openHistory } from '../../history/db.js';
import type { HistoryRow } from '../../history/types.js';
import { renderCsv } from '../../reports/history-csv.js';
import { renderTable } from '../../reports/table.js';
import { type CliIO, type GlobalOptions, outputDir } from '../io.js';
import { type FilterOptions, historyFilter } from './reports-filter.js';

export type ReportsOptions = GlobalOptions &
  FilterOptions & {
    json?: boolean;
    format?: string;
  };

/** Every indexed run that matches, as JSON (the rows of `reports list --json`) or CSV. */
export async function reportsExport(io: CliIO, opts: ReportsOptions): Promise<number> {
  const format = String(opts.format ?? 'json');
  if (format !== 'json' && format !== 'csv') {
    throw new InputError(
      `--format ${format} is not an export format. Fix: use --format json or --format csv.`,
    );
  }
  const filter = historyFilter(opts, EXPORT_ALL);
  const db = history(opts);
  try {
    const rows = db.listRuns(filter);
    if (format === 'json') io.out(JSON.stringify(rows, null, 2));
    else io.out(renderCsv(EXPORT_COLUMNS, rows).trimEnd());
    return 0;
  } finally {
    db.close();
  }
}

/** Without --limit an export holds every matching run. */
export const EXPORT_ALL = 1_000_000_000;
const EXPORT_COLUMNS = [
  'run_id',
  'kind',
  'name',
  'benchmark_id',
  'benchmark_version',
  'agent',
  'model',
  'result',
  'score',
  'failed_checks',
  'alert_rules',
  'started_at',
  'finished_at',
  'duration_ms',
  'batch_id',
  'run_dir',
  'manifest_path',
  'trace_head',
] as const satisfies readonly (keyof HistoryRow)[];

/** The history index under the output folder; a folder without one is an error saying how to get one. */
export function history(opts: GlobalOptions) {
  const file = path.join(outputDir(opts), 'history.db');
  if (!existsSync(file)) {
    throw new InputError(
      `${file} does not exist yet. Fix: run a task first (agentguard run CONFIG or agentguard demo).`,
    );
  }
  return openHistory(file);
}

export async function reportsList(io: CliIO, opts: ReportsOptions): Promise<number> {
  historyFilter(opts, 20);
  const db = history(opts);
  try {
    const rows = db.listRuns(historyFilter(opts, 20));
    if (opts.json) {
      io.out(JSON.stringify(rows, null, 2));
      return 0;
    }
    if (rows.length === 0 && opts.rule !== undefined) {
      const note = unknownRuleNote(String(opts.rule));
      if (note !== null) io.err(note);
    }
    io.out(
      renderTable(
        ['run', 'task', 'agent', 'result', 'score', 'started', 'batch'],
        rows.map((r) => [
          r.run_id,
          r.name,
          r.agent,
          r.result,
          String(r.score),
          r.started_at,
          r.batch_id ?? '–',
        ]),
      ),
    );
    return 0;
  } finally {
    db.close();
  }
}

/** The batches history.db indexes, newest first: kind, counts, whether complete, and the summary. */
export async function reportsBatches(io: CliIO, opts: ReportsOptions): Promise<number> {
  const db = history(opts);
  try {
    const rows = db.listBatches(historyFilter({ limit: opts.limit }, 20).limit);
    if (opts.json) {
      io.out(JSON.stringify(rows, null, 2));
      return 0;
    }
    io.out(
      renderTable(
        [
          'batch',
          'kind',
          'started',
          'finished',
          'attempts',
          'pass',
          'fail',
          'error',
          'not run',
          'runs',
          'summary',
        ],
        rows.map((b) => [
          b.batch_id,
          b.kind,
          b.started_at,
          b.finished_at ?? 'not finished',
          String(b.attempts_planned),
          String(b.pass),
          String(b.fail),
          String(b.error),
          String(b.not_run),
          String(b.runs),
          b.complete ? (b.summary_json ?? '–') : `incomplete: agentguard resume ${b.batch_dir}`,
        ]),
      ),
    );
    return 0;
  } finally {
    db.close();
  }
}

export async function reportsShow(io: CliIO, runId: string, opts: ReportsOptions): Promise<number> {
  const db = history(opts);
  let row: ReturnType<typeof db.getRun>;
  try {
    row = db.getRun(runId);
  } finally {
    db.close();
  }
  if (!row)
    throw new InputError(`no run '${runId}' in history. Fix: list runs with 'agentguard reports list'.`);
  const fix = 'the run directory was moved or deleted; re-run the task';
  // --json promises report.json itself: a corrupt one is an error naming its field, not output.
  const file = opts.json ? row.report_json : row.report_md;
  refuseOversizedReport(file, "'reports show'");
  if (opts.json) {
    // The report's schema (zod) loads only here: `reports list` is run most and should not wait for it.
    const { RunReportFileSchema } = await import('../../reports/report-schema.js');
    readJson(file, `'agentguard analyze ${row.run_dir}' rewrites it`, RunReportFileSchema, row.run_dir);
  }
  io.out(readEvidenceText(file, { fix, within: row.run_dir }));
  return 0;
}

/**
 * Rule ids are open-ended (a project's own rule files), so any id may be asked for; but an empty list
 * for an id no default rule has is most likely a typo, and says so.
 */
function unknownRuleNote(rule: string): string | null {
  const ids = loadRuleSet().rules.map((r) => r.id);
  if (ids.includes(rule)) return null;
  const near = closestKey(rule, ids) ?? mostWordsShared(rule, ids);
  return (
    `note: no default rule is named '${rule}' and no run in this history raised it. ` +
    `Fix: ${near ? `did you mean --rule ${near}? ` : ''}the default rules are the ids in the package's rules/*.yaml.`
  );
}

/** The id sharing the most of the asked id's words (`read-ssh-key` → `secrets-ssh-key-read`), if two or more. */
function mostWordsShared(asked: string, ids: readonly string[]): string | undefined {
  const words = new Set(
    asked
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean),
  );
  let best: { id: string; shared: number } | undefined;
  for (const id of ids) {
    const shared = id.split('-').filter((w) => words.has(w)).length;
    if (shared >= 2 && (best === undefined || shared > best.shared)) best = { id, shared };
  }
  return best?.id;
}
