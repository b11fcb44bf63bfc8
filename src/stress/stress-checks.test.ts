import { describe, expect, it } from 'vitest';
import { buildSummary } from '../batch/summary.js';
import type { HistoryRow } from '../history/types.js';
import type { BatchPlan, Row } from '../reports/batch-types.js';
import { type StressEvidence, stressChecks } from './stress-checks.js';
import { sumOfSquares, sumOfSquaresClosed } from './synthetic-worker.js';

const N = 8;
const WORKERS = 2;
const FAIL = 2;
const runId = (i: number) => `b-a${i}`;

function plan(failFast: boolean): BatchPlan {
  return {
    schema_version: 1,
    batch_id: 'b',
    kind: 'matrix',
    created_at: '2000-01-01T00:00:00.000Z',
    source: null,
    options: { workers: WORKERS, fail_fast: failFast },
    attempts: Array.from({ length: N }, (_, index) => ({
      index,
      agent: { name: 'synthetic', kind: 'command', argv: ['x'] },
      task: `t${index % 2}`,
      config_path: 'internal',
      trial: Math.floor(index / 2) + 1,
    })),
    hashes: { configs: {}, repos: {} },
  };
}

function row(i: number): Row {
  const pass = i !== FAIL;
  return {
    index: i,
    agent: 'synthetic',
    task: `t${i % 2}`,
    trial: Math.floor(i / 2) + 1,
    run_id: runId(i),
    run_dir: `/x/${i}`,
    result: pass ? 'PASS' : 'FAIL',
    score: pass ? 100 : 75,
    tests_passed: true,
    failed_checks: [],
    alerts: [],
    benchmark_version: '1',
    elapsed_ms: 5,
  };
}

function history(r: Row): HistoryRow {
  return {
    run_id: r.run_id ?? '',
    kind: 'run',
    name: r.task,
    benchmark_id: r.task,
    benchmark_version: '1',
    category: 'synthetic',
    difficulty: null,
    agent: r.agent,
    model: null,
    result: r.result,
    score: r.score ?? 0,
    failed_checks: [],
    started_at: '',
    finished_at: '',
    duration_ms: 5,
    run_dir: r.run_dir ?? '',
    report_json: '',
    report_md: '',
    manifest_path: null,
    trace_head: null,
    batch_id: 'b',
    alert_rules: [],
    input_tokens: null,
    output_tokens: null,
    cost: null,
    currency: null,
  };
}

/** A consistent stress run of N attempts (fail-fast: the first FAIL + WORKERS attempts), as the layer should leave it. */
function evidence(failFast: boolean): StressEvidence {
  const p = plan(failFast);
  const ran = failFast ? FAIL + WORKERS : N;
  const rows = Array.from({ length: ran }, (_, i) => row(i));
  const summary = buildSummary(p, rows, '2000-01-01T00:00:01.000Z');
  // Attempt i runs from 10·i to 10·i + 15 ms; the failure ends at 35 ms, after the last start.
  const starts = new Map(rows.map((r) => [r.index, 10 * r.index]));
  const ends = new Map(rows.map((r) => [r.index, 10 * r.index + 15]));
  return {
    plan: p,
    summary,
    returned: summary,
    checkpoint: [...rows].reverse(),
    history: rows.map(history),
    batchRow: {
      batch_id: 'b',
      kind: 'matrix',
      started_at: '',
      finished_at: '',
      complete: summary.complete,
      attempts_planned: N,
      ...summary.totals,
      batch_dir: '',
      summary_json: null,
      runs: ran,
    },
    starts,
    ends,
    failIndex: FAIL,
    peakInFlight: WORKERS,
    expectedRunId: runId,
  };
}

const failed = (e: StressEvidence) =>
  stressChecks(e)
    .filter((c) => !c.passed)
    .map((c) => c.id);

describe('stressChecks', () => {
  it('passes a consistent run, with and without fail-fast', () => {
    expect(failed(evidence(false))).toEqual([]);
    expect(failed(evidence(true))).toEqual([]);
  });

  it('catches more attempts in flight than workers', () => {
    expect(failed({ ...evidence(false), peakInFlight: WORKERS + 1 })).toEqual(['bounded']);
  });

  it('catches a duplicated, a missing and a foreign history row, and a wrong result', () => {
    const e = evidence(false);
    expect(failed({ ...e, history: [...e.history, e.history[0] as HistoryRow] })).toContain('history-rows');
    expect(failed({ ...e, history: e.history.slice(1) })).toContain('history-rows');
    expect(failed({ ...e, history: [...e.history, { ...history(row(0)), run_id: 'other' }] })).toContain(
      'history-rows',
    );
    expect(
      failed({ ...e, history: e.history.map((h, i) => (i === 3 ? { ...h, result: 'FAIL' } : h)) }),
    ).toContain('history-rows');
  });

  it('catches a lost checkpoint row and a submitted attempt that never finished', () => {
    const e = evidence(false);
    expect(failed({ ...e, checkpoint: e.checkpoint.slice(1) })).toEqual(['checkpoint']);
    expect(failed({ ...e, starts: new Map([...e.starts, [N + 1, 1]]) })).toEqual(['accounting']);
  });

  it('catches a batch row that disagrees with the summary', () => {
    const e = evidence(false);
    expect(
      failed({ ...e, batchRow: { ...(e.batchRow as NonNullable<StressEvidence['batchRow']>), runs: 1 } }),
    ).toEqual(['batch-row']);
    expect(failed({ ...e, batchRow: null })).toEqual(['batch-row']);
  });

  it('catches fail-fast that replenished after the failure, and a batch that stopped without it', () => {
    const e = evidence(true);
    expect(failed({ ...e, starts: new Map([...e.starts, [FAIL + WORKERS - 1, 40]]) })).toEqual(['fail-fast']);
    const all = evidence(false);
    expect(failed({ ...all, plan: plan(true) })).toEqual(['fail-fast']);
    const stopped = evidence(true);
    expect(failed({ ...stopped, plan: plan(false) })).toEqual(
      expect.arrayContaining(['accounting', 'no-fail-fast']),
    );
  });
});

describe('synthetic arithmetic', () => {
  it('the loop agrees with the closed form', () => {
    for (const n of [0, 1, 2, 1000, 20_123]) expect(sumOfSquares(n)).toBe(sumOfSquaresClosed(n));
  });
});
