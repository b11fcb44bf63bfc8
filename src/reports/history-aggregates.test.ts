import { describe, expect, it } from 'vitest';
import type { HistoryRow } from '../history/types.js';
import { historyIncidents } from './history-incidents.js';
import { historyTrends } from './history-trends.js';

function row(o: Partial<HistoryRow> & { run_id: string }): HistoryRow {
  return {
    kind: 'run',
    name: 'task-a',
    benchmark_id: 'core/a',
    benchmark_version: '1',
    category: null,
    difficulty: null,
    agent: 'codex',
    model: null,
    result: 'PASS',
    score: 100,
    failed_checks: [],
    started_at: '2026-12-01T10:00:00.000Z',
    finished_at: '2026-12-01T10:01:00.000Z',
    duration_ms: 1,
    run_dir: '/r',
    report_json: '/r.json',
    report_md: '/r.md',
    manifest_path: null,
    trace_head: null,
    batch_id: null,
    alert_rules: [],
    input_tokens: null,
    output_tokens: null,
    cost: null,
    currency: null,
    ...o,
  };
}

describe('historyTrends', () => {
  const rows = [
    row({ run_id: '1' }),
    row({ run_id: '2', result: 'FAIL', score: 40 }),
    row({ run_id: '3', result: 'ERROR', score: 0, started_at: '2026-12-01T23:59:59.000Z' }),
    row({ run_id: '4', started_at: '2026-12-02T00:00:00.000Z', benchmark_version: '2', score: 90 }),
    row({ run_id: '5', agent: 'claude', score: 70 }),
  ];

  it('per agent, task and UTC day: pass rate (ERROR is not a pass) and mean score', () => {
    expect(historyTrends(rows, 'day')).toEqual([
      {
        agent: 'claude',
        task: 'task-a',
        period: '2026-12-01',
        runs: 1,
        passed: 1,
        pass_rate: 1,
        mean_score: 70,
      },
      {
        agent: 'codex',
        task: 'task-a',
        period: '2026-12-01',
        runs: 3,
        passed: 1,
        pass_rate: 0.3333,
        mean_score: 46.67,
      },
      {
        agent: 'codex',
        task: 'task-a',
        period: '2026-12-02',
        runs: 1,
        passed: 1,
        pass_rate: 1,
        mean_score: 90,
      },
    ]);
  });

  it('per benchmark version, an unversioned benchmark named as such', () => {
    const out = historyTrends(
      [...rows, row({ run_id: '6', benchmark_version: null, score: 10 })],
      'benchmark',
    );
    expect(out.filter((t) => t.agent === 'codex').map((t) => [t.period, t.runs, t.mean_score])).toEqual([
      ['core/a@1', 3, 46.67],
      ['core/a@2', 1, 90],
      ['core/a@unversioned', 1, 10],
    ]);
  });

  it('no runs, no trends', () => {
    expect(historyTrends([], 'day')).toEqual([]);
  });
});

describe('historyIncidents', () => {
  it('groups runs by alert rule: count, newest run, agents; runs of unknown rules are counted apart', () => {
    const out = historyIncidents([
      row({ run_id: 'a', alert_rules: ['read-ssh-key', 'net-untrusted'], agent: 'codex' }),
      row({
        run_id: 'b',
        alert_rules: ['read-ssh-key'],
        agent: 'claude',
        started_at: '2026-12-03T00:00:00.000Z',
      }),
      row({ run_id: 'c', alert_rules: [] }),
      row({ run_id: 'd', alert_rules: null }),
    ]);
    expect(out).toEqual({
      incidents: [
        {
          rule: 'read-ssh-key',
          runs: 2,
          latest_run: 'b',
          latest_started_at: '2026-12-03T00:00:00.000Z',
          agents: ['claude', 'codex'],
        },
        {
          rule: 'net-untrusted',
          runs: 1,
          latest_run: 'a',
          latest_started_at: '2026-12-01T10:00:00.000Z',
          agents: ['codex'],
        },
      ],
      runs_scanned: 4,
      runs_unknown: 1,
    });
  });
});
