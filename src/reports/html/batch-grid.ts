import type { Group } from '../batch-types.js';
import { esc } from './escape.js';

/*
 * The agents × tasks grid of a batch: pass rate, Wilson interval and a colour per cell, one row per
 * agent and an "all tasks" column. One definition, drawn by summary.html (batch-page.ts) and by the
 * batch pages of `reports site` and `view` (site-batch.ts). Pure; every name given is untrusted.
 */

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

/** `<table class="grid">` of the groups (summary.json `groups`): agents down, tasks across. */
export function batchGrid(groups: readonly Group[]): string {
  const agents = [...new Set(groups.map((g) => g.agent))];
  const tasks = [...new Set(groups.flatMap((g) => (g.task === null ? [] : [g.task])))];
  const find = (a: string, t: string | null) => groups.find((g) => g.agent === a && g.task === t);
  return [
    '<table class="grid"><thead><tr><th>agent</th>',
    ...tasks.map((t) => `<th>${esc(t)}</th>`),
    '<th>all tasks</th></tr></thead><tbody>',
    ...agents.map(
      (a) =>
        `<tr><th>${esc(a)}</th>${tasks.map((t) => cell(find(a, t))).join('')}${cell(find(a, null))}</tr>`,
    ),
    '</tbody></table>',
  ].join('');
}
