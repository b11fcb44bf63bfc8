import path from 'node:path';
import { runPath } from '../evidence/layout.js';
import { writeJson } from '../evidence/write.js';
import { describeStop, type StopReason } from '../exec/interrupt.js';
import { openHistory } from '../history/db.js';
import type { HistoryKind } from '../history/types.js';
import type { BatchRef } from '../provenance/manifest-schema.js';
import { sealRun } from '../provenance/seal-run.js';
import { type AnalysedRun, analyseRun } from './analyse-run.js';
import type { RunContext } from './context.js';
import { markPhase } from './phase-marks.js';
import { sealEvidence } from './seal-evidence.js';

export type FinishRun = {
  runDir: string;
  runId: string;
  started: Date;
  /** Why the run ended early (a signal, its time limit), or null. */
  stop: StopReason | null;
  /** What the history calls the run: an agent's run or a CI check of a checkout. */
  kind: Extract<HistoryKind, 'run' | 'ci'>;
  /** The batch the run is an attempt of. */
  batch?: BatchRef;
  /**
   * Where the run folder will be once sealed, when it is made elsewhere and moved there (ci's
   * private folder): the report, the history row and the returned paths name it.
   */
  shownAs?: string;
  /** The history database, when not `<output folder>/history.db` (ci's, through its held folder). */
  historyFile?: string;
};

/**
 * The end of every run, agent or CI, once its evidence is collected: run.json, the evidence sealed,
 * analysed into reports, the run sealed (manifest and trace head, after the reports: nothing the run
 * writes comes later), and its history row.
 */
export function finishRun(ctx: RunContext, f: FinishRun): AnalysedRun {
  writeJson(runPath(f.runDir, 'run'), {
    run_id: f.runId,
    started_at: f.started.toISOString(),
    finished_at: ctx.now().toISOString(),
    ...(f.stop ? { stopped: describeStop(f.stop) } : {}),
    ...(f.batch ? { batch: f.batch } : {}),
  });
  sealEvidence(f.runDir);
  markPhase('finish:seal-evidence');
  const shown = (p: string) =>
    f.shownAs === undefined ? p : path.join(f.shownAs, path.relative(f.runDir, p));
  const made = analyseRun(f.runDir, undefined, f.shownAs);
  const analysed = { ...made, reportJson: shown(made.reportJson), reportMd: shown(made.reportMd) };
  const sealed = sealRun(f.runDir, analysed.analysis, ctx.now());
  markPhase('finish:seal-run');
  if (ctx.history) {
    const db = openHistory(f.historyFile ?? path.join(ctx.outputDir, 'history.db'));
    try {
      ctx.fault?.('record');
      db.recordRun(
        analysed.report,
        {
          report_json: analysed.reportJson,
          report_md: analysed.reportMd,
          manifest: shown(sealed.manifestFile),
          trace_head: sealed.traceHead,
        },
        f.kind,
        f.batch?.id,
      );
    } finally {
      db.close();
    }
    markPhase('finish:history');
  }
  return analysed;
}
