import type { CliIO } from '../../io-types.js';
import type { FlagSpec } from '../flags.js';

/** The flags of one invocation as cac parsed them (camel-cased names; numbers already numbers). */
export type ParsedFlags = { [flag: string]: unknown };

/**
 * A command's work: its positional arguments in order (an action first) and its flags, or its whole
 * argv for a command that parses its own; `stop` settles when the process is asked to stop.
 */
export type CommandRun = (
  io: CliIO,
  args: string[],
  flags: ParsedFlags,
  stop?: Promise<unknown>,
) => Promise<number> | number;

/** The titles of the top-level help, in the order shown. */
export const GROUP_TITLES = [
  'Start here',
  'Batches',
  'Reports',
  'CI',
  'Benchmarks',
  'Agents',
  'Host and diagnostics',
] as const;
export type GroupTitle = (typeof GROUP_TITLES)[number];

/**
 * One CLI command: everything the parser, the help, "did you mean" and the output-folder check
 * need, without its module. `load` imports the module (and its dependencies) only when the command
 * runs, so `--version`, `--help` and every other command start without it.
 */
export type CommandSpec = {
  name: string;
  /** cac's usage: the name and its positional arguments, `<required>`, `[optional]`, `[...rest]`. */
  usage: string;
  group: GroupTitle;
  /** One line, shown in the top-level help. */
  summary: string;
  /** What the command does and when to use it, shown by `<command> --help`. */
  description: string;
  /** Whole command lines, `agentguard …`, at least two; a test parses each against the flags. */
  examples: readonly string[];
  flags: readonly FlagSpec[];
  /** A command whose first argument is an action: each action with one line of help. */
  actions?: Readonly<Record<string, string>>;
  /** The fix said when the action is unknown. */
  actionFix?: string;
  /**
   * The command writes under --output-dir (./.agentguard when not given): the folder is checked
   * before the command's module loads, the one place this is checked. A function says it per
   * invocation, from the positional arguments (an action first) and the flags: `diagnostics
   * mutations --list` writes nothing; `ci` checks its own default folder, the checkout's.
   */
  writesRuns?: boolean | ((args: readonly string[], flags: ParsedFlags) => boolean);
  /** Help that needs a heavy module (a registry of sandboxes, schema kinds), built only when shown. */
  lateHelp?: () => Promise<{ flags?: Record<string, string>; description?: string }>;
  /** Replaces cac's usage line where the command parses its own flags (model-server). */
  usageLine?: string;
  /** The command parses its own argv (and its own --help): it gets everything after its name. */
  ownsArgv?: boolean;
  load: () => Promise<CommandRun>;
};
