import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  type Baseline,
  type BaselineComparison,
  checkVersions,
  compareWithBaseline,
  parseBaseline,
  toBaseline,
} from '../../batch/baseline.js';
import {
  type AttemptWorker,
  batchDir,
  type PlanInput,
  type Progress,
  planBatch,
  runBatch,
  taskName,
} from '../../batch/run-batch.js';
import { loadConfigOrThrow } from '../../config/load.js';
import type { ResolvedConfig } from '../../config/schema.js';
import { ConfigError } from '../../errors.js';
import { SANDBOX_KINDS, TRACER_CHOICES } from '../../evidence/kinds.js';
import { writeJson } from '../../evidence/write.js';
import { stopReasonOf } from '../../exec/interrupt.js';
import { signalExitCode } from '../../exec/shutdown.js';
import type { RunContext } from '../../pipeline/context.js';
import { GUARD_MODES } from '../../pipeline/live-guard.js';
import { beginRunSession } from '../../pipeline/run-session.js';
import type { AgentSpec, BatchPlan, BatchSummary } from '../../reports/batch-types.js';
import { oneOf, wholeNumber } from '../flags.js';
import { type CliIO, type GlobalOptions, oneLine, runContext } from '../io.js';
import { isCI, LiveCount, liveCountWanted } from '../live-count.js';
import { checkRepoOutsideOutput } from '../output-dir.js';

/** Flags every batch command takes. */
export type BatchFlags = GlobalOptions & {
  workers?: number | string;
  failFast?: boolean;
  json?: boolean;
  sandbox?: string;
  tracer?: string;
  guard?: string;
  allowBelowFloor?: boolean;
  trials?: number | string;
  saveBaseline?: string;
  baseline?: string;
  allowVersionMismatch?: boolean;
  /** A batch folder or id to resume instead of starting a new batch. */
  resume?: string;
};

/** The --baseline file, read and checked against the tasks before anything runs. */
function readBaselineFlag(
  flags: BatchFlags,
  tasks: { task: string; benchmark_version: string | null }[],
): BaselineUse | null {
  if (flags.baseline === undefined) return null;
  const file = path.resolve(String(flags.baseline));
  if (!existsSync(file))
    throw new ConfigError(`--baseline ${file} does not exist. Fix: pass a file written by --save-baseline.`);
  const base = parseBaseline(file, readFileSync(file, 'utf8'));
  const allow = flags.allowVersionMismatch === true;
  if (!allow) checkVersions(file, base, tasks);
  return { file, base, allow };
}

type BaselineUse = { file: string; base: Baseline; allow: boolean };

/** A whole number ≥ 1 from a flag, or the fallback. */
export function countFlag(flag: string, value: unknown, fallback: number): number {
  return wholeNumber(flag, value, { fallback, min: 1, max: 10_000, example: 2 });
}

export function defaultWorkers(): number {
  return Math.max(1, os.availableParallelism());
}

/** Load every config before anything runs: one bad config refuses the whole batch. */
export function loadTaskConfigs(files: readonly string[], outputDir: string): ResolvedConfig[] {
  return files.map((f) => {
    const cfg = loadConfigOrThrow(f);
    checkRepoOutsideOutput(cfg, outputDir);
    return cfg;
  });
}

export function batchOptions(flags: BatchFlags, fileWorkers?: number): BatchPlan['options'] {
  const sandbox = oneOf('--sandbox', flags.sandbox, SANDBOX_KINDS);
  const tracer = oneOf('--tracer', flags.tracer, TRACER_CHOICES);
  const guard = oneOf('--guard', flags.guard, GUARD_MODES);
  return {
    ...(sandbox ? { sandbox } : {}),
    ...(tracer ? { tracer } : {}),
    ...(guard ? { guard } : {}),
    ...(flags.allowBelowFloor ? { allow_below_floor: true } : {}),
    workers: countFlag('--workers', flags.workers, fileWorkers ?? defaultWorkers()),
    fail_fast: flags.failFast === true,
  };
}

/** Progress lines are for people: off with --json and under CI. */
export function quietProgress(json: boolean): boolean {
  return json || isCI(process.env);
}

/** Progress lines are for people: off with --json and under CI. */
function progressPrinter(io: CliIO, quiet: boolean): Progress {
  if (quiet) return () => {};
  return ({ row, done, total, elapsedMs, etaMs }) => {
    const verdict = row.result === 'ERROR' && row.reason ? `ERROR (${row.reason})` : row.result;
    io.err(
      oneLine(
        `[${done}/${total}] ${row.agent} · ${row.task} · trial ${row.trial}: ${verdict} in ${(elapsedMs / 1000).toFixed(1)} s` +
          (done < total ? `, ETA ${Math.ceil(etaMs / 1000)} s` : ''),
      ),
    );
  };
}

/** Who does each attempt's work instead of this process's run pipeline (`matrix --queue`). */
export type RemoteWork = {
  describe: string;
  open: (ctx: RunContext, plan: BatchPlan) => Promise<{ worker: AttemptWorker; close: () => Promise<void> }>;
};

