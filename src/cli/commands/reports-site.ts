import { existsSync, lstatSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { errorMessage, InputError, SetupError } from '../../errors.js';
import { writeFileAtomic } from '../../evidence/write.js';
import type { BatchHistoryRow, HistoryRow } from '../../history/types.js';
import { renderSiteBatch } from '../../reports/site/site-batch.js';
import { renderSiteIndex } from '../../reports/site/site-index.js';
import { siteFileName } from '../../reports/site/site-names.js';
import { agentguardVersion } from '../../version.js';
import { reportHtml, siteModel, withBackLink } from '../../view/site-model.js';
import type { CliIO } from '../io.js';
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
  const batchRows = new Map<string, BatchHistoryRow | null>();
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
  mkdirSync(path.join(out, 'runs'), { recursive: true });
  const left: string[] = [];
  const { runs, batches, runsOf, gridOf, everyCanary } = siteModel(rows, batchRows, (row, clean) => {
    const html = reportHtml(row.run_dir);
    if (!html.ok) {
      left.push(`${row.run_id}: ${html.note}`);
      return html.note;
    }
    writeFileAtomic(path.join(out, 'runs', siteFileName(row.run_id)), withBackLink(clean(html.text)));
    return null;
  });
  if (batches.length > 0) mkdirSync(path.join(out, 'batches'), { recursive: true });
  for (const b of batches) writeFileAtomic(path.join(out, b.page), renderSiteBatch(b, runsOf(b), gridOf(b)));
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
