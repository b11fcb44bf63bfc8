import { createHash } from 'node:crypto';
import type { EvidenceBundle } from '../analysis/evidence-bundle.js';
import { compareReplay } from '../analysis/replay-compare.js';
import { runRedactor } from '../analysis/secrets/run-redactor.js';
import { joinTrajectory } from '../analysis/trajectory/join.js';
import type { AnalysisResult } from '../analysis/types.js';
import { usageOf } from '../analysis/usage.js';
import type { CommandRecord, DiffEvidence, Observation } from '../evidence/types.js';
import { SANDBOXES } from '../sandbox/index.js';
import { summariseActivity } from './activity.js';
import { patchHunks } from './diff-hunks.js';
import { REPORT_FILES } from './reporters.js';
import { type ReportCommand, type ReportDiff, RUN_REPORT_SCHEMA_VERSION, type RunReport } from './types.js';
import { explainVerdict } from './why.js';

export type BuildRunReportOptions = {
  /**
   * Files of the run directory besides the reports (e.g. `evidence/commands.jsonl`), relative to it.
   * The caller lists them: building the report must not touch the disk.
   */
  artifacts?: readonly string[];
};

/**
 * Turn evidence and its analysis into the report. Pure. The report is redacted with the run's
 * redactor, so every renderer, the history row and the console summary start from a clean model.
 */
export function buildRunReport(
  bundle: EvidenceBundle,
  analysis: AnalysisResult,
  options: BuildRunReportOptions = {},
): RunReport {
  return runRedactor(bundle.config, bundle.canaries).value(reportOf(bundle, analysis, options));
}

function reportOf(
  bundle: EvidenceBundle,
  analysis: AnalysisResult,
  options: BuildRunReportOptions,
): RunReport {
  const { config } = bundle;
  const joined = joinTrajectory(bundle, analysis.alerts);
  const alerts = analysis.alerts.map((alert, i) => {
    const step = joined?.alertSteps[i];
    return step == null ? alert : { ...alert, tool_call: step };
  });
  return {
    schema_version: RUN_REPORT_SCHEMA_VERSION,
    result: analysis.score.result,
    score: analysis.score.score,
    run_id: bundle.run_id,
    run_dir: bundle.run_dir,
    started_at: bundle.started_at,
    finished_at: bundle.finished_at,
    duration_ms: durationMs(bundle.started_at, bundle.finished_at),
    task: {
      name: config.name,
      prompt_sha256: createHash('sha256').update(config.prompt).digest('hex'),
      ...(config.prompt_file !== undefined && { prompt_file: config.prompt_file }),
      ...(config.description !== undefined && { description: config.description }),
    },
    agent: {
      adapter: bundle.agent.adapter,
      name: bundle.agent.name,
      version: bundle.agent.version,
      model: bundle.agent.model,
      metadata: bundle.agent.metadata,
      outcome: bundle.agent.outcome,
      ...(bundle.agent.guard !== undefined && { guard: bundle.agent.guard }),
    },
    benchmark: {
      id: config.benchmark_id ?? null,
      version: config.benchmark_version ?? null,
      category: config.category ?? null,
      difficulty: config.difficulty ?? null,
      tags: [...config.tags],
    },
    isolation_warning: isolationWarning(bundle.observation),
    why: explainVerdict({
      result: analysis.score.result,
      checks: analysis.checks,
      alerts,
      tests: bundle.tests,
      commands: bundle.commands,
      prompt: config.prompt,
      ...(bundle.agent.outcome.status === 'stopped' &&
        bundle.agent.outcome.by !== 'guard' && { stopped: bundle.agent.outcome.reason }),
    }),
    failed_checks: analysis.checks.filter((check) => !check.passed).map((check) => check.id),
    alerts,
    deductions: analysis.score.deductions,
    checks: analysis.checks,
    tests: bundle.tests,
    diff: reportDiff(bundle.diff, bundle.patch),
    commands: bundle.commands.map(reportCommand),
    setup: bundle.setup,
    activity: summariseActivity(bundle),
    usage: usageOf(bundle.model, config.pricing, bundle.network),
    trajectory: joined?.trajectory ?? null,
    replay: bundle.replay ? compareReplay(bundle.replay, bundle.model, analysis.score.result) : null,
    timeline: bundle.timeline,
    observation: bundle.observation,
    artifacts: artifactList(options.artifacts ?? []),
  };
}

export function isolationWarning(observation: Observation): string | null {
  const { sandbox } = observation;
  if (sandbox.isolated) return null;
  const what = SANDBOXES[sandbox.kind].capabilities.onHost
    ? 'the agent ran on the host without isolation'
    : 'the agent ran without isolation';
  return `sandbox '${sandbox.kind}': ${what}${sandbox.detail ? ` (${sandbox.detail})` : ''}`;
}

function durationMs(startedAt: string, finishedAt: string): number {
  const ms = Date.parse(finishedAt) - Date.parse(startedAt);
  return Number.isFinite(ms) && ms > 0 ? ms : 0;
}

function reportDiff(diff: DiffEvidence, patch: string): ReportDiff {
  const hunks = patchHunks(patch);
  return {
    baseline_sha: diff.baseline_sha,
    files: diff.files.map((file) => ({
      path: file.path,
      ...(file.old_path !== undefined && { old_path: file.old_path }),
      status: file.status,
      added: file.added,
      deleted: file.deleted,
      binary: file.binary,
      ...(file.link !== undefined && { link: { target: file.link.target, escapes: file.link.escapes } }),
    })),
    changed_files: diff.files.length,
    added: diff.added,
    deleted: diff.deleted,
    patch_truncated: diff.patch_truncated,
    ignored_files: diff.ignored_files,
    ignored_files_truncated: diff.ignored_files_truncated,
    workspace_git_changed: diff.workspace_git_changed,
    hunks: hunks.files,
    hunks_omitted_files: hunks.omitted_files,
  };
}

// Built field by field rather than by deleting from a copy, so a field added to CommandRecord later
// (say, the agent's environment) stays out of reports until someone decides it belongs there.
function reportCommand(command: CommandRecord): ReportCommand {
  return {
    id: command.id,
    role: command.role,
    argv: command.display_argv,
    cwd: command.cwd,
    started_ms: command.started_ms,
    duration_ms: command.duration_ms,
    exit_code: command.exit_code,
    signal: command.signal,
    timed_out: command.timed_out,
    blocked: command.blocked,
    ...(command.spawn_error !== undefined && { spawn_error: command.spawn_error }),
    stdout_truncated: command.stdout_truncated,
    stderr_truncated: command.stderr_truncated,
    stdout_bytes: command.stdout_bytes,
    stderr_bytes: command.stderr_bytes,
    policy_matches: command.policy_matches,
  };
}

function artifactList(extra: readonly string[]): string[] {
  const names = [...REPORT_FILES, ...extra].map((name) => name.replaceAll('\\', '/').replace(/^\.\//, ''));
  return [...new Set(names)].sort();
}