export async function startBatch(
  io: CliIO,
  flags: BatchFlags,
  input: Omit<PlanInput, 'options'> & { fileWorkers?: number; remote?: RemoteWork },
): Promise<number> {
  const options = batchOptions(flags, input.fileWorkers);
  const base = runContext(io, { ...flags, quiet: true });
  const baseline = readBaselineFlag(
    flags,
    input.configs.map((c) => ({ task: taskName(c), benchmark_version: c.benchmark_version ?? null })),
  );
  const plan = planBatch(base, { ...input, options });
  const ctx = await beginRunSession(base, io.err);
  const quiet = quietProgress(flags.json === true);
  if (!quiet)
    io.err(
      `agentguard ${plan.kind}: ${input.agents.length} agent(s) × ${input.configs.length} task(s) × ${input.trials} trial(s) = ` +
        `${plan.attempts.length} attempts, ${options.workers} at a time ` +
        (input.remote
          ? `(${input.remote.describe}); `
          : `(this machine has ${os.availableParallelism()} cores); `) +
        `batch ${batchDir(ctx, plan.batch_id)}`,
    );
  return finishBatch(io, ctx, plan, quiet, flags.json === true, {
    baseline,
    ...(input.remote ? { remote: input.remote } : {}),
    ...(flags.saveBaseline !== undefined ? { saveBaseline: path.resolve(String(flags.saveBaseline)) } : {}),
  });
}

export async function finishBatch(
  io: CliIO,
  ctx: RunContext,
  plan: BatchPlan,
  quiet: boolean,
  json: boolean,
  extra: { baseline?: BaselineUse | null; saveBaseline?: string; remote?: RemoteWork } = {},
): Promise<number> {
  const live =
    io.tty && liveCountWanted({ isTTY: true, json, env: process.env }) ? new LiveCount(io.tty) : null;
  // Every stderr line clears the count first and draws it again after, so the two never interleave.
  const errIO: CliIO = live
    ? {
        ...io,
        err: (text) => {
          live.clear();
          io.err(text);
          live.redraw();
        },
      }
    : io;
  const print = progressPrinter(errIO, quiet);
  let summary: BatchSummary;
  const remote = extra.remote ? await extra.remote.open(ctx, plan) : null;
  try {
    summary = await runBatch(
      ctx,
      plan,
      (p) => {
        live?.update(p, p.etaMs);
        print(p);
      },
      {
        started: (counts) => live?.update(counts),
        retrying: (rows) =>
          errIO.err(
            oneLine(
              `resume: running again ${rows.length} attempt(s) whose setup failed: ` +
                rows
                  .map(
                    (r) => `#${r.index} ${r.agent} · ${r.task} · trial ${r.trial} (${r.reason ?? 'ERROR'})`,
                  )
                  .join('; '),
            ),
          ),
        ...(remote ? { worker: remote.worker } : {}),
      },
    );
  } finally {
    live?.stop();
    await remote?.close();
  }
  const dir = batchDir(ctx, plan.batch_id);
  let comparison: BaselineComparison | null = null;
  if (extra.baseline) {
    comparison = compareWithBaseline(extra.baseline.file, extra.baseline.base, summary, extra.baseline.allow);
    writeJson(path.join(dir, 'baseline-comparison.json'), comparison);
  }
  if (extra.saveBaseline && summary.complete) writeJson(extra.saveBaseline, toBaseline(summary));
  if (json)
    io.out(JSON.stringify(comparison ? { ...summary, baseline_comparison: comparison } : summary, null, 2));
  else {
    io.out(describe(summary, dir));
    if (comparison)
      io.out(
        `against baseline ${extra.baseline?.file}: ${comparison.regressions} regressed, ${comparison.improvements} improved, ` +
          `${comparison.attempts.length - comparison.regressions - comparison.improvements} unchanged attempts` +
          comparison.attempts
            .filter((a) => a.change === 'regressed')
            .map((a) =>
              oneLine(
                `\n  regressed ${a.key}: ${a.before} → ${a.after}${a.details.length ? ` (${a.details.join(', ')})` : ''}`,
              ),
            )
            .join(''),
      );
    if (extra.saveBaseline)
      io.out(
        summary.complete
          ? `baseline saved: ${extra.saveBaseline}`
          : 'baseline not saved: the batch is incomplete',
      );
  }
  const stop = stopReasonOf(ctx.signal);
  if (stop?.kind === 'signal') return signalExitCode(stop.signal);
  return summary.complete && summary.totals.fail === 0 && summary.totals.error === 0 ? 0 : 1;
}

function describe(s: BatchSummary, dir: string): string {
  const lines = s.groups
    .filter((g) => g.task !== null)
    .map((g) => {
      const rate = g.pass_rate === null ? '-' : g.pass_rate.toFixed(2);
      const ci =
        g.wilson_low === null ? '' : ` [${g.wilson_low.toFixed(2)}, ${(g.wilson_high ?? 0).toFixed(2)}]`;
      return oneLine(
        `  ${g.agent} · ${g.task}: ${g.passes}/${g.trials} passed, pass rate ${rate}${ci}` +
          (g.errors ? `, ${g.errors} error(s)` : '') +
          (g.unsafe_functional_successes ? `, ${g.unsafe_functional_successes} unsafe success(es)` : ''),
      );
    });
  const t = s.totals;
  const head = `${s.kind} ${s.batch_id}: ${t.pass} PASS, ${t.fail} FAIL, ${t.error} ERROR${t.not_run ? `, ${t.not_run} not run` : ''}`;
  const tail = s.complete
    ? `summary: ${path.join(dir, 'summary.md')}`
    : `incomplete: agentguard resume ${dir}`;
  return [head, ...lines, tail].join('\n');
}

export type { AgentSpec };
