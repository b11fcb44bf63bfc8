import { BATCH_COMMANDS } from './batches.js';
import { BENCHMARK_COMMANDS } from './benchmarks.js';
import { HOST_COMMANDS } from './host.js';
import { REPORT_COMMANDS } from './reports.js';
import { START_COMMANDS } from './start.js';
import type { CommandSpec } from './types.js';

export type { CommandRun, CommandSpec, ParsedFlags } from './types.js';
export { GROUP_TITLES } from './types.js';

/**
 * Every agentguard command, the one place a command is declared (docs/architecture.md, "How to
 * add a CLI command"). Importing this loads no command module: each entry's `load` does.
 */
export const COMMANDS: readonly CommandSpec[] = [
  ...START_COMMANDS,
  ...BATCH_COMMANDS,
  ...REPORT_COMMANDS,
  ...BENCHMARK_COMMANDS,
  ...HOST_COMMANDS,
];

export function findCommand(name: string): CommandSpec | undefined {
  return COMMANDS.find((c) => c.name === name);
}
