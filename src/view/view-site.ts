import { closeSync, existsSync, lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { runPath } from '../evidence/layout.js';
import { openRegularFile } from '../evidence/read.js';
import { baseRedactor, type Redactor } from '../evidence/redact.js';
import { REPORT_BROWSE_MAX_BYTES } from '../evidence/report-file-limit.js';
import { openHistory } from '../history/db.js';
import type { BatchHistoryRow, History, HistoryRow } from '../history/types.js';
import { esc } from '../reports/html/escape.js';
import { reportPath } from '../reports/reporters.js';
import { renderSiteBatch } from '../reports/site/site-batch.js';
import { renderSiteIndex } from '../reports/site/site-index.js';
import { siteFileName } from '../reports/site/site-names.js';
import { agentguardVersion } from '../version.js';
import { isRunId } from './routes.js';
import { redactorOfRun, reportHtml, siteModel, withBackLink } from './site-model.js';

/** The index lists at most this many runs from history (newest first), and this many in progress. */
export const INDEX_MAX_RUNS = 500;
const MAX_IN_PROGRESS = 50;
export const VIEW_FOOTER = 'Served by agentguard view on this machine only.';
/** Enough for any batch agentguard runs; a lookup of a hashed name scans this many rows. */
const ALL = 1_000_000_000;

/** A page, or why there is none (the route was valid; the thing it names is not there). */
export type Page = { ok: true; html: string } | { ok: false; status: 404; text: string };

const notFound = (text: string): Page => ({ ok: false, status: 404, text });

/**
 * The viewer's pages, read afresh from the output folder on every request: history.db for the
 * index, run and batch pages (as `reports site` draws them), run folders for the runs in progress.
 * Nothing is cached, so a run that finishes shows up on the next reload.
 */
export class ViewSite {
  readonly runsDir: string;
  constructor(readonly outputDir: string) {
    this.runsDir = path.join(outputDir, 'runs');
  }

  index(now: Date): string {
    const rows = this.withHistory((db) => db.listRuns({ limit: INDEX_MAX_RUNS })) ?? [];
    const batchRows = this.withHistory((db) => batchesOf(db, rows)) ?? new Map();
    const model = siteModel(rows, batchRows, (row) => reportNote(row.run_dir));
    const known = new Set(rows.map((r) => r.run_id));
    const preface = inProgressSection(this.runsInProgress(known));
    return renderSiteIndex(
      model.runs,
      model.batches,
      {
        generated_at: now.toISOString(),
        filters: {},
        agentguard_version: agentguardVersion(),
      },
      { preface, footer: VIEW_FOOTER },
    );
  }

  runPage(file: string): Page {
    const row = this.withHistory((db) => findByFile(db.listRuns.bind(db), db.getRun.bind(db), file));
    if (!row) return notFound(`no run in history has the page ${file}`);
    const html = reportHtml(row.run_dir);
    if (!html.ok) return notFound(html.note);
    return { ok: true, html: withBackLink(redactorOfRun(row.run_dir).redactor.text(html.text)) };
  }

  batchPage(file: string): Page {
    const batch = this.withHistory((db) => {
      const id = file.slice(0, -'.html'.length);
      const direct = db.getBatch(id);
      if (direct && siteFileName(direct.batch_id) === file) return direct;
      return db.listBatches(ALL).find((b) => siteFileName(b.batch_id) === file) ?? null;
    });
    if (!batch) return notFound(`no batch in history has the page ${file}`);
    const rows = this.withHistory((db) => db.listRuns({ batch: batch.batch_id, limit: ALL })) ?? [];
    const model = siteModel(rows, new Map([[batch.batch_id, batch]]), (row) => reportNote(row.run_dir));
    const shown = model.batches[0];
    if (!shown) return notFound(`batch ${batch.batch_id} could not be read`);
    return { ok: true, html: renderSiteBatch(shown, model.runsOf(shown), model.gridOf(shown)) };
  }

  /** The folder of run `runId` under the output folder's runs/, never a symlink or anything outside. */
  runDir(runId: string): string | null {
    if (!isRunId(runId)) return null;
    const dir = path.join(this.runsDir, runId);
    try {
      if (!lstatSync(dir).isDirectory()) return null;
    } catch {
      return null;
    }
    return path.dirname(dir) === this.runsDir ? dir : null;
  }

  /**
   * The run's redactor now, and whether it is complete: its canary tokens exist only once its
   * observation window opened (canaries.json), its detectors once config.json was written.
   */
  redactorOf(runDir: string): { redactor: Redactor; complete: boolean } {
    if (!existsSync(runPath(runDir, 'config'))) return { redactor: baseRedactor, complete: false };
    return { redactor: redactorOfRun(runDir).redactor, complete: existsSync(runPath(runDir, 'canaries')) };
  }

  /** `../runs/<name>.html` (relative to the live page) once history holds the run, else null. */
  reportPageOf(runId: string): string | null {
    const row = this.withHistory((db) => db.getRun(runId));
    return row ? `../runs/${siteFileName(row.run_id)}` : null;
  }

  private historyFile(): string {
    return path.join(this.outputDir, 'history.db');
  }

  /** Null before the first run made history.db: the viewer may be opened first and a run started after. */
  private withHistory<T>(fn: (db: History) => T): T | null {
    if (!existsSync(this.historyFile())) return null;
    const db = openHistory(this.historyFile());
    try {
      return fn(db);
    } finally {
      db.close();
    }
  }

  /** Run folders with no report.json that history does not hold yet, newest first. */
  private runsInProgress(known: ReadonlySet<string>): InProgress[] {
    let names: string[];
    try {
      names = readdirSync(this.runsDir);
    } catch {
      return [];
    }
    const out: InProgress[] = [];
    for (const name of names.sort().reverse()) {
      if (out.length >= MAX_IN_PROGRESS) break;
      if (known.has(name)) continue;
      const dir = this.runDir(name);
      if (dir === null || existsSync(reportPath(dir, 'json'))) continue;
      let last: Date | null = null;
      try {
        last = lstatSync(runPath(dir, 'timeline')).mtime;
      } catch {
        // Not started its timeline yet.
      }
      out.push({ runId: name, lastActivity: last });
    }
    return out;
  }
}

type InProgress = { runId: string; lastActivity: Date | null };

function inProgressSection(runs: readonly InProgress[]): string {
  if (runs.length === 0) return '<p class="muted" id="in-progress-none">No run in progress.</p>';
  const rows = runs.map(
    (r) =>
      `<tr><td class="mono"><a class="live-link" href="live/${encodeURIComponent(r.runId)}">${esc(r.runId)}</a></td><td class="mono">${r.lastActivity === null ? '–' : esc(r.lastActivity.toISOString())}</td></tr>`,
  );
  return [
    '<h2>In progress</h2>',
    '<p class="muted">Run folders with no report yet (running, or stopped before writing one). Each links to its live page.</p>',
    `<table id="in-progress"><thead><tr><th>run</th><th>last timeline event (UTC)</th></tr></thead><tbody>${rows.join('')}</tbody></table>`,
  ].join('\n');
}

/** Why a run has no page (its report.html missing, a link, not a regular file or too big), or null; reads no content. */
function reportNote(runDir: string): string | null {
  const file = reportPath(runDir, 'html');
  const opened = openRegularFile(file, runDir);
  if (!opened.ok)
    return opened.error.code === 'not-a-file' ? `${opened.error.message}; not served` : opened.error.message;
  closeSync(opened.fd);
  if (opened.size > REPORT_BROWSE_MAX_BYTES)
    return `${file} is over the ${REPORT_BROWSE_MAX_BYTES / (1024 * 1024)} MiB the viewer serves`;
  return null;
}

function batchesOf(db: History, rows: readonly HistoryRow[]): Map<string, BatchHistoryRow | null> {
  const out = new Map<string, BatchHistoryRow | null>();
  for (const id of new Set(rows.flatMap((r) => (r.batch_id === null ? [] : [r.batch_id])))) {
    out.set(id, db.getBatch(id));
  }
  return out;
}

function findByFile(list: History['listRuns'], get: History['getRun'], file: string): HistoryRow | null {
  const direct = get(file.slice(0, -'.html'.length));
  if (direct && siteFileName(direct.run_id) === file) return direct;
  return list({ limit: ALL }).find((r) => siteFileName(r.run_id) === file) ?? null;
}
