import { renameSync } from 'node:fs';
import path from 'node:path';
import type { ResolvedConfig } from '../config/schema.js';
import type {
  CommandRecord,
  GradingCopyEvidence,
  SentinelEvidence,
  TestEvidence,
  TestResults,
} from '../evidence/types.js';
import type { SpawnSpec } from '../exec/types.js';
import type { CommandLog } from './commands.js';
import { matchUnsafe } from './preflight.js';
import { planTestReport, readTestReport } from './test-reporting.js';
import { plantSentinels, sentinelRunner, sortSentinel } from './test-sentinel.js';
import type { Timeline } from './timeline.js';

export type TestPhase = {
  cfg: ResolvedConfig;
  repoDir: string;
  env: Record<string, string>;
  wrap: (spec: SpawnSpec) => SpawnSpec;
  commands: CommandLog;
  timeline: Timeline;
  /** How the harness grades a run it prepared; without it the tests run in the folder as it is (`ci`). */
  grading?: GradingSteps;
  /** The runner's report of its tests by name goes here (inside repoDir); without it none is asked for. */
  reportFile?: string;
};

export type GradingSteps = {
  /** Makes the grading copy in the folder it is given (`grading: copy`). */
  copy: (dest: string) => Promise<GradingCopyEvidence>;
  /** Puts the withheld grader files into a folder (`grading: in-place`: the agent's, after the diff). */
  placeGraderFiles: (dest: string) => number;
  /** The baseline's tracked files (paths relative to the workspace): where the sentinel test is planted. */
  trackedFiles?: () => Promise<string[]>;
  /** Told which of the copy's files the sentinel was appended to (they are the harness's change, not the agent's). */
  planted?: (dest: string, rels: readonly string[]) => Promise<void>;
  /** The tests the untouched baseline collects (`expected` of the results), or null when unknown. */
  expected?: () => Promise<TestResults['expected'] | null>;
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
  const expected = (await opts.grading?.expected?.()) ?? null;
  const withExpected = (e: TestEvidence): TestEvidence =>
    e.results && expected ? { ...e, results: { ...e.results, expected } } : e;
  if (!opts.grading) return { ...(await runTestCommand(opts)), grading: 'in-place' };
  if (cfg.grading === 'in-place') {
    // The diff is already taken: what is put into the agent's folder now is not counted as its work.
    opts.grading.placeGraderFiles(repoDir);
    return withExpected({ ...(await runTestCommand(opts)), grading: 'in-place' });
  }
  timeline.add('tests', 'grading-copy');
  const copyDir = path.join(path.dirname(repoDir), 'grading');
  let copy: GradingCopyEvidence;
  try {
    copy = await opts.grading.copy(copyDir);
  } catch (err) {
    const reason = `the grading copy could not be made: ${err instanceof Error ? err.message : String(err)}`;
    timeline.add('tests', 'failed', reason);
    return { ...notRun(reason), grading: 'copy' };
  }
  const sentinel = await plantSentinel(opts, copyDir);
  const evidence = await inFolderAt(copyDir, repoDir, () => runTestCommand(opts, 'tests', sentinel));
  return withExpected({ ...evidence, grading: 'copy', grading_copy: copy });
}

/**
 * The harness's failing sentinel test, planted in the grading copy's test files when the runner is
 * one whose report names its tests (see plantSentinels): the copy is the harness's, so the planted
 * text never reaches the agent's folder.
 */
async function plantSentinel(opts: TestPhase, copyDir: string): Promise<SentinelEvidence | undefined> {
  if (!opts.reportFile || !opts.grading?.trackedFiles) return undefined;
  const plan = planTestReport(opts.cfg.test_command, opts.reportFile);
  const runner = sentinelRunner(opts.cfg.test_command, plan.format);
  if (!runner) return undefined;
  const planted = plantSentinels(copyDir, await opts.grading.trackedFiles(), runner, opts.cfg.test_command);
  if (planted) opts.timeline.add('tests', 'sentinel', `${planted.files.length} test files`);
  if (planted) await opts.grading.planted?.(copyDir, planted.files);
  return planted ?? undefined;
}

/**
 * Run `fn` with `folder` standing at `place` (whose own folder waits beside it as `agent-repo`),
 * then put both back, whatever `fn` does.
 */
export async function inFolderAt<T>(folder: string, place: string, fn: () => Promise<T>): Promise<T> {
  const aside = path.join(path.dirname(place), 'agent-repo');
  renameSync(place, aside);
  try {
    renameSync(folder, place);
  } catch (err) {
    renameSync(aside, place);
    throw err;
  }
  try {
    return await fn();
  } finally {
    renameSync(place, folder);
    renameSync(aside, place);
  }
}

/** The argv the tests run with: the test command, with the runner asked for a report when it is one agentguard knows. */
export function testArgv(cfg: ResolvedConfig, reportFile: string | undefined): string[] {
  return reportFile ? planTestReport(cfg.test_command, reportFile).argv : cfg.test_command;
}

/** Run the test command once (as the tests, or as `baseline-tests` to learn the task's tests) and read its report. */
export async function runTestCommand(
  opts: Pick<TestPhase, 'cfg' | 'repoDir' | 'env' | 'wrap' | 'commands' | 'timeline' | 'reportFile'>,
  role: CommandRecord['role'] = 'tests',
  sentinel?: SentinelEvidence,
): Promise<TestEvidence> {
  const { cfg, commands, timeline } = opts;
  const plan = opts.reportFile ? planTestReport(cfg.test_command, opts.reportFile) : null;
  const argv = plan?.argv ?? cfg.test_command;
  if (role === 'tests') timeline.add('tests', 'started', argv.join(' ').slice(0, 200));
  const spec = { argv, cwd: opts.repoDir, env: opts.env };
  const { record, outcome } = await commands.run({
    role,
    spec: opts.wrap(spec),
    argv,
    display_argv: argv,
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
  if (plan && evidence.ran) evidence.results = readTestReport(plan, record);
  if (sentinel) {
    const results = sortSentinel(evidence.results ?? { format: null, cases: [] }, sentinel);
    evidence.results = results;
    // With the sentinel in place the honest status is the runner's "a test failed", and only the
    // sentinel may have failed; anything else is judged by tests-pass, by name.
    evidence.passed =
      !record.timed_out &&
      record.exit_code === sentinel.exit_code &&
      results.format !== null &&
      results.sentinel !== undefined &&
      results.sentinel.failed.length > 0 &&
      results.sentinel.passed.length === 0 &&
      !results.cases.some((c) => c.status === 'failed');
  }
  if (record.spawn_error) evidence.reason = record.spawn_error;
  else if (outcome?.aborted) evidence.reason = 'stopped by the harness before the tests finished';
  else if (record.timed_out)
    evidence.reason = `timed out after test_timeout_seconds (${cfg.test_timeout_seconds}s)`;
  if (role === 'tests') {
    timeline.add(
      'tests',
      evidence.passed ? 'passed' : 'failed',
      evidence.reason ?? `exit ${record.exit_code}`,
    );
  }
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
