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
  const analysed = analyseRun(f.runDir);
  const sealed = sealRun(f.runDir, analysed.analysis, ctx.now());
  if (ctx.history) {
    const db = openHistory(path.join(ctx.outputDir, 'history.db'));
    try {
      db.recordRun(
        analysed.report,
        {
          report_json: analysed.reportJson,
          report_md: analysed.reportMd,
          manifest: sealed.manifestFile,
          trace_head: sealed.traceHead,
        },
        f.kind,
        f.batch?.id,
      );
    } finally {
      db.close();
    }
  }
  return analysed;
}
