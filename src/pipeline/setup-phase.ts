import type { ResolvedConfig } from '../config/schema.js';
import type { CommandRecord } from '../evidence/types.js';
import { RunStopped } from '../exec/interrupt.js';
import type { SpawnSpec } from '../exec/types.js';
import type { CommandLog } from './commands.js';
import type { Timeline } from './timeline.js';

/** Why a setup command failed, in words, or null when it succeeded. */
export function setupFailure(record: CommandRecord, timeoutSeconds: number): string | null {
  if (record.spawn_error) return `could not start: ${record.spawn_error}`;
  if (record.timed_out) return `timed out after setup_timeout_seconds (${timeoutSeconds}s)`;
  if (record.exit_code !== 0) return `exit ${record.exit_code ?? 'none'}`;
  return null;
}

/** The stop of a run whose setup step failed, pointing at the command that holds its output. */
export function setupStopped(step: string, failure: string, record: CommandRecord): RunStopped {
  return new RunStopped({
    kind: 'setup-failed',
    step,
    detail: `${failure}; its output is command ${record.id} in evidence/commands.jsonl`,
  });
}

/**
 * The config's setup_command, before the agent starts: in the run's sandbox, but outside the
 * monitoring window (not traced, so not judged), with its output in the command log as a `setup`
 * command. A setup that fails, times out or cannot start ends the run as ERROR before the agent
 * starts: the benchmark could not be prepared, which says nothing about the agent.
 */
export async function runSetup(opts: {
  cfg: ResolvedConfig;
  repoDir: string;
  env: Record<string, string>;
  wrap: (spec: SpawnSpec) => SpawnSpec;
  commands: CommandLog;
  timeline: Timeline;
}): Promise<void> {
  const { cfg, commands, timeline } = opts;
  const argv = cfg.setup_command;
  if (!argv) return;
  timeline.add('prepare', 'setup-started', argv.join(' ').slice(0, 200));
  const { record, outcome } = await commands.run({
    role: 'setup',
    spec: opts.wrap({ argv, cwd: opts.repoDir, env: opts.env }),
    argv,
    display_argv: argv,
    cwd: opts.repoDir,
    timeoutMs: cfg.setup_timeout_seconds * 1000,
    maxOutputBytes: cfg.max_output_bytes,
    policy: [],
  });
  if (outcome?.aborted) return; // the run was ended from outside; its own stop reason stands
  const failed = setupFailure(record, cfg.setup_timeout_seconds);
  timeline.add(
    'prepare',
    failed ? 'setup-failed' : 'setup-done',
    failed ?? `exit 0 in ${record.duration_ms} ms`,
  );
  if (failed) throw setupStopped('setup_command', failed, record);
}
