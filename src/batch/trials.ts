import { type ReliabilitySummary, reliabilitySummary } from '../analysis/reliability/stats.js';
import type { ResolvedConfig } from '../config/schema.js';
import type { RunContext } from '../pipeline/context.js';
import { type RunOptions, type RunResult, runTask } from '../pipeline/run-task.js';
import { type Comparison, compareRuns } from './compare.js';

export type TrialsResult = {
  results: RunResult[];
  reliability: ReliabilitySummary;
  comparison: Comparison | null;
};

/** N independent runs of one agent on one task, each in its own run directory, then their statistics. */
export async function runTrials(
  ctx: RunContext,
  cfg: ResolvedConfig,
  opts: RunOptions,
  trials: number,
): Promise<TrialsResult> {
  const results: RunResult[] = [];
  // An interrupt ends the trial under way (written as ERROR) and starts no more.
  for (let i = 0; i < trials && (i === 0 || !ctx.signal?.aborted); i++) {
    ctx.log(`trial ${i + 1} of ${trials}`);
    results.push(await runTask(ctx, cfg, opts));
  }
  const reliability = reliabilitySummary(
    results.map((r) => ({ passed: r.report.result === 'PASS', score: r.report.score })),
  );
  const comparison = results.length >= 2 ? compareRuns(results.map((r) => r.runDir)) : null;
  return { results, reliability, comparison };
}
