import type { Mismatch, ReferenceOutcome, RunAudit, StaticAudit, StaticFinding } from './audit-types.js';
import { code, md, table } from './markdown-text.js';

/*
 * audit.md of a static or execution audit (docs/registry.md, "Audits"). Pure: the audit's JSON in,
 * text out. Contract success says the fixture still behaves as designed, nothing about any agent.
 */

function findingRows(findings: readonly StaticFinding[]): string[] {
  if (findings.length === 0) return ['No findings.'];
  return table(
    ['severity', 'family', 'finding', 'where', 'message'],
    findings.map((f) => [
      f.severity,
      md(f.family ?? '-'),
      code(f.code),
      md(f.field ? `${f.file}: ${f.field}` : f.file),
      md(f.message, 600),
    ]),
  );
}

/** audit.md of `audit static`. */
export function renderStaticAuditMarkdown(a: StaticAudit): string {
  const t = a.totals;
  return [
    `# agentguard static audit ${a.audit_id}`,
    '',
    `Registry ${md(a.registry)}: ${a.families.length} families, ${t.error} errors, ${t.warning} warnings. Nothing was run.`,
    '',
    '## Families',
    '',
    ...table(
      ['family', 'contract', 'variants'],
      a.families.map((f) => [
        md(f.id),
        md(f.contract === null ? '(none)' : f.implied_by ? `implied by ${f.implied_by}` : f.contract),
        md(f.variants.join(', ')),
      ]),
    ),
    '',
    '## Findings',
    '',
    ...findingRows(a.findings),
    '',
  ].join('\n');
}

const mismatchText = (m: Mismatch) =>
  `${m.severity === 'error' ? 'ERROR' : 'warning'} ${m.code}: ${m.message}`;

function outcomeRow(o: ReferenceOutcome): string[] {
  const trials = o.trials.map((t) => (t.observed.status === 'ran' ? t.observed.result : 'ERROR')).join(', ');
  const warnings = [...o.trials.flatMap((t) => t.mismatches), ...o.across_trials].filter(
    (m) => m.severity === 'warning',
  ).length;
  return [
    md(o.family),
    md(o.agent),
    md(o.variant),
    o.status === 'skipped'
      ? md(o.skipped?.startsWith('skipped') ? o.skipped : `skipped: ${o.skipped ?? ''}`)
      : o.status,
    trials || '-',
    String(warnings),
  ];
}

/** audit.md of `audit run`: one row per reference and variant, then every mismatch with its run. */
export function renderRunAuditMarkdown(a: RunAudit): string {
  const t = a.totals;
  const details = a.outcomes.flatMap((o) => {
    const lines = [
      ...o.trials.flatMap((tr) =>
        tr.mismatches.map(
          (m) =>
            `- trial ${tr.observed.trial}${tr.observed.run_dir ? ` (${md(tr.observed.run_dir)})` : ''}: ${md(mismatchText(m), 600)}`,
        ),
      ),
      ...o.across_trials.map((m) => `- ${md(mismatchText(m), 1200)}`),
    ];
    return lines.length === 0
      ? []
      : [`### ${md(o.family)} · ${md(o.agent)} · ${md(o.variant)}: ${o.status}`, '', ...lines, ''];
  });
  return [
    `# agentguard audit run ${a.audit_id}`,
    '',
    `Registry ${md(a.registry)}, ${a.options.trials} trial(s) per reference${a.options.strict ? ', strict' : ''}: ` +
      `${t.match} match, ${t.violated} violated, ${t.skipped} skipped (${t.errors} errors, ${t.warnings} warnings).`,
    a.batch
      ? `Child runs: batch ${code(a.batch.id)} (${md(a.batch.dir)}), each with its own report, manifest and history row.`
      : 'Nothing ran.',
    'A match says the fixture still behaves as its contract says; it says nothing about whether an agent is safe or capable.',
    '',
    '## References',
    '',
    ...table(['family', 'agent', 'variant', 'outcome', 'trials', 'warnings'], a.outcomes.map(outcomeRow)),
    '',
    ...(a.findings.length > 0 ? ['## Findings', '', ...findingRows(a.findings), ''] : []),
    ...(details.length > 0 ? ['## Mismatches', '', ...details] : []),
  ].join('\n');
}
