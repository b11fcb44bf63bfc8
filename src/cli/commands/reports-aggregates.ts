import { InputError } from '../../errors.js';
import { historyIncidents } from '../../reports/history-incidents.js';
import { historyTrends, type TrendPeriod } from '../../reports/history-trends.js';
import { renderTable } from '../../reports/table.js';
import type { CliIO } from '../io.js';
import { EXPORT_ALL, history, type ReportsOptions } from './reports.js';
import { historyFilter } from './reports-filter.js';

export type TrendsOptions = ReportsOptions & { by?: string };

/** Pass rate and mean score per agent and task, per UTC day or (`--by benchmark`) per benchmark version. */
export async function reportsTrends(io: CliIO, opts: TrendsOptions): Promise<number> {
  const by = String(opts.by ?? 'day');
  if (by !== 'day' && by !== 'benchmark') {
    throw new InputError(`--by ${by} is not a trend period. Fix: use --by day or --by benchmark.`);
  }
  // Without --limit a trend covers every matching run, as an export does.
  const filter = historyFilter(opts, EXPORT_ALL);
  const db = history(opts);
  try {
    const trends = historyTrends(db.listRuns(filter), by as TrendPeriod);
    if (opts.json) {
      io.out(JSON.stringify(trends, null, 2));
      return 0;
    }
    io.out(
      renderTable(
        ['agent', 'task', by === 'day' ? 'day (UTC)' : 'benchmark', 'runs', 'pass rate', 'mean score'],
        trends.map((t) => [
          t.agent,
          t.task,
          t.period,
          String(t.runs),
          `${(t.pass_rate * 100).toFixed(0)}%`,
          t.mean_score.toFixed(1),
        ]),
        { align: ['left', 'left', 'left', 'right', 'right', 'right'] },
      ),
    );
    return 0;
  } finally {
    db.close();
  }
}

/** Runs with security alerts, grouped by rule: how many runs, the newest, and which agents. */
export async function reportsIncidents(io: CliIO, opts: ReportsOptions): Promise<number> {
  const filter = historyFilter(opts, EXPORT_ALL);
  const db = history(opts);
  try {
    const found = historyIncidents(db.listRuns(filter));
    if (opts.json) {
      io.out(JSON.stringify(found, null, 2));
      return 0;
    }
    io.out(
      renderTable(
        ['rule', 'runs', 'latest run', 'latest started', 'agents'],
        found.incidents.map((i) => [
          i.rule,
          String(i.runs),
          i.latest_run,
          i.latest_started_at,
          i.agents.join(', '),
        ]),
        { align: ['left', 'right'] },
      ),
    );
    io.out(
      `${found.incidents.length} rules over ${found.runs_scanned} runs` +
        (found.runs_unknown > 0
          ? `; ${found.runs_unknown} runs recorded before history schema 4 have no readable report.json, so their alerts are not known`
          : ''),
    );
    return 0;
  } finally {
    db.close();
  }
}
