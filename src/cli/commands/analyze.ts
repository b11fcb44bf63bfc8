import { existsSync } from 'node:fs';
import path from 'node:path';
import { loadConfigOrThrow } from '../../config/load.js';
import { openHistory } from '../../history/db.js';
import { analyseRun } from '../../pipeline/analyse-run.js';
import { type SealedRun, sealRun } from '../../provenance/seal-run.js';
import { verifyRun } from '../../provenance/verify.js';
import { renderJson } from '../../reports/json.js';
import type { CliIO } from '../io.js';
import { summarise } from './run.js';

export type AnalyzeOptions = { config?: string; json?: boolean };

/**
 * Re-derive checks, score and reports from a run's stored evidence; runs nothing. Without --config
 * the run's own reports (and its history row) are refreshed; with it, the new verdict is written
 * under the run's `analyses/` folder and the original stays as it was.
 */
export async function analyzeCommand(io: CliIO, runDir: string, opts: AnalyzeOptions): Promise<number> {
  const policy = opts.config ? loadConfigOrThrow(opts.config) : undefined;
  // Only a run that verifies is sealed again with its refreshed reports: a tampered one keeps the
  // manifest that exposes it.
  const wasIntact = !policy && verifyRun(runDir).status === 'intact';
  const { report, reportJson, reportMd, analysis } = analyseRun(runDir, policy);
  const sealed = wasIntact ? sealRun(runDir, analysis, new Date()) : null;
  if (!policy) refreshHistory(report, reportJson, reportMd, sealed);
  io.out(opts.json ? renderJson(report) : summarise(report, reportMd));
  return report.result === 'PASS' ? 0 : 1;
}

/** The run's history lives in the .agentguard folder that holds `runs/<id>`; update it if it is there. */
function refreshHistory(
  report: Parameters<typeof summarise>[0],
  reportJson: string,
  reportMd: string,
  sealed: SealedRun | null,
): void {
  const outputDir = path.dirname(path.dirname(report.run_dir));
  if (path.basename(path.dirname(report.run_dir)) !== 'runs') return;
  const dbFile = path.join(outputDir, 'history.db');
  if (!existsSync(dbFile)) return;
  try {
    const db = openHistory(dbFile);
    try {
      db.recordRun(report, {
        report_json: reportJson,
        report_md: reportMd,
        ...(sealed ? { manifest: sealed.manifestFile, trace_head: sealed.traceHead } : {}),
      });
    } finally {
      db.close();
    }
  } catch {
    // History is an index; the reports on disk are the source of truth.
  }
}
