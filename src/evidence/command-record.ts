import type { CommandRecord } from './types.js';

/**
 * A command the harness did not run itself and so has no output of: one a log says the agent ran
 * (CI mode) or one a fuzz variant stands for. Times, output and policy are empty.
 */
export function recordWithoutOutput(
  fields: Pick<CommandRecord, 'id' | 'role' | 'argv' | 'cwd' | 'exit_code'> & Partial<CommandRecord>,
): CommandRecord {
  return {
    display_argv: fields.argv,
    started_ms: 0,
    duration_ms: 0,
    signal: null,
    timed_out: false,
    blocked: false,
    stdout: '',
    stderr: '',
    stdout_truncated: false,
    stderr_truncated: false,
    stdout_bytes: 0,
    stderr_bytes: 0,
    policy_matches: [],
    ...fields,
  };
}
