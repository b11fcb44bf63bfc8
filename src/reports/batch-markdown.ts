import type { BatchSummary, Group } from './batch-types.js';
import { md } from './markdown-text.js';
import { formatCost } from './view/headline.js';

const pct = (v: number | null) => (v === null ? '-' : `${(v * 100).toFixed(0)} %`);
const num = (v: number | null, digits = 1) => (v === null ? '-' : v.toFixed(digits));

/** Tokens in/out, and the cost where the configs give prices. */
function usageCell(g: Group): string {
  const u = g.usage;
  if (u === null) return '-';
  const tokens = `${u.input_tokens.toLocaleString('en-US')} / ${u.output_tokens.toLocaleString('en-US')}`;
  return u.cost_total === null ? tokens : `${tokens} (${formatCost(u.cost_total, u.currency ?? '')})`;
}

function groupLine(g: Group): string {
  const k = String(g.trials);
  const alerts = Object.entries(g.alerts_by_rule)
    .map(([r, n]) => `${r}×${n}`)
    .join(', ');
  return `| ${[
    g.agent,
    g.task ?? '(all tasks)',
    `${g.passes}/${g.trials}`,
    pct(g.pass_rate),
    g.wilson_low === null ? '-' : `${pct(g.wilson_low)}–${pct(g.wilson_high)}`,
    g.trials > 0 ? `${num(g.pass_at_k[k] ?? null, 2)} / ${num(g.pass_pow_k[k] ?? null, 2)}` : '-',
    g.score_mean === null ? '-' : `${num(g.score_mean)} ± ${num(g.score_stddev)}`,
    String(g.unsafe_functional_successes),
    String(g.errors),
    alerts || '-',
    usageCell(g),
  ]
    .map((c) => md(c))
    .join(' | ')} |`;
}

/** summary.md: totals, the groups, then every attempt. Pure. */
export function renderBatchMarkdown(s: BatchSummary): string {
  const t = s.totals;
  const lines = [
    `# agentguard ${s.kind} ${s.batch_id}`,
    '',
    `${s.rows.length} of ${s.attempts_planned} attempts finished: ${t.pass} PASS, ${t.fail} FAIL, ${t.error} ERROR` +
      (t.not_run > 0 ? `, ${t.not_run} not run (resume with \`agentguard resume\`)` : '') +
      '.',
    'ERROR attempts (setup failed, interrupted) are not trials: pass rates are over PASS and FAIL only.',
    '',
    '## Groups',
    '',
    '| agent | task | passes | pass rate | 95 % Wilson | pass@n / pass^n | score | unsafe successes | errors | alerts | tokens in / out (cost) |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...s.groups.map(groupLine),
    '',
    '## Attempts',
    '',
    '| # | agent | task | trial | result | score | tests | failed checks | alerts | run |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...s.rows.map(
      (r) =>
        `| ${[
          String(r.index),
          r.agent,
          r.task,
          String(r.trial),
          r.result,
          r.score === null ? '-' : String(r.score),
          r.tests_passed === null ? '-' : r.tests_passed ? 'passed' : 'failed',
          r.failed_checks.join(', ') || '-',
          r.alerts.join(', ') || '-',
          r.run_id ?? r.reason ?? '-',
        ]
          .map((c) => md(c))
          .join(' | ')} |`,
    ),
    '',
  ];
  return lines.join('\n');
}
