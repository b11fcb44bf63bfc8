import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { loadConfigOrThrow } from '../config/load.js';
import type { ResolvedConfig } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import { writeFileAtomic, writeJson } from '../evidence/write.js';
import type { RunContext } from '../pipeline/context.js';
import { newRunId } from '../pipeline/run-id.js';
import { type RunOptions, type RunResult, runTask } from '../pipeline/run-task.js';
import { sealBatch } from '../provenance/batch-manifest.js';
import { fileSha256, treeSha256 } from '../provenance/tree-hashes.js';
import { renderBatchJunit } from '../reports/batch-junit.js';
import { renderBatchMarkdown } from '../reports/batch-markdown.js';
import type { AgentSpec, Attempt, BatchKind, BatchPlan, BatchSummary, Row } from '../reports/batch-types.js';
import { renderBatchHtml } from '../reports/html/batch-page.js';
import { recordBatchHistory } from './batch-history.js';
import { appendCheckpoint, isSetupError, readCheckpoint } from './checkpoint.js';
import { cellSimilarities } from './group-similarity.js';
import { mapSettled } from './scheduler.js';
import { buildSummary } from './summary.js';

export const BATCH_FILES = {
  plan: 'batch.json',
  checkpoint: 'checkpoint.jsonl',
  summaryJson: 'summary.json',
  summaryMd: 'summary.md',
  summaryHtml: 'summary.html',
  junit: 'junit.xml',
} as const;

export type PlanInput = {
  kind: BatchKind;
  sourceFile: string | null;
  agents: AgentSpec[];
  /** Task configs, already loaded (a bad one has been refused). */
  configs: ResolvedConfig[];
  trials: number;
  options: BatchPlan['options'];
};

export function taskName(cfg: ResolvedConfig): string {
  return cfg.benchmark_id ?? cfg.name;
}

/** agents × tasks × trials in that nesting order, with the hashes resume checks. */
export function planBatch(ctx: RunContext, input: PlanInput): BatchPlan {
  const { agents, ...rest } = input;
  return planPairs(ctx, {
    ...rest,
    pairs: agents.flatMap((agent) => input.configs.map((cfg) => ({ agent, cfg }))),
  });
}

/**
 * Chosen (agent, task) pairs × trials, in that nesting order: for callers whose agents differ per
 * task (an audit runs each contract reference's agent on its own variants only).
 */
export function planPairs(
  ctx: RunContext,
  input: Omit<PlanInput, 'agents'> & { pairs: readonly { agent: AgentSpec; cfg: ResolvedConfig }[] },
): BatchPlan {
  const attempts: Attempt[] = [];
  for (const { agent, cfg } of input.pairs)
    for (let trial = 1; trial <= input.trials; trial++)
      attempts.push({
        index: attempts.length,
        agent,
        task: taskName(cfg),
        config_path: cfg.config_path,
        trial,
      });
  const now = ctx.now();
  return {
    schema_version: 1,
    batch_id: newRunId(now),
    kind: input.kind,
    created_at: now.toISOString(),
    source: input.sourceFile ? { file: input.sourceFile, sha256: fileSha256(input.sourceFile) } : null,
    options: input.options,
    attempts,
    hashes: contentHashes(input.configs),
  };
}

function contentHashes(configs: readonly ResolvedConfig[]): BatchPlan['hashes'] {
  const out: BatchPlan['hashes'] = { configs: {}, repos: {} };
  for (const cfg of configs) {
    out.configs[cfg.config_path] = fileSha256(cfg.config_path);
    out.repos[cfg.repo] = treeSha256(cfg.repo);
  }
  return out;
}

export function batchDir(ctx: RunContext, batchId: string): string {
  return path.join(ctx.outputDir, 'batches', batchId);
}

/** The config an attempt runs: the task's, with the attempt's agent put in. */
export function attemptConfig(
  cfg: ResolvedConfig,
  agent: AgentSpec,
): { cfg: ResolvedConfig; opts: RunOptions } {
  if (agent.kind === 'builtin') return { cfg, opts: { agent: agent.adapter } };
  const { agent_command: _c, agent_profile: _p, ...rest } = cfg;
  if (agent.kind === 'command')
    return { cfg: { ...rest, agent_command: agent.argv }, opts: { agent: 'agent-command' } };
  return { cfg: { ...rest, agent_profile: agent.profile }, opts: { agent: 'agent-profile' } };
}

