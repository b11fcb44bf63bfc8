import { batchGrid } from '../html/batch-grid.js';
import { esc } from '../html/escape.js';
import { sitePage } from './site-page.js';
import type { SiteBatch, SiteGrid, SiteRun } from './site-types.js';

/**
 * batches/<id>.html: the batch's counts, its agents × tasks grid (the one summary.html draws), and
 * its runs in the site, each linked to its page. Pure.
 */
export function renderSiteBatch(batch: SiteBatch, runs: readonly SiteRun[], grid: SiteGrid): string {
  const rows = runs.map((r) => {
    const id =
      r.page === null
        ? `${esc(r.run_id)}${r.note ? `<div class="muted">${esc(r.note)}</div>` : ''}`
        : `<a class="run-link" href="../${esc(r.page)}">${esc(r.run_id)}</a>`;
    const verdict = r.result === 'PASS' ? 'sev-pass' : 'sev-error';
    return `<tr class="${r.result === 'PASS' ? 'passed' : 'failed'}"><td class="mono">${id}</td><td>${esc(r.task)}</td><td>${esc(r.agent)}</td><td class="${verdict}">${esc(r.result)}</td><td class="num">${r.score}</td><td>${esc(r.failed_checks.join(', '))}</td><td>${esc(r.alert_rules === null ? 'not known' : r.alert_rules.join(', '))}</td></tr>`;
  });
  const body = [
    '<nav><a href="../index.html">all runs</a></nav>',
    `<h1>${esc(batch.kind)} batch <span class="mono">${esc(batch.batch_id)}</span></h1>`,
    '<ul class="facts">',
    `<li>started ${esc(batch.started_at)}, ${batch.finished_at === null ? 'not finished' : `finished ${esc(batch.finished_at)}`}${batch.complete ? '' : ' (incomplete)'}</li>`,
    `<li>${batch.attempts_planned} attempts planned: ${batch.pass} pass, ${batch.fail} fail, ${batch.error} error, ${batch.not_run} not run</li>`,
    '</ul>',
    '<h2>Agents × tasks</h2>',
    'groups' in grid
      ? batchGrid(grid.groups)
      : `<p class="muted" id="no-grid">No grid: ${esc(grid.note)}</p>`,
    '<h2>Runs</h2>',
    `<table><thead><tr><th>run</th><th>task</th><th>agent</th><th>result</th><th>score</th><th>failed checks</th><th>alert rules</th></tr></thead><tbody>${rows.join('')}</tbody></table>`,
  ].join('\n');
  return sitePage(`agentguard ${batch.kind} batch ${batch.batch_id}`, body);
}
