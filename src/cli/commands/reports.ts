import { existsSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../../errors.js';
import { readEvidenceText } from '../../evidence/read.js';
import { openHistory } from '../../history/db.js';
import { renderTable } from '../../reports/table.js';
import { type CliIO, type GlobalOptions, outputDir } from '../io.js';

export type ReportsOptions = GlobalOptions & {
  limit?: number;
  agent?: string;
  benchmark?: string;
  result?: string;
  batch?: string;
  json?: boolean;
};

function history(opts: GlobalOptions) {
  const file = path.join(outputDir(opts), 'history.db');
  if (!existsSync(file)) {
    throw new InputError(
      `${file} does not exist yet. Fix: run a task first (agentguard run CONFIG or agentguard demo).`,
    );
  }
  return openHistory(file);
}

export async function reportsList(io: CliIO, opts: ReportsOptions): Promise<number> {
  const db = history(opts);
  try {
    const filter: Parameters<typeof db.listRuns>[0] = { limit: opts.limit ?? 20 };
    if (opts.agent) filter.agent = opts.agent;
    if (opts.benchmark) filter.benchmark = opts.benchmark;
    if (opts.result) filter.result = opts.result.toUpperCase() === 'PASS' ? 'PASS' : 'FAIL';
    if (opts.batch) filter.batch = String(opts.batch);
    const rows = db.listRuns(filter);
    if (opts.json) {
      io.out(JSON.stringify(rows, null, 2));
      return 0;
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
    const rows = db.listBatches(opts.limit ?? 20);
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
  const file = opts.json ? row.report_json : row.report_md;
  io.out(readEvidenceText(file, { fix: 'the run directory was moved or deleted; re-run the task' }));
  return 0;
}
