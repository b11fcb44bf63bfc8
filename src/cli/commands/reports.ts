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
    const rows = db.listRuns(filter);
    if (opts.json) {
      io.out(JSON.stringify(rows, null, 2));
      return 0;
    }
    io.out(
      renderTable(
        ['run', 'task', 'agent', 'result', 'score', 'started'],
        rows.map((r) => [r.run_id, r.name, r.agent, r.result, String(r.score), r.started_at]),
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
