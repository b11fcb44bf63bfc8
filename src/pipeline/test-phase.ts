import { renameSync } from 'node:fs';
import path from 'node:path';
import type { ResolvedConfig } from '../config/schema.js';
import type { GradingCopyEvidence, TestEvidence } from '../evidence/types.js';
import type { SpawnSpec } from '../exec/types.js';
import type { CommandLog } from './commands.js';
import { matchUnsafe } from './preflight.js';
import type { Timeline } from './timeline.js';

type TestPhase = {
  cfg: ResolvedConfig;
  repoDir: string;
  env: Record<string, string>;
  wrap: (spec: SpawnSpec) => SpawnSpec;
  commands: CommandLog;
  timeline: Timeline;
  /** How the harness grades a run it prepared; without it the tests run in the folder as it is (`ci`). */
  grading?: GradingSteps;
};

export type GradingSteps = {
  /** Makes the grading copy in the folder it is given (`grading: copy`). */
  copy: (dest: string) => GradingCopyEvidence;
  /** Puts the withheld grader files into a folder (`grading: in-place`: the agent's, after the diff). */
  placeGraderFiles: (dest: string) => number;
};

/**
 * Run the task's tests in the agent's sandbox and under its tracer (`wrap`): they run the agent's
 * code, so what they do is judged by the same rules, as the test phase. With `grading: copy` they
 * run in a grading copy the harness made (the baseline with the agent's allowed changes, the grader
 * files and the unchanged dependencies), put for the tests' time at the workspace's path so the
 * sandbox shows it where it showed the workspace; the agent's folder waits beside it, untouched.
 */
export async function runTests(opts: TestPhase): Promise<TestEvidence> {
  const { cfg, repoDir, timeline } = opts;
  if (!opts.grading) return { ...(await runTestCommand(opts)), grading: 'in-place' };
  if (cfg.grading === 'in-place') {
    // The diff is already taken: what is put into the agent's folder now is not counted as its work.
    opts.grading.placeGraderFiles(repoDir);
    return { ...(await runTestCommand(opts)), grading: 'in-place' };
  }
  const runDir = path.dirname(repoDir);
  const copyDir = path.join(runDir, 'grading');
  const agentDir = path.join(runDir, 'agent-repo');
  timeline.add('tests', 'grading-copy');
  let copy: GradingCopyEvidence;
  try {
    copy = opts.grading.copy(copyDir);
  } catch (err) {
    const reason = `the grading copy could not be made: ${err instanceof Error ? err.message : String(err)}`;
    timeline.add('tests', 'failed', reason);
    return { ...notRun(reason), grading: 'copy' };
  }
  renameSync(repoDir, agentDir);
  try {
    renameSync(copyDir, repoDir);
  } catch (err) {
    renameSync(agentDir, repoDir);
    throw err;
  }
  try {
    return { ...(await runTestCommand(opts)), grading: 'copy', grading_copy: copy };
  } finally {
    renameSync(repoDir, copyDir);
    renameSync(agentDir, repoDir);
  }
}

async function runTestCommand(opts: TestPhase): Promise<TestEvidence> {
  const { cfg, commands, timeline } = opts;
  timeline.add('tests', 'started', cfg.test_command.join(' ').slice(0, 200));
  const spec = { argv: cfg.test_command, cwd: opts.repoDir, env: opts.env };
  const { record, outcome } = await commands.run({
    role: 'tests',
    spec: opts.wrap(spec),
    argv: cfg.test_command,
    display_argv: cfg.test_command,
    cwd: opts.repoDir,
    timeoutMs: cfg.test_timeout_seconds * 1000,
    maxOutputBytes: cfg.max_output_bytes,
    policy: matchUnsafe(cfg.test_command, cfg.unsafe_commands, 'audit'),
  });
  const evidence: TestEvidence = {
    ran: record.spawn_error === undefined,
    passed: record.exit_code === 0 && !record.timed_out,
    exit_code: record.exit_code,
    timed_out: record.timed_out,
    duration_ms: record.duration_ms,
    command_id: record.id,
  };
  if (record.spawn_error) evidence.reason = record.spawn_error;
  else if (outcome?.aborted) evidence.reason = 'stopped by the harness before the tests finished';
  else if (record.timed_out)
    evidence.reason = `timed out after test_timeout_seconds (${cfg.test_timeout_seconds}s)`;
  timeline.add('tests', evidence.passed ? 'passed' : 'failed', evidence.reason ?? `exit ${record.exit_code}`);
  return evidence;
}

function notRun(reason: string): TestEvidence {
  return {
    ran: false,
    passed: false,
    exit_code: null,
    timed_out: false,
    duration_ms: 0,
    command_id: null,
    reason,
  };
}
