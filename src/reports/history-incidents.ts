import type { HistoryRow } from '../history/types.js';

export type Incident = {
  rule: string;
  /** Runs with at least one alert of the rule. */
  runs: number;
  /** The newest such run (by start time). */
  latest_run: string;
  latest_started_at: string;
  /** Agents of those runs, each once, sorted. */
  agents: string[];
};

export type Incidents = {
  incidents: Incident[];
  /** Runs looked at. */
  runs_scanned: number;
  /** Runs whose alert rules history does not know (recorded before schema 4, report since gone). */
  runs_unknown: number;
};

/** Runs with alerts grouped by rule, most runs first. Pure. */
export function historyIncidents(rows: readonly HistoryRow[]): Incidents {
  const byRule = new Map<string, { runs: number; latest: HistoryRow; agents: Set<string> }>();
  let unknown = 0;
  for (const row of rows) {
    if (row.alert_rules === null) {
      unknown += 1;
      continue;
    }
    for (const rule of row.alert_rules) {
      const g = byRule.get(rule);
      if (!g) {
        byRule.set(rule, { runs: 1, latest: row, agents: new Set([row.agent]) });
        continue;
      }
      g.runs += 1;
      g.agents.add(row.agent);
      if (newer(row, g.latest)) g.latest = row;
    }
  }
  const incidents = [...byRule.entries()]
    .map(([rule, g]) => ({
      rule,
      runs: g.runs,
      latest_run: g.latest.run_id,
      latest_started_at: g.latest.started_at,
      agents: [...g.agents].sort(),
    }))
    .sort((a, b) => b.runs - a.runs || (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0));
  return { incidents, runs_scanned: rows.length, runs_unknown: unknown };
}

function newer(a: HistoryRow, b: HistoryRow): boolean {
  return a.started_at > b.started_at || (a.started_at === b.started_at && a.run_id > b.run_id);
}
