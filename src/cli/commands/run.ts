import path from 'node:path';
import { AGENT_NAMES, isAgentName } from '../../agents/index.js';
import { loadConfigOrThrow } from '../../config/load.js';
import type { ResolvedConfig } from '../../config/schema.js';
import { ConfigError } from '../../errors.js';
import { SANDBOX_KINDS, TRACER_CHOICES } from '../../evidence/kinds.js';
import { stopReasonOf } from '../../exec/interrupt.js';
import { signalExitCode } from '../../exec/shutdown.js';
import type { RunContext } from '../../pipeline/context.js';
import { GUARD_MODES } from '../../pipeline/live-guard.js';
import type { ModelReplay } from '../../pipeline/model-replay.js';
import { markPhase } from '../../pipeline/phase-marks.js';
import { beginRunSession } from '../../pipeline/run-session.js';
import { type RunOptions, runTask } from '../../pipeline/run-task.js';
import { renderJson } from '../../reports/json.js';
import type { RunReport } from '../../reports/types.js';
import { whyLine } from '../../reports/why.js';
import { oneOf, wholeNumber } from '../flags.js';
import { type CliIO, type GlobalOptions, oneLine, outputDir, runContext } from '../io.js';
import { checkRepoOutsideOutput } from '../output-dir.js';
import { withProgress } from '../phase-progress.js';

export type RunCommandOptions = GlobalOptions & {
  agent?: string;
  json?: boolean;
  sandbox?: string;
  tracer?: string;
  trials?: number | string;
  guard?: string;
  dryRun?: boolean;
  allowBelowFloor?: boolean;
  replay?: string;
};

export async function runCommand(io: CliIO, configFile: string, opts: RunCommandOptions): Promise<number> {
  markPhase('cli:loaded');
  let cfg = loadConfigOrThrow(configFile);
  let replay: ModelReplay | undefined;
  if (opts.replay !== undefined) {
    const { loadModelReplay, replayConfig } = await import('../../pipeline/model-replay.js');
    replay = loadModelReplay(opts.replay, cfg);
    cfg = replayConfig(cfg, replay);
  }
  checkRepoOutsideOutput(cfg, outputDir(opts));
  const agent =
    opts.agent ?? (cfg.agent_profile ? 'agent-profile' : cfg.agent_command ? 'agent-command' : undefined);
  if (agent === undefined) {
    throw new ConfigError(
      `${cfg.config_path}: no agent to run: the config has no agent_command. ` +
        `Fix: add agent_command, or pass --agent with one of ${AGENT_NAMES.join(', ')}.`,
    );
  }
  if (!isAgentName(agent)) {
    throw new ConfigError(
      `--agent '${agent}' is not a known agent. Fix: use one of ${AGENT_NAMES.join(', ')}.`,
    );
  }
  const ctx = runContext(io, { ...opts, quiet: opts.quiet || opts.json });
  const sandbox = oneOf('--sandbox', opts.sandbox, SANDBOX_KINDS);
  const tracer = oneOf('--tracer', opts.tracer, TRACER_CHOICES);
  const guard = oneOf('--guard', opts.guard, GUARD_MODES);
  const runOptions = {
    agent,
    ...(sandbox ? { sandbox } : {}),
    ...(tracer ? { tracer } : {}),
    ...(guard ? { guard } : {}),
    ...(opts.allowBelowFloor ? { allowBelowFloor: true } : {}),
    ...(replay ? { replay } : {}),
  };
  const trials = wholeNumber('--trials', opts.trials, { fallback: 1, min: 1, max: 1000, example: 5 });
  // A dry run and trials load their modules (the planner's summary, the batch and its comparison) when asked for.
  if (opts.dryRun) {
    const { dryRunCommand } = await import('./dry-run.js');
    return dryRunCommand(io, ctx, cfg, runOptions, opts.json === true);
  }
  const progress = withProgress(await beginRunSession(ctx, io.err), {
    tty: io.tty,
    json: opts.json === true,
  });
  const session = progress.ctx;
  if (trials > 1) {
    return runManyTrials(io, session, cfg, runOptions, trials, opts.json === true).finally(progress.stop);
  }
  const result = await runTask(session, cfg, runOptions).finally(progress.stop);
  if (opts.json) io.out(renderJson(result.report));
  else io.out(summarise(result.report, result.reportMd));
  return result.exitCode;
}

