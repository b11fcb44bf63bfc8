import path from 'node:path';
import type { StarGraph } from '../analysis/reliability/types.js';
import { renderRunHtml } from './html/run-page.js';
import { renderJson } from './json.js';
import { renderMarkdown } from './markdown.js';
import { renderSarif } from './sarif.js';
import type { RunReport } from './types.js';
import type { ReportView } from './view/types.js';

/** What every reporter renders from, built once per analysis. */
export type ReportInput = {
  report: RunReport;
  /** The format-neutral page content of `report` (see `reportView`). */
  view: ReportView;
  graph: StarGraph;
  /** agentguard's version, for formats that name their tool. */
  version: string;
};

export type Reporter = {
  /** The reader's handle on this output (`reportPath(dir, 'markdown')`). */
  readonly kind: string;
  /** File name in the run (or re-analysis) folder. */
  readonly file: string;
  readonly render: (input: ReportInput) => string;
};

/**
 * Every per-run output file and how it is rendered: the one place their names live. The analysis
 * writes each in this order; history, CI, provenance, compare and the tests find them through it.
 */
export const REPORTERS = [
  { kind: 'json', file: 'report.json', render: ({ report }) => renderJson(report) },
  { kind: 'markdown', file: 'report.md', render: ({ view }) => renderMarkdown(view) },
  { kind: 'sarif', file: 'report.sarif', render: ({ report, version }) => renderSarif(report, version) },
  { kind: 'html', file: 'report.html', render: ({ view, graph }) => renderRunHtml(view, graph) },
  { kind: 'graph', file: 'graph.json', render: ({ graph }) => `${JSON.stringify(graph)}\n` },
] as const satisfies readonly Reporter[];

export type ReportKind = (typeof REPORTERS)[number]['kind'];

/** The file names of every report, in writing order. */
export const REPORT_FILES: readonly string[] = REPORTERS.map((r) => r.file);

export function reportFile(kind: ReportKind): string {
  return REPORTERS.find((r) => r.kind === kind)?.file as string;
}

/** Where the report of `kind` lives in a run (or re-analysis) folder. Touches no disk. */
export function reportPath(dir: string, kind: ReportKind): string {
  return path.join(dir, reportFile(kind));
}
