import { describe, expect, it } from 'vitest';
import { renderBatchJunit } from '../reports/batch-junit.js';
import type { BatchSummary, Row } from '../reports/batch-types.js';
import { gateChecks } from './gate.js';
import { groupStats } from './summary.js';

const row = (index: number, agent: string, over: Partial<Row> = {}): Row => ({
  index,
  agent,
  task: 't<1>',
  trial: index + 1,
  run_id: `r${index}`,
  run_dir: `/runs/r${index}`,
  result: 'PASS',
  score: 100,
  tests_passed: true,
  failed_checks: [],
  alerts: [],
  benchmark_version: '1',
  elapsed_ms: 1500,
  ...over,
});

function summary(rows: Row[], complete = true): BatchSummary {
  const agents = [...new Set(rows.map((r) => r.agent))];
  return {
    schema_version: 1,
    batch_id: 'b1',
    kind: 'matrix',
    created_at: '2026-01-01T00:00:00.000Z',
    finished_at: '2026-01-01T00:01:00.000Z',
    complete,
    attempts_planned: complete ? rows.length : rows.length + 1,
    totals: { pass: 0, fail: 0, error: 0, not_run: complete ? 0 : 1 },
    rows,
    groups: agents.map((a) =>
      groupStats(
        a,
        null,
        rows.filter((r) => r.agent === a),
      ),
    ),
  };
}

describe('gateChecks', () => {
  const rows = [
    row(0, 'good'),
    row(1, 'good'),
    row(2, 'risky', { result: 'FAIL', score: 50, alerts: ['secrets-canary-read'] }),
    row(3, 'risky'),
  ];
  it('checks the weakest agent and batch totals, with each value', () => {
    const checks = gateChecks(summary(rows), { minPassRate: 0.6, maxUnsafeSuccesses: 0, maxAlerts: 1 });
    expect(checks.map((c) => [c.name, c.value, c.holds])).toEqual([
      ['pass rate of good', '1.000', true],
      ['pass rate of risky', '0.500', false],
      ['unsafe functional successes', '1', false],
      ['guard alerts', '1', true],
    ]);
  });
  it("holds every agent's mean cost per attempt to --max-cost, and sums tokens per group", () => {
    const usage = (cost: number | null) => ({
      input_tokens: 1000,
      output_tokens: 100,
      cost,
      currency: 'USD',
    });
    const priced = [
      row(0, 'cheap', { usage: usage(0.01) }),
      row(1, 'cheap', { usage: usage(0.03) }),
      row(2, 'dear', { usage: usage(0.5) }),
      row(3, 'unpriced', { usage: usage(null) }),
    ];
    const s = summary(priced);
    expect(s.groups.find((g) => g.agent === 'cheap')?.usage).toEqual({
      input_tokens: 2000,
      output_tokens: 200,
      cost_total: 0.04,
      cost_mean: 0.02,
      currency: 'USD',
    });
    expect(gateChecks(s, { maxCost: 0.1 }).map((c) => [c.name, c.value, c.holds])).toEqual([
      ['mean cost per attempt of cheap', '0.02 USD', true],
      ['mean cost per attempt of dear', '0.5 USD', false],
      ['mean cost per attempt of unpriced', 'none (no pricing or no scripted model)', false],
    ]);
  });
  it('fails an incomplete batch', () => {
    const checks = gateChecks(summary(rows.slice(0, 2), false), { minPassRate: 0 });
    expect(checks.at(-1)).toMatchObject({ name: 'attempts finished', holds: false });
  });
});

describe('renderBatchJunit', () => {
  it('escapes names and counts failures and errors per task', () => {
    const xml = renderBatchJunit(
      summary([
        row(0, 'a&b'),
        row(1, 'a&b', { result: 'FAIL', failed_checks: ['scope'] }),
        row(2, 'a&b', { result: 'ERROR', run_id: null, reason: 'bad "thing" \u0007' }),
      ]),
    );
    expect(xml).toContain(
      '<testsuite name="t&lt;1&gt;" id="0" package="agentguard" tests="3" failures="1" errors="1"',
    );
    expect(xml).toContain('<testcase classname="t&lt;1&gt;" name="a&amp;b · trial 1" time="1.500"/>');
    expect(xml).toContain('<failure message="FAIL score 100: failed checks: scope" type="FAIL">');
    expect(xml).toContain('<error message="bad &quot;thing&quot; " type="ERROR">');
    expect(xml).not.toContain('\u0007');
  });
});
