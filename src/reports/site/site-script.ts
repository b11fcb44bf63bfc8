import { createHash } from 'node:crypto';

/**
 * The index page's only script: it reads the embedded JSON of the runs and builds the table from
 * it, filtering as the form changes. Every value goes in through textContent (never innerHTML),
 * so a task named `<script>` is shown as those characters; links are only the page paths the
 * site builder wrote. The page's CSP admits exactly this text by its hash.
 */
export const SITE_SCRIPT = `(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('runs-data').textContent);
  var runs = data.runs;
  var body = document.getElementById('runs-body');
  var count = document.getElementById('run-count');
  var form = document.getElementById('filters');
  var PAGE = /^(runs|batches)\\/[A-Za-z0-9._-]+\\.html$/;
  function field(id) { return document.getElementById(id); }
  function distinct(key) {
    var seen = {};
    var out = [];
    runs.forEach(function (r) {
      var v = r[key];
      if (v !== null && v !== undefined && !Object.prototype.hasOwnProperty.call(seen, v)) { seen[v] = true; out.push(v); }
    });
    return out.sort();
  }
  function fill(id, key) {
    var select = field(id);
    distinct(key).forEach(function (v) {
      var option = document.createElement('option');
      option.value = v;
      option.textContent = v;
      select.appendChild(option);
    });
  }
  function cell(row, value, cls) {
    var td = document.createElement('td');
    td.textContent = value === null || value === undefined || value === '' ? '\\u2013' : String(value);
    if (cls) td.className = cls;
    row.appendChild(td);
    return td;
  }
  function link(td, href, text, cls) {
    if (typeof href !== 'string' || !PAGE.test(href)) return;
    td.textContent = '';
    var a = document.createElement('a');
    a.href = href;
    a.textContent = text;
    a.className = cls;
    td.appendChild(a);
  }
  function matches(r) {
    var v;
    if ((v = field('f-agent').value) && r.agent !== v) return false;
    if ((v = field('f-task').value) && r.task !== v) return false;
    if ((v = field('f-benchmark').value) && r.benchmark !== v) return false;
    if ((v = field('f-result').value) && r.result !== v) return false;
    if ((v = field('f-batch').value) && r.batch !== v) return false;
    if ((v = field('f-check').value.trim()) && r.failed_checks.indexOf(v) < 0) return false;
    if ((v = field('f-rule').value.trim()) && (r.alert_rules || []).indexOf(v) < 0) return false;
    if ((v = field('f-since').value) && r.started_at < v) return false;
    if ((v = field('f-until').value) && r.started_at >= v) return false;
    return true;
  }
  function render() {
    while (body.firstChild) body.removeChild(body.firstChild);
    var shown = 0;
    runs.forEach(function (r) {
      if (!matches(r)) return;
      shown += 1;
      var tr = document.createElement('tr');
      tr.className = 'run ' + (r.result === 'PASS' ? 'passed' : 'failed');
      var id = cell(tr, r.run_id, 'mono');
      link(id, r.page, r.run_id, 'run-link');
      if (r.note) { var note = document.createElement('div'); note.className = 'muted'; note.textContent = r.note; id.appendChild(note); }
      cell(tr, r.task, 'task');
      cell(tr, r.agent);
      cell(tr, r.benchmark === null ? null : r.benchmark + (r.benchmark_version ? '@' + r.benchmark_version : ''));
      cell(tr, r.result, 'result ' + (r.result === 'PASS' ? 'sev-pass' : 'sev-error'));
      cell(tr, r.score, 'num');
      cell(tr, r.failed_checks.join(', '));
      cell(tr, r.alert_rules === null ? 'not known' : r.alert_rules.join(', '));
      cell(tr, r.started_at, 'mono');
      var batch = cell(tr, r.batch, 'mono');
      link(batch, r.batch_page, r.batch, 'batch-link');
      body.appendChild(tr);
    });
    count.textContent = shown + ' of ' + runs.length + ' runs';
  }
  fill('f-agent', 'agent');
  fill('f-task', 'task');
  fill('f-benchmark', 'benchmark');
  fill('f-batch', 'batch');
  form.addEventListener('input', render);
  form.addEventListener('change', render);
  form.addEventListener('submit', function (e) { e.preventDefault(); });
  form.addEventListener('reset', function () { setTimeout(render, 0); });
  render();
})();`;

/** The CSP source that admits SITE_SCRIPT and nothing else. */
export function siteScriptSource(): string {
  return `'sha256-${createHash('sha256').update(SITE_SCRIPT, 'utf8').digest('base64')}'`;
}
