import type { Disagreement, VariantOutcome } from './judge.js';
import { type Dimension, FUZZED_CHECKS } from './types.js';

export type FuzzFinding = Disagreement & { variant: string; dimension: Dimension; template: string };

export type DimensionSummary = {
  variants: number;
  /** Variants of each template drawn. */
  templates: Record<string, number>;
  agreed: number;
  findings: number;
};

/** report.json of a fuzz run. Nothing in it depends on the clock, the host or the output folder. */
export type FuzzReport = {
  schema_version: 1;
  kind: 'fuzz';
  seed: string;
  count: number;
  dimensions: Dimension[];
  /** The checks whose results are compared with each variant's expectation. */
  judged_checks: readonly string[];
  /** What is synthetic in each variant's evidence (everything else is the materialised workspace's). */
  synthetic: string[];
  totals: {
    variants: number;
    agreed: number;
    findings: number;
    missed: number;
    false_alarms: number;
    verdicts: number;
  };
  per_dimension: Partial<Record<Dimension, DimensionSummary>>;
  findings: FuzzFinding[];
  variants: VariantOutcome[];
};

export const SYNTHETIC_EVIDENCE = [
  'agent: exited 0 (no agent runs)',
  'tests: passed (no test command runs)',
  'tracer: off; the command templates add exec events as a tracer would record them',
];

export function buildFuzzReport(
  seed: string,
  count: number,
  dimensions: readonly Dimension[],
  outcomes: readonly VariantOutcome[],
): FuzzReport {
  const findings: FuzzFinding[] = outcomes.flatMap((o) =>
    o.disagreements.map((d) => ({ variant: o.id, dimension: o.dimension, template: o.template, ...d })),
  );
  const perDimension: Partial<Record<Dimension, DimensionSummary>> = {};
  for (const d of dimensions) {
    const mine = outcomes.filter((o) => o.dimension === d);
    const templates: Record<string, number> = {};
    for (const o of mine) templates[o.template] = (templates[o.template] ?? 0) + 1;
    perDimension[d] = {
      variants: mine.length,
      templates,
      agreed: mine.filter((o) => o.disagreements.length === 0).length,
      findings: mine.reduce((n, o) => n + o.disagreements.length, 0),
    };
  }
  const kind = (k: Disagreement['kind']) => findings.filter((f) => f.kind === k).length;
  return {
    schema_version: 1,
    kind: 'fuzz',
    seed,
    count,
    dimensions: [...dimensions],
    judged_checks: FUZZED_CHECKS,
    synthetic: SYNTHETIC_EVIDENCE,
    totals: {
      variants: outcomes.length,
      agreed: outcomes.filter((o) => o.disagreements.length === 0).length,
      findings: findings.length,
      missed: kind('missed'),
      false_alarms: kind('false-alarm'),
      verdicts: kind('verdict'),
    },
    per_dimension: perDimension,
    findings,
    variants: [...outcomes],
  };
}

/** report.md: the totals, one row per dimension, then every finding. Pure. */
export function renderFuzzMarkdown(r: FuzzReport): string {
  const cell = (s: string) => JSON.stringify(s).slice(1, -1).replaceAll('|', '\\|');
  const out = [
    `# Fuzz report: seed ${r.seed}, ${r.count} variants`,
    '',
    `${r.totals.agreed} of ${r.totals.variants} variants agree with their generator's expectation; ` +
      `${r.totals.findings} finding(s): ${r.totals.missed} missed, ${r.totals.false_alarms} false alarm(s), ${r.totals.verdicts} verdict mismatch(es).`,
    '',
    `Judged checks: ${r.judged_checks.join(', ')}. Synthetic evidence: ${r.synthetic.join('; ')}.`,
    '',
    '| dimension | variants | templates | agreed | findings |',
    '| --- | ---: | --- | ---: | ---: |',
  ];
  for (const d of r.dimensions) {
    const s = r.per_dimension[d];
    if (!s) continue;
    const templates = Object.entries(s.templates)
      .map(([t, n]) => `${t} ×${n}`)
      .join(', ');
    out.push(`| ${d} | ${s.variants} | ${templates} | ${s.agreed} | ${s.findings} |`);
  }
  out.push('', '## Findings', '');
  if (r.findings.length === 0) out.push('None: every variant was judged as its generator expected.');
  else {
    out.push('| variant | kind | subject | detail |', '| --- | --- | --- | --- |');
    for (const f of r.findings) out.push(`| ${f.variant} | ${f.kind} | ${f.subject} | ${cell(f.detail)} |`);
  }
  out.push(
    '',
    '## Variants',
    '',
    '| variant | description | expected failing | observed failing | verdict |',
  );
  out.push('| --- | --- | --- | --- | --- |');
  for (const v of r.variants) {
    const list = (xs: readonly string[]) => (xs.length ? xs.join(', ') : '—');
    out.push(
      `| ${v.id} | ${cell(v.description)} | ${list(v.expected.failing)} | ${list(v.observed.failing)} | ${v.observed.verdict} (${v.observed.score}) |`,
    );
  }
  return `${out.join('\n')}\n`;
}
