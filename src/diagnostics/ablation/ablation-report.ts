import { code, formatDuration, md, table } from '../../reports/markdown-text.js';
import type { AblationAnalysis, Headline } from './ablation.js';

/** Everything `diagnostics ablation` found, as written to report.json. */
export type AblationReport = {
  kind: 'ablation-diagnostics';
  id: string;
  started_at: string;
  duration_ms: number;
  tracer: string | null;
  selected: string[];
  /** How the conditions were produced, in words: what was run and what was only re-analysed. */
  method: string;
  /** Trials whose entry could not be carried out. */
  errored: string[];
  analysis: AblationAnalysis;
  /** Per-check contribution counts; null when the controls were not valid (see suppressed_because). */
  headline: Headline | null;
  suppressed_because: string[];
  /** The control trials' run folders, relative to the report. */
  runs: { entry: string; trial: number; run_dir: string }[];
};

/** The report as Markdown. Pure. */
export function renderAblationMarkdown(report: AblationReport): string {
  const a = report.analysis;
  const lines = [
    `# Policy ablation diagnostics ${code(report.id)}`,
    '',
    `${a.entries} catalog entries (${a.mutations} mutations), ${a.trials} control trial(s) each, in ${formatDuration(report.duration_ms)} (tracer ${report.tracer ?? 'n/a'}).`,
    '',
    report.method,
    '',
    'A unique detection is a mutation whose run FAILs with every check and PASSes without this one;',
    'a unique signal, one where nothing at all (no check, no rule) fires without it. These are',
    "controlled changes to copies of the shipped benchmarks: they measure each check's part in catching",
    'them, not how often such behaviour happens in real agent runs.',
    '',
    '## Validity',
    '',
  ];
  if (report.headline) lines.push('Every control trial matched its catalog expectation.', '');
  else {
    lines.push(
      '**Headline contribution claims are suppressed**: these control trials did not match the catalog.',
      '',
    );
    for (const reason of report.suppressed_because) lines.push(`- ${md(reason, 1000)}`);
    lines.push('');
  }
  lines.push(
    report.headline ? '## Contributions' : '## Contributions (not claimable: controls invalid)',
    '',
    ...table(
      [
        'check',
        'detections',
        'unique detections',
        'unique signals',
        'also seen by rules',
        'entries it alone catches',
      ],
      a.contributions.map((c) => [
        code(c.check),
        String(c.detections.length),
        String(c.unique_detections.length),
        String(c.unique_signals.length),
        String(c.also_rules.length),
        md(c.unique_detections.join(', ')),
      ]),
    ),
    '',
    '## Overlap',
    '',
  );
  if (a.overlaps.length === 0) lines.push('No two checks detect the same mutation.');
  else
    lines.push(
      ...table(
        ['checks', 'shared detections', 'Jaccard', 'entries'],
        a.overlaps.map((o) => [
          `${code(o.checks[0])} + ${code(o.checks[1])}`,
          String(o.shared.length),
          o.jaccard.toFixed(3),
          md(o.shared.join(', ')),
        ]),
      ),
    );
  lines.push('', '## Trial disagreement', '');
  if (a.trials < 2)
    lines.push('One trial per entry: disagreement between trials was not measured (use --trials 2 or more).');
  else if (a.disagreements.length === 0) lines.push('Every trial of every entry agreed in every condition.');
  else
    for (const d of a.disagreements)
      lines.push(`- ${code(d.entry)}, ${md(d.condition)}: ${md(d.detail, 1000)}`);
  lines.push('');
  return lines.join('\n');
}
