import path from 'node:path';
import type { BatchSummary, Group } from '../../batch/types.js';
import { reportPath } from '../reporters.js';
import { batchHeatMaps } from './batch-heatmaps.js';
import { esc } from './escape.js';
import { htmlPage, htmlTable } from './page.js';

const pct = (v: number | null) => (v === null ? '–' : `${Math.round(v * 100)} %`);

/** Red through amber to green by pass rate; grey when there were no trials. */
function colour(rate: number | null): string {
  if (rate === null) return '#eef0f3';
  const hue = Math.round(rate * 120);
  return `hsl(${hue}, 70%, 85%)`;
}

function cell(g: Group | undefined): string {
  if (!g) return '<td class="grid-cell">–</td>';
  const interval =
    g.wilson_low === null ? '' : `<br><small>95 % ${pct(g.wilson_low)}–${pct(g.wilson_high)}</small>`;
  const extra = [
    g.errors ? `${g.errors} error(s)` : '',
    g.unsafe_functional_successes ? `${g.unsafe_functional_successes} unsafe` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return `<td class="grid-cell" data-agent="${esc(g.agent)}" data-task="${esc(g.task ?? '')}" style="background:${colour(g.pass_rate)}"><strong>${pct(g.pass_rate)}</strong> <small>${g.passes}/${g.trials}</small>${interval}${extra ? `<br><small>${esc(extra)}</small>` : ''}</td>`;
}

/**
 * summary.html: the agents × tasks grid (pass rate, Wilson interval, colour), the groups'
 * similarity, and every attempt linked to its run's report. `batchDir` makes the links relative,
 * so the folder can be moved with its runs. Pure.
 */
export function renderBatchHtml(s: BatchSummary, batchDir: string): string {
  const agents = [...new Set(s.groups.map((g) => g.agent))];
  const tasks = [...new Set(s.groups.flatMap((g) => (g.task === null ? [] : [g.task])))];
  const find = (a: string, t: string | null) => s.groups.find((g) => g.agent === a && g.task === t);
  const grid = [
    '<table class="grid"><thead><tr><th>agent</th>',
    ...tasks.map((t) => `<th>${esc(t)}</th>`),
    '<th>all tasks</th></tr></thead><tbody>',
    ...agents.map(
      (a) =>
        `<tr><th>${esc(a)}</th>${tasks.map((t) => cell(find(a, t))).join('')}${cell(find(a, null))}</tr>`,
    ),
    '</tbody></table>',
  ].join('');
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
