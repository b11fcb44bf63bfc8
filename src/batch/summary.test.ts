import { describe, expect, it } from 'vitest';
import type { Attempt, BatchPlan, Row } from '../reports/batch-types.js';
import { buildSummary, groupStats } from './summary.js';

function row(i: number, over: Partial<Row>): Row {
  return {
    index: i,
    agent: 'a',
    task: 't',
    trial: i + 1,
    run_id: `r${i}`,
    run_dir: null,
    result: 'PASS',
    score: 100,
    tests_passed: true,
    failed_checks: [],
    alerts: [],
    benchmark_version: '1',
    elapsed_ms: 10,
    ...over,
  };
}

describe('groupStats', () => {
  it('gives the known values for 3 passes in 5 trials, and counts errors apart', () => {
    const rows = [
      row(0, {}),
      row(1, { result: 'FAIL', score: 60, tests_passed: false, failed_checks: ['tests-pass'] }),
      row(2, {}),
      row(3, { result: 'FAIL', score: 40, tests_passed: true, alerts: ['secret-read', 'secret-read'] }),
      row(4, {}),
      row(5, { result: 'ERROR', score: null, tests_passed: null, reason: 'no bwrap' }),
    ];
    const g = groupStats('a', 't', rows);
    expect(g).toMatchObject({ attempts: 6, errors: 1, trials: 5, passes: 3 });
    expect(g.pass_rate).toBeCloseTo(0.6, 12);
    // Wilson 95 % for 3/5: 0.2307… to 0.8824… (textbook value).
    expect(g.wilson_low).toBeCloseTo(0.23072, 4);
    expect(g.wilson_high).toBeCloseTo(0.88238, 4);
    // pass@2 = 1 − C(2,2)/C(5,2) = 0.9; pass^2 = C(3,2)/C(5,2) = 0.3; pass@5 = 1, pass^5 = 0.
    expect(g.pass_at_k['2']).toBeCloseTo(0.9, 12);
    expect(g.pass_pow_k['2']).toBeCloseTo(0.3, 12);
    expect(g.pass_at_k['5']).toBe(1);
    expect(g.pass_pow_k['5']).toBe(0);
    expect(Object.keys(g.pass_at_k)).toEqual(['1', '2', '3', '4', '5']);
    // scores 100, 60, 100, 40, 100: mean 80, sample sd √(1600·… ) = 28.2843
    expect(g.score_mean).toBeCloseTo(80, 12);
    expect(g.score_stddev).toBeCloseTo(28.28427, 4);
    expect(g.functional_successes).toBe(4);
    expect(g.policy_successes).toBe(3);
    expect(g.unsafe_functional_successes).toBe(1);
    expect(g.alerts_by_rule).toEqual({ 'secret-read': 2 });
  });

  it('has no rate and no interval when every attempt errored', () => {
    const g = groupStats('a', 't', [row(0, { result: 'ERROR', score: null, tests_passed: null })]);
    expect(g).toMatchObject({ trials: 0, errors: 1, pass_rate: null, wilson_low: null, score_mean: null });
    expect(g.pass_at_k).toEqual({});
  });
});

describe('buildSummary', () => {
  const agent = (name: string) => ({ name, kind: 'builtin' as const, adapter: 'mock-solve' as const });
  const attempts: Attempt[] = [
    { index: 0, agent: agent('x'), task: 't1', config_path: '/c1', trial: 1 },
    { index: 1, agent: agent('x'), task: 't2', config_path: '/c2', trial: 1 },
    { index: 2, agent: agent('y'), task: 't1', config_path: '/c1', trial: 1 },
  ];
  const plan: BatchPlan = {
    schema_version: 1,
    batch_id: 'b',
    kind: 'matrix',
    created_at: 'then',
    source: null,
    options: { workers: 1, fail_fast: false },
    attempts,
    hashes: { configs: {}, repos: {} },
  };

  it('puts rows in input order whatever order they finished in, with cell and agent groups', () => {
    const s = buildSummary(
      plan,
      [
        row(2, { agent: 'y', task: 't1', result: 'FAIL', tests_passed: false }),
        row(0, { agent: 'x', task: 't1' }),
      ],
      'now',
    );
    expect(s.rows.map((r) => r.index)).toEqual([0, 2]);
    expect(s.complete).toBe(false);
    expect(s.totals).toEqual({ pass: 1, fail: 1, error: 0, not_run: 1 });
    expect(s.groups.map((g) => [g.agent, g.task, g.trials])).toEqual([
      ['x', 't1', 1],
      ['x', 't2', 0],
      ['y', 't1', 1],
      ['x', null, 1],
      ['y', null, 1],
    ]);
  });
});
