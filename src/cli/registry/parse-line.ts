import { buildCli } from '../build-cli.js';
import type { CommandSpec } from './index.js';

/**
 * Parse an `agentguard …` argv (without `agentguard`) as the CLI would, without running anything:
 * the command matched, its positional arguments and its flags. An unknown command or flag, or a
 * missing argument, throws the error a user would see. Used to check the examples of the help and
 * the docs against the registry.
 */
export function parseCommandLine(argv: readonly string[]): {
  spec: CommandSpec;
  args: string[];
  flags: Record<string, unknown>;
} {
  let seen: { spec: CommandSpec; params: unknown[] } | null = null;
  const cli = buildCli(null, (spec, params) => {
    seen = { spec, params };
  });
  cli.parse(['node', 'agentguard', ...argv], { run: false });
  cli.runMatchedCommand();
  if (seen === null) throw new Error(`agentguard ${argv.join(' ')}: no command matched`);
  const { spec, params } = seen as { spec: CommandSpec; params: unknown[] };
  const args = params
    .slice(0, -1)
    .flat()
    .filter((a) => a !== undefined)
    .map(String);
  return { spec, args, flags: params.at(-1) as Record<string, unknown> };
}
