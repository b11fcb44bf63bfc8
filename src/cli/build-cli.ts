import { type CAC, cac } from 'cac';
import { agentguardVersion } from '../version.js';
import { flagKey } from './flags.js';
import { commandHelp, groupHelp } from './help-groups.js';
import { COMMANDS, type CommandSpec, findCommand } from './registry/index.js';

/** Help built late for one command (its `lateHelp`): flag help by cac key, more description. */
export type LateHelp = { name: string; flags?: Record<string, string>; description?: string };

/** The command `--help` (or `-h`) asks about, as written in argv; `--output-dir`'s value is skipped. */
function helpTarget(argv: readonly string[]): CommandSpec | undefined {
  if (!argv.includes('--help') && !argv.includes('-h')) return undefined;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '--output-dir') i += 1;
    else if (!arg.startsWith('-')) return findCommand(arg);
  }
  return undefined;
}

/** The late help of the command whose help is asked for, loading only what that help needs. */
export async function lateHelpFor(argv: readonly string[]): Promise<LateHelp | null> {
  const spec = helpTarget(argv);
  if (spec?.lateHelp === undefined) return null;
  return { name: spec.name, ...(await spec.lateHelp()) };
}

/**
 * cac's parser for every registered command. Each command's action hands its positional
 * arguments and flags to `start`; nothing of the command's own module is loaded here.
 */
export function buildCli(late: LateHelp | null, start: (spec: CommandSpec, params: unknown[]) => void): CAC {
  const cli = cac('agentguard');
  cli.option('--output-dir <dir>', 'where runs, reports and history.db go (default: ./.agentguard)');
  for (const spec of COMMANDS) {
    const own = late?.name === spec.name ? late : null;
    const command = cli.command(spec.usage, spec.summary);
    if (spec.usageLine) command.usage(spec.usageLine);
    if (spec.ownsArgv) {
      command.allowUnknownOptions().action((...params: unknown[]) => start(spec, params));
      continue;
    }
    for (const flag of spec.flags) {
      command.option(flag.flag, own?.flags?.[flagKey(flag.flag)] ?? flag.help);
    }
    // cac gives a --no-X flag the default true and prints "(default: true)" beside "do not …",
    // which reads as the opposite of what happens; unset, the command reads `x !== false`.
    for (const option of command.options) if (option.negated) option.config.default = undefined;
    command.action((...params: unknown[]) => start(spec, params));
  }
  cli.help((sections) => {
    const matched = cli.matchedCommand ? findCommand(cli.matchedCommand.name) : undefined;
    if (!matched) return groupHelp(sections);
    const extra = late?.name === matched.name ? late.description : undefined;
    return commandHelp(sections, matched, extra ? `${matched.description} ${extra}` : matched.description);
  });
  cli.version(agentguardVersion());
  return cli;
}
