import type { ResolvedConfig } from '../config/schema.js';
import { RunStopped } from '../exec/interrupt.js';
import type { SpawnSpec } from '../exec/types.js';
import type { CommandLog } from './commands.js';
import type { Timeline } from './timeline.js';

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
  const failed = record.spawn_error
    ? `could not start: ${record.spawn_error}`
    : record.timed_out
      ? `timed out after setup_timeout_seconds (${cfg.setup_timeout_seconds}s)`
      : record.exit_code !== 0
        ? `exit ${record.exit_code ?? 'none'}`
        : null;
  timeline.add(
    'prepare',
    failed ? 'setup-failed' : 'setup-done',
    failed ?? `exit 0 in ${record.duration_ms} ms`,
  );
  if (failed)
    throw new RunStopped({
      kind: 'setup-failed',
      detail: `${failed}; its output is command ${record.id} in evidence/commands.jsonl`,
    });
}
