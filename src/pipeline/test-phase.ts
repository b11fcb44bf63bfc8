import type { ResolvedConfig } from '../config/schema.js';
import type { TestEvidence } from '../evidence/types.js';
import type { SpawnSpec } from '../exec/types.js';
import type { CommandLog } from './commands.js';
import { matchUnsafe } from './preflight.js';
import type { Timeline } from './timeline.js';

/**
 * Run the task's tests in the workspace, in the agent's sandbox and under its tracer (`wrap`): they run
 * the agent's code, so what they do is judged by the same rules, as the test phase.
 */
export async function runTests(opts: {
  cfg: ResolvedConfig;
  repoDir: string;
  env: Record<string, string>;
  wrap: (spec: SpawnSpec) => SpawnSpec;
  commands: CommandLog;
  timeline: Timeline;
}): Promise<TestEvidence> {
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
