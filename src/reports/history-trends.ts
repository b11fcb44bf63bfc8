import type { HistoryRow } from '../history/types.js';

/** What a trend is taken over: the UTC day a run started, or the benchmark version it ran. */
export type TrendPeriod = 'day' | 'benchmark';

export type TrendRow = {
  agent: string;
  task: string;
  /** `YYYY-MM-DD` (UTC) by day; by benchmark, `<benchmark id>@<version>` (`unversioned` when none). */
  period: string;
  runs: number;
  passed: number;
  /** passed / runs, 0..1; an ERROR counts as not passed. */
  pass_rate: number;
  mean_score: number;
};

/** Pass rate and mean score per agent and task, per day or per benchmark version, oldest first. Pure. */
export function historyTrends(rows: readonly HistoryRow[], by: TrendPeriod): TrendRow[] {
  const groups = new Map<
    string,
    { agent: string; task: string; period: string; scores: number[]; passed: number }
  >();
  for (const row of rows) {
    const period = by === 'day' ? row.started_at.slice(0, 10) : benchmarkPeriod(row);
    const key = JSON.stringify([row.agent, row.name, period]);
    let g = groups.get(key);
    if (!g) {
      g = { agent: row.agent, task: row.name, period, scores: [], passed: 0 };
      groups.set(key, g);
    }
    g.scores.push(row.score);
    if (row.result === 'PASS') g.passed += 1;
  }
  return [...groups.values()]
    .map((g) => ({
      agent: g.agent,
      task: g.task,
      period: g.period,
      runs: g.scores.length,
      passed: g.passed,
      pass_rate: round(g.passed / g.scores.length, 4),
      mean_score: round(g.scores.reduce((a, b) => a + b, 0) / g.scores.length, 2),
    }))
    .sort((a, b) => cmp(a.agent, b.agent) || cmp(a.task, b.task) || cmp(a.period, b.period));
}

function benchmarkPeriod(row: HistoryRow): string {
  const id = row.benchmark_id ?? row.name;
  return `${id}@${row.benchmark_version ?? 'unversioned'}`;
}

function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
