import path from 'node:path';
import { REPORTERS } from '../reports/reporters.js';
import type { RunReport } from '../reports/types.js';

/** Rows of failed checks and alerts the summary lists before saying "and N more". */
const SUMMARY_ROWS = 20;

/**
 * The compact Markdown a GitHub job shows on its summary page: verdict, score, what was judged,
 * failed checks, alerts, and where the full reports are. Pure.
 */
export function githubSummary(report: RunReport, judged: string, reportMd: string, runUrl?: string): string {
  const failed = report.checks.filter((c) => !c.passed);
  const lines = [
    `### agentguard ci: ${report.result === 'PASS' ? '✅' : '❌'} ${report.result} (score ${report.score})`,
    '',
    `Judged: ${cell(judged)}`,
    '',
  ];
  if (failed.length > 0) {
    lines.push('| failed check | severity | why |', '| --- | --- | --- |');
    for (const c of failed.slice(0, SUMMARY_ROWS))
      lines.push(`| ${c.id} | ${c.severity} | ${cell(c.message)} |`);
    if (failed.length > SUMMARY_ROWS) lines.push(`| … | | ${failed.length - SUMMARY_ROWS} more |`);
    lines.push('');
  }
  if (report.alerts.length > 0) {
    lines.push('| alert | severity | phase | what |', '| --- | --- | --- | --- |');
    for (const a of report.alerts.slice(0, SUMMARY_ROWS))
      lines.push(`| ${a.rule} | ${a.severity} | ${a.phase ?? 'changes'} | ${cell(a.message)} |`);
    if (report.alerts.length > SUMMARY_ROWS)
      lines.push(`| … | | | ${report.alerts.length - SUMMARY_ROWS} more |`);
    lines.push('');
  }
  if (failed.length === 0 && report.alerts.length === 0) lines.push('No failed checks, no alerts.', '');
  const beside = REPORTERS.filter((r) => r.kind !== 'markdown' && r.kind !== 'graph').map((r) => r.file);
  lines.push(`Full report: \`${cell(reportMd)}\` (also ${beside.join(', ')} beside it).`);
  if (runUrl) lines.push(`Workflow run: [${cell(runUrl)}](${runUrl})`);
  lines.push('');
  return `${lines.join('\n')}\n`;
}

/**
 * GitHub workflow commands (`::error file=…,line=…::message`) for each finding that points at a file
 * of the checkout. Failed error/critical findings are errors, the rest warnings. Pure.
 */
export function githubAnnotations(report: RunReport): string[] {
  const out: string[] = [];
  const workspace = `${report.run_dir}/repo/`;
  for (const c of report.checks) {
    if (c.passed) continue;
    for (const e of c.evidence) {
      if (e.path === undefined || path.isAbsolute(e.path)) continue;
      out.push(command(c.severity, e.path, e.line, `${c.id}: ${c.message}`));
    }
  }
  for (const a of report.alerts) {
    if (a.path === undefined || !a.path.startsWith(workspace)) continue;
    out.push(command(a.severity, a.path.slice(workspace.length), undefined, `${a.rule}: ${a.message}`));
  }
  return out;
}

function command(severity: string, file: string, line: number | undefined, message: string): string {
  const level = severity === 'error' || severity === 'critical' ? 'error' : 'warning';
  const where = `file=${property(file)}${line !== undefined ? `,line=${line}` : ''}`;
  return `::${level} ${where},title=agentguard::${data(message)}`;
}

/** Escaping of a workflow command's message, as the Actions toolkit does it. */
function data(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** Escaping of a workflow command's property value. */
function property(s: string): string {
  return data(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** One table cell: no line breaks or pipes from file names or messages. */
function cell(s: string): string {
  return s
    .replace(/[\r\n]+/g, ' ')
    .replace(/\|/g, '\\|')
    .replace(/`/g, "'");
}
