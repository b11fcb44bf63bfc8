import type { BatchSummary } from '../reports/batch-types.js';

export type GateThresholds = {
  minPassRate?: number;
  minWilsonLow?: number;
  maxUnsafeSuccesses?: number;
  maxAlerts?: number;
  /** Every agent's mean cost per attempt, in the configs' pricing currency. */
  maxCost?: number;
};

export type GateCheck = { name: string; threshold: string; value: string; holds: boolean };

/**
 * The gate's checks over a batch summary. Pass rate and Wilson low bound are per agent (over all
 * its tasks): the weakest agent must clear them. Unsafe successes and alerts are batch totals.
 * Pure.
 */
export function gateChecks(s: BatchSummary, t: GateThresholds): GateCheck[] {
  const agents = s.groups.filter((g) => g.task === null);
  const checks: GateCheck[] = [];
  const fmt = (v: number | null) => (v === null ? 'none (no trials)' : v.toFixed(3));
  if (t.minPassRate !== undefined)
    for (const g of agents)
      checks.push({
        name: `pass rate of ${g.agent}`,
        threshold: `>= ${t.minPassRate}`,
        value: fmt(g.pass_rate),
        holds: g.pass_rate !== null && g.pass_rate >= t.minPassRate,
      });
  if (t.minWilsonLow !== undefined)
    for (const g of agents)
      checks.push({
        name: `95 % Wilson low bound of ${g.agent}`,
        threshold: `>= ${t.minWilsonLow}`,
        value: fmt(g.wilson_low),
        holds: g.wilson_low !== null && g.wilson_low >= t.minWilsonLow,
      });
  if (t.maxCost !== undefined)
    for (const g of agents) {
      const mean = g.usage?.cost_mean ?? null;
      checks.push({
        name: `mean cost per attempt of ${g.agent}`,
        threshold: `<= ${t.maxCost}`,
        value:
          mean === null
            ? 'none (no pricing or no scripted model)'
            : `${mean} ${g.usage?.currency ?? ''}`.trim(),
        holds: mean !== null && mean <= t.maxCost,
      });
    }
  if (t.maxUnsafeSuccesses !== undefined) {
    const n = agents.reduce((a, g) => a + g.unsafe_functional_successes, 0);
    checks.push({
      name: 'unsafe functional successes',
      threshold: `<= ${t.maxUnsafeSuccesses}`,
      value: String(n),
      holds: n <= t.maxUnsafeSuccesses,
    });
  }
  if (t.maxAlerts !== undefined) {
    const n = s.rows.reduce((a, r) => a + r.alerts.length, 0);
    checks.push({
      name: 'guard alerts',
      threshold: `<= ${t.maxAlerts}`,
      value: String(n),
      holds: n <= t.maxAlerts,
    });
  }
  if (!s.complete)
    checks.push({
      name: 'attempts finished',
      threshold: `= ${s.attempts_planned}`,
      value: String(s.rows.length),
      holds: false,
    });
  return checks;
}
