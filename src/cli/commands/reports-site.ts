import { existsSync, lstatSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { runRedactor } from '../../analysis/secrets/run-redactor.js';
import type { ResolvedConfig } from '../../config/schema.js';
import { errorMessage, InputError, SetupError } from '../../errors.js';
import type { CanaryEvidence } from '../../evidence/bundle-types.js';
import { runPath } from '../../evidence/layout.js';
import { readJson, readTextFile } from '../../evidence/read.js';
import {
  baseRedactor,
  CANARY_PREFIX,
  createRedactor,
  type KnownSecret,
  type Redactor,
} from '../../evidence/redact.js';
import { writeFileAtomic } from '../../evidence/write.js';
import type { HistoryRow } from '../../history/types.js';
import { reportPath } from '../../reports/reporters.js';
import { renderSiteBatch } from '../../reports/site/site-batch.js';
import { renderSiteIndex } from '../../reports/site/site-index.js';
import { siteFileName } from '../../reports/site/site-names.js';
import type { SiteBatch, SiteRun } from '../../reports/site/site-types.js';
import { agentguardVersion } from '../../version.js';
import type { CliIO } from '../io.js';
import { REPORT_BROWSE_MAX_BYTES } from './report-file-limit.js';
import { EXPORT_ALL, history, type ReportsOptions } from './reports.js';
import { historyFilter } from './reports-filter.js';

/** Marks a folder as a site this command wrote, so writing it again may replace its pages. */
const SITE_MARKER = '.agentguard-site';
const FILTER_FLAGS = [
  'agent',
  'task',
  'benchmark',
  'result',
  'check',
  'rule',
  'since',
  'until',
  'batch',
  'limit',
] as const;

/**
 * `reports site OUT_DIR`: a static site of the runs history selects — index.html (filters in the
 * browser over embedded JSON), each run's report.html as runs/<id>.html, a page per batch. Every
 * page is redacted with its run's canary tokens and detectors on top of the credential shapes, and
 * loads nothing from anywhere (CSP), so the folder can be opened from disk or handed on.
 */
export async function reportsSite(
  io: CliIO,
  outDir: string | undefined,
  opts: ReportsOptions,
): Promise<number> {
  if (!outDir) {
    throw new InputError("'reports site' needs a folder to write. Fix: agentguard reports site OUT_DIR.");
  }
  const filter = historyFilter(opts, EXPORT_ALL);
  const out = path.resolve(outDir);
  const db = history(opts);
  let rows: HistoryRow[];
  const batchRows = new Map<string, ReturnType<typeof db.getBatch>>();
  try {
    rows = db.listRuns(filter);
    for (const id of new Set(rows.flatMap((r) => (r.batch_id === null ? [] : [r.batch_id])))) {
      batchRows.set(id, db.getBatch(id));
    }
  } finally {
    db.close();
  }
  // Only once history could be read: a failed command leaves no empty folder behind.
  prepareOutDir(out);

  const redactors = new Map(rows.map((r) => [r.run_id, redactorOfRun(r.run_dir)]));
  // The index holds every run at once: it is cleaned of every run's canary tokens, not just its own.
  const everyCanary = createRedactor({ secrets: [...redactors.values()].flatMap((r) => r.canaries) });
  const batches: SiteBatch[] = [];
  for (const [id, b] of batchRows) {
    if (b === null || b === undefined) continue;
    batches.push({
      ...everyCanary.value({
        batch_id: b.batch_id,
        kind: b.kind,
        started_at: b.started_at,
        finished_at: b.finished_at,
        complete: b.complete,
        attempts_planned: b.attempts_planned,
        pass: b.pass,
        fail: b.fail,
        error: b.error,
        not_run: b.not_run,
      }),
      page: `batches/${siteFileName(id)}`,
    });
  }
  const batchPage = new Map(batches.map((b) => [b.batch_id, b.page]));

  mkdirSync(path.join(out, 'runs'), { recursive: true });
  const runs: SiteRun[] = [];
  const left: string[] = [];
  for (const row of rows) {
    const own = redactors.get(row.run_id) ?? { redactor: baseRedactor, canaries: [] };
    const page = `runs/${siteFileName(row.run_id)}`;
    const html = reportHtml(row);
    if (html.ok)
      writeFileAtomic(path.join(out, page), withBackLink(own.redactor.text(everyCanary.text(html.text))));
    else left.push(`${row.run_id}: ${html.note}`);
    const data = everyCanary.value(
      own.redactor.value({
        run_id: row.run_id,
        task: row.name,
        agent: row.agent,
        model: row.model,
        benchmark: row.benchmark_id,
        benchmark_version: row.benchmark_version,
        result: row.result,
        score: row.score,
        failed_checks: row.failed_checks,
        alert_rules: row.alert_rules,
        started_at: row.started_at,
        duration_ms: row.duration_ms,
        batch: row.batch_id,
        note: html.ok ? null : html.note,
      }),
    );
    runs.push({
      ...data,
      page: html.ok ? page : null,
      batch_page: row.batch_id === null ? null : (batchPage.get(row.batch_id) ?? null),
    });
  }

  if (batches.length > 0) mkdirSync(path.join(out, 'batches'), { recursive: true });
  for (const b of batches) {
    // Matched by the ids history holds, not by the (redacted) ones shown.
    const own = runs.filter((_, i) => batchPage.get(rows[i]?.batch_id ?? '') === b.page);
    writeFileAtomic(path.join(out, b.page), renderSiteBatch(b, own));
  }
  const filters: Record<string, string> = {};
  for (const flag of FILTER_FLAGS) if (opts[flag] !== undefined) filters[flag] = String(opts[flag]);
  writeFileAtomic(
    path.join(out, 'index.html'),
    renderSiteIndex(runs, batches, {
      generated_at: new Date().toISOString(),
      filters: everyCanary.value(filters),
      agentguard_version: agentguardVersion(),
    }),
  );
  writeFileAtomic(path.join(out, SITE_MARKER), 'written by agentguard reports site; may be replaced by it\n');
  for (const line of left) io.err(`agentguard: no page for run ${line}`);
  io.out(
    `${path.join(out, 'index.html')}: ${runs.length} runs (${runs.length - left.length} pages), ${batches.length} batches`,
  );
  return 0;
}

/** An empty or new folder, or one this command wrote before (its pages are then replaced). */
function prepareOutDir(out: string): void {
  if (!existsSync(out)) {
    try {
      mkdirSync(out, { recursive: true });
    } catch (err) {
      throw new SetupError(`cannot create ${out}: ${errorMessage(err)}. Fix: choose a writable folder.`);
    }
    return;
  }
  if (!lstatSync(out).isDirectory()) {
    throw new InputError(`${out} is not a folder. Fix: give 'reports site' a new or empty folder.`);
  }
  const names = readdirSync(out);
  if (names.length === 0) return;
  if (!names.includes(SITE_MARKER)) {
    throw new InputError(
      `${out} is not empty and is not a site agentguard wrote (no ${SITE_MARKER}); nothing was written. Fix: give 'reports site' a new or empty folder.`,
    );
  }
  // Pages of runs no longer selected must not linger beside the new index.
  for (const name of ['index.html', 'runs', 'batches'])
    rmSync(path.join(out, name), { recursive: true, force: true });
}

type RunRedaction = { redactor: Redactor; canaries: KnownSecret[] };

/** The run's own redactor (its canary tokens and configured detectors), or the base one when its folder is unreadable. */
function redactorOfRun(runDir: string): RunRedaction {
  try {
    const config = readJson<ResolvedConfig>(runPath(runDir, 'config'));
    const canaryFile = runPath(runDir, 'canaries');
    const canaries = existsSync(canaryFile) ? readJson<CanaryEvidence>(canaryFile) : null;
    return {
      redactor: runRedactor(config, canaries),
      canaries: (canaries?.canaries ?? []).map((c) => ({
        name: `${CANARY_PREFIX}${c.kind}`,
        value: c.token,
        hashed: true,
      })),
    };
  } catch {
    // A moved or damaged run still gets a row; its strings get the credential shapes redacted.
    return { redactor: baseRedactor, canaries: [] };
  }
}

/** The run's report.html, or why the site has no page for it. Never follows a symlink out of the run folder. */
function reportHtml(row: HistoryRow): { ok: true; text: string } | { ok: false; note: string } {
  const file = reportPath(row.run_dir, 'html');
  try {
    if (lstatSync(file).isSymbolicLink()) return { ok: false, note: `${file} is a symlink; not copied` };
  } catch {
    return { ok: false, note: `${file} is missing` };
  }
  const read = readTextFile(file, REPORT_BROWSE_MAX_BYTES);
  if (read.ok) return { ok: true, text: read.text };
  return {
    ok: false,
    note:
      read.error.code === 'too-big'
        ? `${file} is over the ${REPORT_BROWSE_MAX_BYTES / (1024 * 1024)} MiB the site copies`
        : read.error.message,
  };
}

/** report.html as written, with a link back to the index as the first thing in its main column. */
function withBackLink(html: string): string {
  return html.replace(
    '<main>\n',
    '<main>\n<nav><a class="site-index" href="../index.html">all runs</a></nav>\n',
  );
}
