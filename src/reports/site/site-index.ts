import { esc } from '../html/escape.js';
import { embeddedJson, sitePage } from './site-page.js';
import { SITE_SCRIPT, siteScriptSource } from './site-script.js';
import type { SiteBatch, SiteMeta, SiteRun } from './site-types.js';

const select = (id: string, label: string, fixed: readonly string[] = []) =>
  `<label for="${id}">${label}<select id="${id}"><option value="">any</option>${fixed
    .map((v) => `<option value="${esc(v)}">${esc(v)}</option>`)
    .join('')}</select></label>`;

const input = (id: string, label: string, type: 'text' | 'date', placeholder = '') =>
  `<label for="${id}">${label}<input id="${id}" type="${type}"${placeholder ? ` placeholder="${esc(placeholder)}"` : ''}></label>`;

/**
 * index.html: the runs as embedded JSON, filtered and drawn by SITE_SCRIPT in the browser, and
 * the batches as a plain list. Pure; every value given is untrusted and was already redacted.
 */
export function renderSiteIndex(
  runs: readonly SiteRun[],
  batches: readonly SiteBatch[],
  meta: SiteMeta,
  /** `view`'s additions: markup (already escaped) before the filters, and its own footer. */
  served: { preface: string; footer: string } | null = null,
): string {
  const preface = served?.preface ?? '';
  const filters = Object.entries(meta.filters);
  const body = [
    '<h1>agentguard runs</h1>',
    `<p class="muted">${runs.length} runs from history, written ${esc(meta.generated_at)} by agentguard ${esc(meta.agentguard_version)}${
      filters.length > 0
        ? `; selected with ${filters.map(([k, v]) => `<span class="mono">--${esc(k)} ${esc(v)}</span>`).join(' ')}`
        : ''
    }.</p>`,
    ...(preface === '' ? [] : [preface]),
    '<form id="filters">',
    select('f-agent', 'agent'),
    select('f-task', 'task'),
    select('f-benchmark', 'benchmark'),
    select('f-result', 'result', ['PASS', 'FAIL', 'ERROR']),
    input('f-check', 'failed check', 'text', 'scope'),
    input('f-rule', 'alert rule', 'text', 'secrets-canary-read'),
    input('f-since', 'since (UTC)', 'date'),
    input('f-until', 'until (UTC, exclusive)', 'date'),
    select('f-batch', 'batch'),
    '<button type="reset">clear</button>',
    '</form>',
    '<p id="run-count" class="muted"></p>',
    "<noscript><p>The run table is drawn by the page's script; with scripts off, the run pages are in runs/.</p></noscript>",
    '<table id="runs"><thead><tr><th>run</th><th>task</th><th>agent</th><th>benchmark</th><th>result</th><th>score</th><th>failed checks</th><th>alert rules</th><th>started (UTC)</th><th>batch</th></tr></thead><tbody id="runs-body"></tbody></table>',
    batches.length === 0 ? '' : batchList(batches),
    `<script type="application/json" id="runs-data">${embeddedJson({ runs })}</script>`,
  ].join('\n');
  return sitePage(
    'agentguard runs',
    body,
    [{ source: siteScriptSource(), text: SITE_SCRIPT }],
    served?.footer,
  );
}

function batchList(batches: readonly SiteBatch[]): string {
  const rows = batches.map(
    (b) =>
      `<tr><td class="mono"><a class="batch-link" href="${esc(b.page)}">${esc(b.batch_id)}</a></td><td>${esc(b.kind)}</td><td class="mono">${esc(b.started_at)}</td><td class="num">${b.pass}</td><td class="num">${b.fail}</td><td class="num">${b.error}</td><td class="num">${b.not_run}</td><td>${b.complete ? 'complete' : 'incomplete'}</td></tr>`,
  );
  return [
    '<h2>Batches</h2>',
    '<table id="batches"><thead><tr><th>batch</th><th>kind</th><th>started (UTC)</th><th>pass</th><th>fail</th><th>error</th><th>not run</th><th></th></tr></thead>',
    `<tbody>${rows.join('')}</tbody></table>`,
  ].join('\n');
}
