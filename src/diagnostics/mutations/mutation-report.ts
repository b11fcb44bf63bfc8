import { code, formatDuration, md, table } from '../../reports/markdown-text.js';
import type { EntryOutcome, ItemTally, MutationSummary } from './judge.js';

/** Everything `diagnostics mutations` found, as written to report.json. */
export type MutationReport = {
  kind: 'mutation-diagnostics';
  id: string;
  started_at: string;
  duration_ms: number;
  /** How the runs were observed (the first run's tracer and sandbox; every run uses the same plan). */
  tracer: string | null;
  sandbox: string | null;
  selected: string[];
  summary: MutationSummary;
  entries: EntryOutcome[];
  /** Sentences for people: misses, false alarms, errored entries and uncovered checks and rules. */
  findings: string[];
  /** Stopped by a signal before every selected entry ran. */
  interrupted: boolean;
};

/** The findings a report states, from its outcomes and summary. Pure. */
export function mutationFindings(
  entries: readonly EntryOutcome[],
  summary: MutationSummary,
  whole: boolean,
): string[] {
  const out: string[] = [];
  for (const e of entries) {
    if (e.status === 'missed') out.push(`${e.id}: missed (${e.missing.join(', ')} did not fire)`);
    if (e.false_alarms.length > 0) out.push(`${e.id}: false alarm (${e.false_alarms.join(', ')})`);
    if (e.status === 'errored') out.push(`${e.id}: could not be carried out: ${e.error ?? 'unknown error'}`);
  }
  // Coverage is a property of the whole catalog; a selection says nothing about the rest.
  if (whole) {
    if (summary.uncovered.checks.length > 0)
      out.push(`no entry detects check(s): ${summary.uncovered.checks.join(', ')}`);
    if (summary.uncovered.rules.length > 0)
      out.push(`no entry detects default rule(s): ${summary.uncovered.rules.join(', ')}`);
  }
  return out;
}

const STATUS_MARK: Record<EntryOutcome['status'], string> = {
  detected: 'detected',
  quiet: 'quiet (safe)',
  missed: '**missed**',
  'false-alarm': '**false alarm**',
  errored: '**errored**',
};

/** The report as Markdown. Pure. */
export function renderMutationMarkdown(report: MutationReport): string {
  const s = report.summary;
  const coveredChecks = s.checks.length - s.uncovered.checks.length;
  const coveredRules = s.rules.length - s.uncovered.rules.length;
  const lines = [
    `# Policy mutation diagnostics ${code(report.id)}`,
    '',
    `${s.entries} entries in ${formatDuration(report.duration_ms)} (tracer ${report.tracer ?? 'n/a'}, sandbox ${report.sandbox ?? 'n/a'}): ` +
      `${s.detected} detected, ${s.quiet} safe and quiet, ${s.missed} missed, ${s.false_alarms} with a false alarm, ${s.errored} errored. ` +
      `Checks detected by at least one entry: ${coveredChecks}/${s.checks.length}; default rules: ${coveredRules}/${s.rules.length}.`,
    '',
    'Each entry copies a shipped benchmark, plants a change without any agent, and goes through the real',
    'pipeline (sandboxed, traced tests; diff; checks; security rules; score). This measures whether each',
    'check and rule reacts to controlled changes and stays quiet on safe ones; it does not estimate how',
    'often such behaviour occurs in real agent runs.',
    '',
    '## Findings',
    '',
    ...(report.findings.length > 0 ? report.findings.map((f) => `- ${md(f, 2000)}`) : ['None.']),
    '',
    '## Entries',
    '',
    ...table(
      ['entry', 'category', 'fixture', 'result', 'verdict', 'fired', 'incidental'],
      report.entries.map((e) => [
        code(e.id),
        e.category,
        e.fixture,
        STATUS_MARK[e.status],
        e.fired ? `${e.fired.verdict} ${e.fired.score}` : '-',
        e.fired ? md([...e.fired.checks, ...e.fired.rules].join(', ') || 'nothing') : md(e.error ?? ''),
        md(e.incidental.join(', ')),
      ]),
    ),
    '',
    '## Checks',
    '',
    ...tallyTable(s.checks),
    '',
    '## Default security rules',
    '',
    ...tallyTable(s.rules),
    '',
  ];
  return lines.join('\n');
}

function tallyTable(items: readonly ItemTally[]): string[] {
  return table(
    ['id', 'detections', 'misses', 'false alarms', 'incidental', 'detected by'],
    items.map((t) => [
      code(t.id),
      String(t.detections.length),
      String(t.misses.length),
      String(t.false_alarms.length),
      String(t.incidental.length),
      t.detections.length > 0 ? md(t.detections.join(', ')) : '**none**',
    ]),
  );
}
