import path from 'node:path';
import type { BatchSummary } from '../batch-types.js';
import { reportPath } from '../reporters.js';
import { batchGrid } from './batch-grid.js';
import { batchHeatMaps } from './batch-heatmaps.js';
import { esc } from './escape.js';
import { htmlPage, htmlTable } from './page.js';

/**
 * summary.html: the agents × tasks grid (pass rate, Wilson interval, colour), the groups'
 * similarity, and every attempt linked to its run's report. `batchDir` makes the links relative,
 * so the folder can be moved with its runs. Pure.
 */
export function renderBatchHtml(s: BatchSummary, batchDir: string): string {
  const grid = batchGrid(s.groups);
  const similar = s.groups
    .filter((g) => g.similarity)
    .map((g) => [
      esc(g.agent),
      esc(g.task ?? ''),
      String(g.similarity?.runs ?? 0),
      g.similarity ? g.similarity.mean_similarity.toFixed(2) : '–',
      esc(g.similarity?.outlier_run_id ?? '–'),
      esc(g.similarity?.note ?? ''),
    ]);
  const rows = s.rows.map((r) => [
    String(r.index),
    esc(r.agent),
    esc(r.task),
    String(r.trial),
    `<span class="badge ${r.result === 'PASS' ? 'pass' : 'fail'}">${esc(r.result)}</span>`,
    r.score === null ? '–' : String(r.score),
    esc(r.failed_checks.join(', ') || '–'),
    esc(r.alerts.join(', ') || '–'),
    r.run_dir
      ? `<a class="run-link" href="${esc(path.relative(batchDir, reportPath(r.run_dir, 'html')))}">${esc(r.run_id ?? '')}</a>`
      : esc(r.reason ?? '–'),
  ]);
  const t = s.totals;
  const body = [
    `<h1>agentguard ${esc(s.kind)} ${esc(s.batch_id)}</h1>`,
    `<p>${s.rows.length} of ${s.attempts_planned} attempts finished: ${t.pass} PASS, ${t.fail} FAIL, ${t.error} ERROR${t.not_run ? `, ${t.not_run} not run` : ''}. ERROR attempts are not trials.</p>`,
    '<h2>Agents × tasks</h2>',
    grid,
    similar.length
      ? `<h2>Similarity of each cell's runs</h2>${htmlTable(['agent', 'task', 'runs', 'mean similarity', 'outlier', 'note'], similar)}`
      : '',
    batchHeatMaps(s),
    '<h2>Attempts</h2>',
    htmlTable(['#', 'agent', 'task', 'trial', 'result', 'score', 'failed checks', 'alerts', 'run'], rows),
  ].join('\n');
  return htmlPage(`agentguard ${s.kind} ${s.batch_id}`, body);
}