/** Where the batch stands: what a live count shows. `failed` counts FAIL and ERROR rows. */
export type BatchCounts = { done: number; running: number; failed: number; total: number };

export type Progress = (
  p: BatchCounts & {
    row: Row;
    elapsedMs: number;
    etaMs: number;
  },
) => void;

/** What one attempt produced: its row without the attempt's identity and timing. */
export type AttemptOutcome = Pick<
  Row,
  | 'run_id'
  | 'run_dir'
  | 'result'
  | 'score'
  | 'tests_passed'
  | 'failed_checks'
  | 'alerts'
  | 'benchmark_version'
>;

/**
 * Does one attempt's work. Null: an interrupt cut it short (not checkpointed; resume runs it
 * again). A throw is the attempt's setup ERROR row. The batch owns everything around it: limits,
 * order, checkpoint, history, fail-fast, summaries.
 */
export type AttemptWorker = (attempt: Attempt, batchId: string) => Promise<AttemptOutcome | null>;

export type BatchHooks = {
  /** An attempt started (the live count's `running` went up). */
  started?: (counts: BatchCounts) => void;
  /** Resume found these setup ERROR rows in the checkpoint and runs their attempts again. */
  retrying?: (rows: readonly Row[]) => void;
  /**
   * Replaces the run pipeline as the attempt's work (default: the attempt's agent on its task
   * through runTask). `diagnostics matrix-stress` uses it to measure the scheduler, checkpoint,
   * history and summaries alone.
   */
  worker?: AttemptWorker;
};

/**
 * Run every attempt of `plan` not yet in its checkpoint, at most `workers` at a time, then write
 * the summaries. Each finished attempt is in the checkpoint (fsynced) before it is counted. An
 * interrupt starts nothing new; attempts it cut short are not checkpointed, so resume runs them again.
 */
export async function runBatch(
  ctx: RunContext,
  plan: BatchPlan,
  progress: Progress = () => {},
  hooks: BatchHooks = {},
): Promise<BatchSummary> {
  const dir = batchDir(ctx, plan.batch_id);
  mkdirSync(dir, { recursive: true });
  const planFile = path.join(dir, BATCH_FILES.plan);
  if (!existsSync(planFile)) writeJson(planFile, plan);
  const checkpoint = path.join(dir, BATCH_FILES.checkpoint);
  // By index: a retried setup ERROR keeps its old row until the retry finishes, so an interrupted
  // resume still reports it.
  const finished = new Map(readCheckpoint(checkpoint).map((r) => [r.index, r]));
  // Indexed before anything runs: a history.db that cannot be written stops the batch now.
  recordBatchHistory(ctx, plan, dir, [...finished.values()], null);
  const retry = [...finished.values()].filter(isSetupError);
  if (retry.length > 0) hooks.retrying?.(retry);
  const done = new Set([...finished.values()].filter((r) => !isSetupError(r)).map((r) => r.index));
  const todo = plan.attempts.filter((a) => !done.has(a.index));

  const configs = new Map<string, ResolvedConfig>();
  const configOf = (p: string) => {
    let cfg = configs.get(p);
    if (!cfg) {
      cfg = loadConfigOrThrow(p);
      configs.set(p, cfg);
    }
    return cfg;
  };
  const failFast = new AbortController();
  const stopStarting = ctx.signal ? AbortSignal.any([ctx.signal, failFast.signal]) : failFast.signal;
  const start = Date.now();
  let count = 0;
  let running = 0;
  const pending = new Set(retry.map((r) => r.index));
  const counts = (): BatchCounts => ({
    done: done.size + count,
    running,
    // A setup ERROR being retried is not done yet, so not failed either.
    failed: [...finished.values()].filter((r) => r.result !== 'PASS' && !pending.has(r.index)).length,
    total: plan.attempts.length,
  });
  // --allow-below-floor is the operator's, from this command's plan: never an override a queue job
  // carries (runOverrides reads those too), so it is added here only.
  const overrides = {
    ...runOverrides(plan.options),
    ...(plan.options.allow_below_floor ? { allowBelowFloor: true } : {}),
  };
  const work = hooks.worker ?? pipelineWorker(ctx, configOf, overrides);

  await mapSettled(
    todo,
    plan.options.workers,
    async (attempt) => {
      const began = Date.now();
      running++;
      hooks.started?.(counts());
      let row: Row | null;
      try {
        row = await runAttempt(ctx, plan.batch_id, attempt, work, began);
      } finally {
        running--;
      }
      // A run cut short by an interrupt is not a finished attempt: resume runs it again.
      if (row === null) return;
      appendCheckpoint(checkpoint, row);
      finished.set(row.index, row);
      pending.delete(row.index);
      count++;
      try {
        recordBatchHistory(ctx, plan, dir, [...finished.values()], null);
      } catch {
        // Only the index lags: the checkpoint has the row, and the summary records the batch again.
      }
      const elapsedMs = Date.now() - start;
      const perAttempt = elapsedMs / count;
      progress({
        row,
        ...counts(),
        elapsedMs: row.elapsed_ms,
        etaMs: Math.round(perAttempt * (todo.length - count)),
      });
      if (plan.options.fail_fast && row.result !== 'PASS') failFast.abort();
    },
    stopStarting,
  );
  return writeSummaries(
    ctx,
    plan,
    dir,
    [...finished.values()].sort((a, b) => a.index - b.index),
  );
}

