import { type ReliabilitySummary, reliabilitySummary } from '../analysis/reliability/stats.js';
import type { ResolvedConfig } from '../config/schema.js';
import type { RunContext } from '../pipeline/context.js';
import { type RunOptions, type RunResult, runTask } from '../pipeline/run-task.js';
import type { AgentSpec, BatchPlan, BatchSummary } from '../reports/batch-types.js';
import { type Comparison, compareRuns } from './compare.js';
import { attemptOutcome, batchDir, planBatch, runBatch } from './run-batch.js';

export type TrialsResult = {
  results: RunResult[];
  reliability: ReliabilitySummary;
  comparison: Comparison | null;
  /** The batch the trials are: summary.json/md/html, history, `reports site`, `view`, `resume`. */
  summary: BatchSummary;
  batchDir: string;
};

/** The agent of `run --trials`, as a batch names it: the profile for agent-profile, else the adapter. */
export function trialsAgent(cfg: ResolvedConfig, opts: RunOptions): AgentSpec {
  const name = opts.agent === 'agent-profile' && cfg.agent_profile ? cfg.agent_profile : opts.agent;
  return { name, kind: 'builtin', adapter: opts.agent };
}

/**
 * `run --trials N`: N independent runs of one agent on one task, as a batch of kind `trials` (one
 * agent × one task × N trials, one at a time), so that it has a summary, a history row, pages in
 * `reports site` and `view`, and `resume` like every other batch; then the runs' statistics and
 * their comparison. An interrupt ends the trial under way and starts no more.
 */
export async function runTrials(
  ctx: RunContext,
  cfg: ResolvedConfig,
  opts: RunOptions,
  trials: number,
): Promise<TrialsResult> {
  const plan: BatchPlan = planBatch(ctx, {
    kind: 'trials',
    sourceFile: null,
    agents: [trialsAgent(cfg, opts)],
    configs: [cfg],
    trials,
    options: {
      ...(opts.sandbox ? { sandbox: opts.sandbox } : {}),
      ...(opts.tracer ? { tracer: opts.tracer } : {}),
      ...(opts.guard ? { guard: opts.guard } : {}),
      ...(opts.allowBelowFloor ? { allow_below_floor: true } : {}),
      // One at a time, as trials always ran: each starts from the same machine state.
      workers: 1,
      fail_fast: false,
    },
  });
  const results: RunResult[] = [];
  const summary = await runBatch(ctx, plan, undefined, {
    // The batch's own work (runTask with the plan's options), keeping each result for the console.
    worker: async (attempt, batchId) => {
      ctx.log(`trial ${attempt.trial} of ${trials}`);
      const result = await runTask(ctx, cfg, { ...opts, batch: { id: batchId, attempt: attempt.index } });
      results.push(result);
      if (result.report.result === 'ERROR' && ctx.signal?.aborted) return null;
      return attemptOutcome(result);
    },
  });
  const reliability = reliabilitySummary(
    results.map((r) => ({ passed: r.report.result === 'PASS', score: r.report.score })),
  );
  const comparison = results.length >= 2 ? compareRuns(results.map((r) => r.runDir)) : null;
  return { results, reliability, comparison, summary, batchDir: batchDir(ctx, plan.batch_id) };
}
