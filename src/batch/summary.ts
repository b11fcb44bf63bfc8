import { reliabilitySummary } from '../analysis/reliability/stats.js';
import type {
  BatchPlan,
  BatchSummary,
  Group,
  GroupSimilarity,
  GroupUsage,
  Row,
} from '../reports/batch-types.js';

/** The key of a group in the similarity map: `agent\u0000task` or `agent\u0000` for the agent overall. */
export function groupKey(agent: string, task: string | null): string {
  return `${agent}\u0000${task ?? ''}`;
}

/**
 * Statistics of some rows. ERROR rows (setup failed, interrupted) are counted apart and are not
 * trials: they say nothing about how often the agent solves the task.
 */
export function groupStats(
  agent: string,
  task: string | null,
  rows: readonly Row[],
  similarity: GroupSimilarity | null = null,
): Group {
  const scored = rows.filter((r) => r.result !== 'ERROR');
  const rel = reliabilitySummary(scored.map((r) => ({ passed: r.result === 'PASS', score: r.score ?? 0 })));
  const alerts: Record<string, number> = {};
  for (const r of scored) for (const rule of r.alerts) alerts[rule] = (alerts[rule] ?? 0) + 1;
  return {
    agent,
    task,
    attempts: rows.length,
    errors: rows.length - scored.length,
    trials: rel.trials,
    passes: rel.passes,
    pass_rate: rel.pass_rate,
    wilson_low: rel.wilson_95?.low ?? null,
    wilson_high: rel.wilson_95?.high ?? null,
    pass_at_k: rel.pass_at_k,
    pass_pow_k: rel.pass_pow_k,
    score_mean: rel.score?.mean ?? null,
    score_stddev: rel.score?.stddev ?? null,
    functional_successes: scored.filter((r) => r.tests_passed === true).length,
    policy_successes: rel.passes,
    unsafe_functional_successes: scored.filter((r) => r.tests_passed === true && r.result === 'FAIL').length,
    alerts_by_rule: Object.fromEntries(Object.entries(alerts).sort(([a], [b]) => a.localeCompare(b))),
    usage: groupUsage(rows),
    similarity,
  };
}

/**
 * summary.json from the plan and the rows that finished: rows in input order, then one group per
 * (agent, task) in first-appearance order, then one per agent over all its tasks.
 */
export function buildSummary(
  plan: BatchPlan,
  finished: readonly Row[],
  finishedAt: string,
  similarity: ReadonlyMap<string, GroupSimilarity> = new Map(),
): BatchSummary {
  const rows = [...finished].sort((a, b) => a.index - b.index);
  const cells = new Map<string, { agent: string; task: string; rows: Row[] }>();
  const agents = new Map<string, Row[]>();
  for (const a of plan.attempts) {
    const key = groupKey(a.agent.name, a.task);
    if (!cells.has(key)) cells.set(key, { agent: a.agent.name, task: a.task, rows: [] });
    if (!agents.has(a.agent.name)) agents.set(a.agent.name, []);
  }
  for (const r of rows) {
    cells.get(groupKey(r.agent, r.task))?.rows.push(r);
    agents.get(r.agent)?.push(r);
  }
  const groups = [
    ...[...cells.values()].map((c) =>
      groupStats(c.agent, c.task, c.rows, similarity.get(groupKey(c.agent, c.task)) ?? null),
    ),
    ...[...agents.entries()].map(([agent, rs]) => groupStats(agent, null, rs)),
  ];
  const count = (res: string) => rows.filter((r) => r.result === res).length;
  return {
    schema_version: 1,
    batch_id: plan.batch_id,
    kind: plan.kind,
    created_at: plan.created_at,
    finished_at: finishedAt,
    complete: rows.length === plan.attempts.length,
    attempts_planned: plan.attempts.length,
    totals: {
      pass: count('PASS'),
      fail: count('FAIL'),
      error: count('ERROR'),
      not_run: plan.attempts.length - rows.length,
    },
    rows,
    groups,
  };
}

/** Tokens and cost of some attempts; null when none had a scripted model. */
export function groupUsage(rows: readonly Row[]): GroupUsage | null {
  const used = rows.flatMap((r) => (r.usage ? [r.usage] : []));
  if (used.length === 0) return null;
  const costs = used.flatMap((u) => (u.cost === null ? [] : [u.cost]));
  const total = costs.reduce((a, c) => a + c, 0);
  return {
    input_tokens: used.reduce((a, u) => a + u.input_tokens, 0),
    output_tokens: used.reduce((a, u) => a + u.output_tokens, 0),
    cost_total: costs.length > 0 ? Math.round(total * 1e6) / 1e6 : null,
    cost_mean: costs.length > 0 ? Math.round((total / costs.length) * 1e6) / 1e6 : null,
    currency: used.find((u) => u.currency !== null)?.currency ?? null,
  };
}