/** The batch's --sandbox/--tracer/--guard as run options over every attempt's config. */
export function runOverrides(
  options: Pick<BatchPlan['options'], 'sandbox' | 'tracer' | 'guard'>,
): Partial<RunOptions> {
  return {
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    ...(options.tracer ? { tracer: options.tracer } : {}),
    ...(options.guard ? { guard: options.guard } : {}),
  } as Partial<RunOptions>;
}

/** The default work of an attempt: its agent on its task through the run pipeline. */
function pipelineWorker(
  ctx: RunContext,
  configOf: (p: string) => ResolvedConfig,
  overrides: Partial<RunOptions>,
): AttemptWorker {
  return async (attempt, batchId) => {
    const { cfg, opts } = attemptConfig(configOf(attempt.config_path), attempt.agent);
    const result = await runTask(ctx, cfg, {
      ...opts,
      ...overrides,
      batch: { id: batchId, attempt: attempt.index },
    });
    if (result.report.result === 'ERROR' && ctx.signal?.aborted) return null;
    return attemptOutcome(result);
  };
}

/** An attempt's row fields from its run (here, or on a queue worker on another host). */
export function attemptOutcome(result: RunResult): AttemptOutcome {
  const report = result.report;
  return {
    run_id: report.run_id,
    run_dir: result.runDir,
    result: report.result,
    score: report.score,
    tests_passed: report.tests.passed,
    failed_checks: [...report.failed_checks],
    alerts: report.alerts.map((a) => a.rule),
    benchmark_version: report.benchmark.version,
    ...(report.usage
      ? {
          usage: {
            input_tokens: report.usage.input_tokens,
            output_tokens: report.usage.output_tokens,
            cost: report.usage.cost,
            currency: report.usage.currency,
          },
        }
      : {}),
  };
}

async function runAttempt(
  ctx: RunContext,
  batchId: string,
  attempt: Attempt,
  work: AttemptWorker,
  began: number,
): Promise<Row | null> {
  const base = {
    index: attempt.index,
    agent: attempt.agent.name,
    task: attempt.task,
    trial: attempt.trial,
  };
  try {
    const outcome = await work(attempt, batchId);
    if (outcome === null) return null;
    return { ...base, ...outcome, elapsed_ms: Date.now() - began };
  } catch (err) {
    if (ctx.signal?.aborted) return null;
    return {
      ...base,
      run_id: null,
      run_dir: null,
      result: 'ERROR',
      score: null,
      tests_passed: null,
      failed_checks: [],
      alerts: [],
      benchmark_version: null,
      elapsed_ms: Date.now() - began,
      reason: errorMessage(err),
    };
  }
}

/** summary.json, summary.md, summary.html and junit.xml from the checkpointed rows. */
export function writeSummaries(
  ctx: RunContext,
  plan: BatchPlan,
  dir: string,
  rows: readonly Row[],
): BatchSummary {
  const summary = buildSummary(plan, rows, ctx.now().toISOString(), cellSimilarities(rows));
  writeJson(path.join(dir, BATCH_FILES.summaryJson), summary);
  writeFileAtomic(path.join(dir, BATCH_FILES.summaryMd), renderBatchMarkdown(summary));
  writeFileAtomic(path.join(dir, BATCH_FILES.junit), renderBatchJunit(summary));
  writeFileAtomic(path.join(dir, BATCH_FILES.summaryHtml), renderBatchHtml(summary, dir));
  recordBatchHistory(ctx, plan, dir, rows, summary);
  sealBatch(dir, plan, rows, ctx.now());
  return summary;
}
