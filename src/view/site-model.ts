import { runRedactor } from '../analysis/secrets/run-redactor.js';
import { batchGroups } from '../batch/batch-groups.js';
import type { ResolvedConfig } from '../config/schema.js';
import type { CanaryEvidence } from '../evidence/bundle-types.js';
import { runPath } from '../evidence/layout.js';
import { isMissing, readJson, readTextFile } from '../evidence/read.js';
import {
  baseRedactor,
  CANARY_PREFIX,
  createRedactor,
  type KnownSecret,
  type Redactor,
} from '../evidence/redact.js';
import { REPORT_BROWSE_MAX_BYTES } from '../evidence/report-file-limit.js';
import type { BatchHistoryRow, HistoryRow } from '../history/types.js';
import { reportPath } from '../reports/reporters.js';
import { siteFileName } from '../reports/site/site-names.js';
import type { SiteBatch, SiteGrid, SiteRun } from '../reports/site/site-types.js';

/**
 * The runs and batches of a site (`reports site` on disk, `view` over HTTP), redacted: each run's
 * strings with its own canary tokens and detectors, and everything with every run's canary tokens,
 * since the index holds every run at once.
 */
export type SiteModel = {
  runs: SiteRun[];
  batches: SiteBatch[];
  /** The runs of a batch, matched by the ids history holds, not by the (redacted) ones shown. */
  runsOf: (batch: SiteBatch) => SiteRun[];
  /** The batch's agents × tasks cells (redacted), or why there are none. */
  gridOf: (batch: SiteBatch) => SiteGrid;
  /** Every run's canary tokens, for anything else the index shows. */
  everyCanary: Redactor;
};

/**
 * `page(row, clean)` says why a run has no page (a note), or null when it has one; `clean` is the
 * redaction its page must get. The run's page is `runs/<siteFileName>` either way.
 */
export function siteModel(
  rows: readonly HistoryRow[],
  batchRows: ReadonlyMap<string, BatchHistoryRow | null>,
  page: (row: HistoryRow, clean: (html: string) => string) => string | null,
): SiteModel {
  const redactors = new Map(rows.map((r) => [r.run_id, redactorOfRun(r.run_dir)]));
  const everyCanary = createRedactor({ secrets: [...redactors.values()].flatMap((r) => r.canaries) });
  const batches: SiteBatch[] = [];
  for (const [id, b] of batchRows) {
    if (b === null) continue;
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
  const batchDirs = new Map(
    [...batchRows].flatMap(([id, b]) =>
      b === null ? [] : [[`batches/${siteFileName(id)}` as string, b.batch_dir] as const],
    ),
  );
  // Read only for the pages drawn: the index lists batches without their grids.
  const gridOf = (b: SiteBatch): SiteGrid => {
    const dir = batchDirs.get(b.page);
    if (dir === undefined) return { note: 'the batch is not in this site' };
    const read = batchGroups(dir);
    return read.ok ? { groups: everyCanary.value(read.groups) } : { note: everyCanary.text(read.note) };
  };
  const batchPage = new Map(
    [...batchRows].flatMap(([id, b]) => (b === null ? [] : [[id, `batches/${siteFileName(id)}`] as const])),
  );
  const runs = rows.map((row): SiteRun => {
    const own = redactors.get(row.run_id) ?? { redactor: baseRedactor, canaries: [] };
    const note = page(row, (html) => own.redactor.text(everyCanary.text(html)));
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
        note,
      }),
    );
    return {
      ...data,
      page: note === null ? `runs/${siteFileName(row.run_id)}` : null,
      batch_page: row.batch_id === null ? null : (batchPage.get(row.batch_id) ?? null),
    };
  });
  return {
    runs,
    batches,
    everyCanary,
    gridOf,
    runsOf: (b) => runs.filter((_, i) => batchPage.get(rows[i]?.batch_id ?? '') === b.page),
  };
}

type RunRedaction = { redactor: Redactor; canaries: KnownSecret[] };

/** The run's own redactor (its canary tokens and configured detectors), or the base one when its folder is unreadable. */
export function redactorOfRun(runDir: string): RunRedaction {
  try {
    const config = readJson<ResolvedConfig>(runPath(runDir, 'config'), undefined, undefined, runDir);
    const canaryFile = runPath(runDir, 'canaries');
    const canaries = isMissing(canaryFile, runDir)
      ? null
      : readJson<CanaryEvidence>(canaryFile, undefined, undefined, runDir);
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

/** The run's report.html, or why the site has no page for it. Never follows a symlink inside the run folder. */
export function reportHtml(runDir: string): { ok: true; text: string } | { ok: false; note: string } {
  const file = reportPath(runDir, 'html');
  const read = readTextFile(file, REPORT_BROWSE_MAX_BYTES, runDir);
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
export function withBackLink(html: string): string {
  return html.replace(
    '<main>\n',
    '<main>\n<nav><a class="site-index" href="../index.html">all runs</a></nav>\n',
  );
}