/** The console summary of a run. Messages name files and commands the agent chose: each stays on its line. */
const CONSOLE_TAILS = 2;
const CONSOLE_TAIL_LINES = 6;

export function summarise(report: RunReport, reportMd: string): string {
  const lines = [`${report.result}  score ${report.score}  ${report.task.name} · ${report.agent.name}`];
  const why = report.why === null ? null : whyLine(report.why);
  if (why !== null) lines.push(`  why: ${why}`);
  for (const c of report.checks.filter((c) => !c.passed))
    lines.push(`  ✗ ${c.id} (${c.severity}): ${c.message}`);
  for (const a of report.alerts) lines.push(`  ! alert ${a.rule} (${a.severity}, ${a.class}): ${a.message}`);
  if (report.isolation_warning) lines.push(`  ! ${report.isolation_warning}`);
  if (report.replay) {
    const r = report.replay;
    const verdict = r.same_verdict ? 'the same verdict' : `not the recorded verdict (${r.recorded_result})`;
    const turns = r.diverged ? `diverged at turn ${r.diverged.turn}: ${r.diverged.what}` : 'no divergence';
    lines.push(`  replay of ${r.from_run}: ${verdict}; ${turns}`);
  }
  // The first screen shows what the failing commands said last; the report has the rest.
  for (const tail of report.why?.output.slice(0, CONSOLE_TAILS) ?? []) {
    lines.push(`  last lines of ${tail.program} (${tail.role}, ${tail.stream}):`);
    for (const line of tail.lines.slice(-CONSOLE_TAIL_LINES)) lines.push(`    ${line}`);
  }
  lines.push(`  report: ${reportMd}`);
  return lines.map(oneLine).join('\n');
}

async function runManyTrials(
  io: CliIO,
  ctx: RunContext,
  cfg: ResolvedConfig,
  runOptions: RunOptions,
  trials: number,
  json: boolean,
): Promise<number> {
  const { runTrials } = await import('../../batch/trials.js');
  const t = await runTrials(ctx, cfg, runOptions, trials);
  const stop = stopReasonOf(ctx.signal);
  const allPassed = t.results.every((r) => r.report.result === 'PASS') && !stop;
  if (json) {
    io.out(
      JSON.stringify(
        {
          batch_id: t.summary.batch_id,
          batch_dir: t.batchDir,
          reliability: t.reliability,
          comparison: t.comparison,
          runs: t.results.map((r) => r.report),
        },
        null,
        2,
      ),
    );
    return stop?.kind === 'signal' ? signalExitCode(stop.signal) : allPassed ? 0 : 1;
  }
  for (const [i, r] of t.results.entries()) io.out(`trial ${i + 1}: ${summarise(r.report, r.reportMd)}`);
  const rel = t.reliability;
  const [lo, hi] = rel.wilson_95 ? [rel.wilson_95.low, rel.wilson_95.high] : [0, 0];
  io.out(
    `\n${rel.passes}/${rel.trials} passed (pass rate ${(rel.pass_rate ?? 0).toFixed(2)}, 95% Wilson interval ` +
      `${lo.toFixed(2)}–${hi.toFixed(2)}); pass@${trials} ${(rel.pass_at_k[trials] ?? 0).toFixed(2)}, ` +
      `pass^${trials} ${(rel.pass_pow_k[trials] ?? 0).toFixed(2)}`,
  );
  if (t.comparison) {
    const { renderComparison } = await import('./compare.js');
    io.out(`\n${renderComparison(t.comparison)}`);
  }
  io.out(
    t.summary.complete
      ? `\nbatch ${t.summary.batch_id}: ${path.join(t.batchDir, 'summary.html')}`
      : `\nincomplete: agentguard resume ${t.batchDir}`,
  );
  return stop?.kind === 'signal' ? signalExitCode(stop.signal) : allPassed ? 0 : 1;
}
