import { createHash } from 'node:crypto';
import { esc } from '../reports/html/escape.js';
import { htmlPage } from '../reports/html/page.js';
import { VIEW_FOOTER } from './view-site.js';

/**
 * The live page's only script: it opens the run's event stream and appends each event as a row,
 * every value through textContent (never as markup). The page's CSP admits exactly this text.
 */
export const LIVE_SCRIPT = `(function () {
  'use strict';
  var main = document.querySelector('main');
  var status = document.getElementById('status');
  var events = document.getElementById('events-body');
  var alerts = document.getElementById('alerts-body');
  var notes = document.getElementById('notes');
  var MAX_ROWS = 2000;
  var REPORT = /^\\.\\.\\/runs\\/[a-z0-9][a-z0-9._-]*\\.html$/;
  function row(body, cells, cls) {
    var tr = document.createElement('tr');
    if (cls) tr.className = cls;
    cells.forEach(function (c) {
      var td = document.createElement('td');
      td.textContent = c === null || c === undefined || c === '' ? '\\u2013' : String(c);
      tr.appendChild(td);
    });
    body.appendChild(tr);
    while (body.childNodes.length > MAX_ROWS) body.removeChild(body.firstChild);
    return tr;
  }
  function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); }
  var source = new EventSource(main.getAttribute('data-events'));
  source.addEventListener('open', function () {
    clear(events); clear(alerts); clear(notes);
    status.textContent = 'watching the run; new events appear as they are recorded';
  });
  source.addEventListener('error', function () {
    if (source.readyState !== 2) status.textContent = 'connection lost; retrying';
  });
  source.addEventListener('timeline', function (e) {
    var m = JSON.parse(e.data);
    row(events, [m.ts, m.phase, m.event, m.detail]);
  });
  source.addEventListener('alert', function (e) {
    var m = JSON.parse(e.data);
    var tr = row(alerts, [m.severity, m.rule, m.message, m.syscall, m.where, m.process, m.detected_ms, m.latency_ms], 'alert-row sev-' + String(m.severity).replace(/[^a-z]/g, ''));
    tr.setAttribute('data-rule', m.rule);
  });
  source.addEventListener('note', function (e) {
    var li = document.createElement('li');
    li.textContent = JSON.parse(e.data).text;
    notes.appendChild(li);
  });
  source.addEventListener('done', function (e) {
    var m = JSON.parse(e.data);
    source.close();
    clear(status);
    status.appendChild(document.createTextNode('the run has finished. '));
    if (typeof m.report === 'string' && REPORT.test(m.report)) {
      var a = document.createElement('a');
      a.href = m.report;
      a.id = 'report-link';
      a.textContent = 'its report';
      status.appendChild(a);
    }
    main.setAttribute('data-done', 'true');
  });
})();`;

export function liveScriptSource(): string {
  return `'sha256-${createHash('sha256').update(LIVE_SCRIPT, 'utf8').digest('base64')}'`;
}

/**
 * The live page may talk to its own origin (the event stream) and run only LIVE_SCRIPT. (The
 * server adds frame-ancestors in the header; a <meta> policy may not carry it.)
 */
export function liveCsp(): string {
  return `default-src 'none'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; script-src ${liveScriptSource()}; form-action 'none'; base-uri 'none'`;
}

/**
 * `live/<run id>`: the run's timeline and live alerts as they are recorded. Pure; `runId` was
 * validated. Every address is relative: the viewer's pages live under `/<token>/`.
 */
export function renderLivePage(runId: string): string {
  const events = `${encodeURIComponent(runId)}/events`;
  const body = [
    `<nav><a href="../index.html">all runs</a></nav>`,
    `<h1>Live: run <span class="mono">${esc(runId)}</span></h1>`,
    '<p id="status" class="muted">connecting…</p>',
    '<noscript><p>This page needs its script to receive events.</p></noscript>',
    '<h2>Live alerts</h2>',
    '<p class="muted">Raised by the live guard (<code>agentguard run --guard audit</code>, the default, or <code>enforce</code>) as the agent acts; the final verdict comes from the report.</p>',
    '<table id="alerts"><thead><tr><th>severity</th><th>rule</th><th>message</th><th>call</th><th>path or host</th><th>process</th><th class="num">detected (ms)</th><th class="num">latency (ms)</th></tr></thead><tbody id="alerts-body"></tbody></table>',
    '<h2>Timeline</h2>',
    '<table id="events"><thead><tr><th class="num">ms</th><th>phase</th><th>event</th><th>detail</th></tr></thead><tbody id="events-body"></tbody></table>',
    '<ul id="notes" class="muted"></ul>',
  ].join('\n');
  const html = htmlPage(`live ${runId} — agentguard`, body, {
    csp: liveCsp(),
    footer: VIEW_FOOTER,
    scripts: [LIVE_SCRIPT],
  });
  // The stream's address rides on <main>, so the script is the same text (and hash) on every page.
  return html.replace('<main>', `<main data-events="${esc(events)}">`);
}
