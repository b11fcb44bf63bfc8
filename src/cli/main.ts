#!/usr/bin/env node

import { realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AgentGuardError, ConfigError, errorMessage, formatIssue } from '../errors.js';
import { disposeAll } from '../exec/disposer.js';
import { killActiveGroups } from '../exec/run-command.js';
import { requestShutdown, shutdownObserved, signalExitCode } from '../exec/shutdown.js';
import { buildCli, lateHelpFor } from './build-cli.js';
import { type CliIO, processIO } from './io.js';
import { checkOutputDir } from './output-dir.js';
import { COMMANDS, type CommandSpec, findCommand, type ParsedFlags } from './registry/index.js';
import { notACommand, UsageError } from './usage-error.js';

/** Parse argv, run one command, and return the exit code: 0 pass, 1 evaluated and failed, 2 usage/config/setup. */
export async function main(argv: string[], io: CliIO = processIO, stop?: Promise<unknown>): Promise<number> {
  try {
    const args = helpCommand(argv);
    const own = findCommand(args[0] ?? '');
    // A command that owns its flags (model-server) gets its argv as it is, --help included.
    if (own?.ownsArgv) return await (await own.load())(io, args.slice(1), {}, stop);
    let pending: Promise<number> | null = null;
    const cli = buildCli(await lateHelpFor(args), (spec, params) => {
      pending = runCommand(io, spec, params);
    });
    cli.parse(['node', 'agentguard', ...args], { run: false });
    if (!cli.matchedCommand) {
      if (cli.options.help || cli.options.version) return 0;
      if (cli.args.length > 0)
        throw notACommand({
          typed: String(cli.args[0]),
          known: COMMANDS.map((c) => c.name),
          fix: "see 'agentguard --help'.",
        });
      cli.outputHelp();
      return 2;
    }
    await cli.runMatchedCommand();
    if (pending === null) return 0;
    return await pending;
  } catch (err) {
    return reportError(io, err);
  }
}

/** `agentguard help` is `--help`, `agentguard help CMD …` is `CMD … --help`; an unknown CMD gets "did you mean". */
function helpCommand(argv: string[]): string[] {
  if (argv[0] !== 'help') return argv;
  const [, name, ...rest] = argv;
  if (name === undefined || name.startsWith('-')) return ['--help'];
  if (!findCommand(name))
    throw notACommand({ typed: name, known: COMMANDS.map((c) => c.name), fix: "see 'agentguard --help'." });
  return [name, ...rest, '--help'];
}

/**
 * One command, from cac's action arguments (positionals, a variadic one as an array, then the
 * flags): an unknown action is refused before anything loads, then the command's module is loaded
 * and run.
 */
async function runCommand(io: CliIO, spec: CommandSpec, params: unknown[]): Promise<number> {
  // Reached through cac only when something came before its name (`--output-dir X model-server`).
  if (spec.ownsArgv)
    throw new UsageError(
      `'${spec.name}' reads its own flags, so it must come first. Fix: agentguard ${spec.usageLine ?? spec.name}.`,
    );
  const flags = (params.at(-1) ?? {}) as ParsedFlags;
  const args = params
    .slice(0, -1)
    .flat()
    .filter((a) => a !== undefined)
    .map(String);
  if (spec.actions) {
    const [action = '', ...rest] = args;
    if (!Object.hasOwn(spec.actions, action))
      throw notACommand({
        command: spec.name,
        typed: action,
        rest,
        known: Object.keys(spec.actions),
        fix: spec.actionFix ?? `see 'agentguard ${spec.name} --help'.`,
      });
  }
  const writes = typeof spec.writesRuns === 'function' ? spec.writesRuns(args, flags) : spec.writesRuns;
  if (writes) {
    const flag = flags.outputDir;
    checkOutputDir(path.resolve(flag === undefined ? '.agentguard' : String(flag)), flag !== undefined);
  }
  const run = await spec.load();
  return run(io, args, flags);
}

function reportError(io: CliIO, err: unknown): number {
  if (err instanceof ConfigError && err.issues.length > 0) {
    // One line per issue, each a whole sentence naming its file and field.
    for (const issue of err.issues) io.err(`agentguard: ${formatIssue(issue)}`);
  } else if (err instanceof AgentGuardError || err instanceof UsageError) {
    io.err(`agentguard: ${err.message}`);
  } else if (err instanceof Error && err.name === 'CACError') {
    io.err(`agentguard: ${err.message}. Fix: see 'agentguard --help'.`);
  } else {
    io.err(`agentguard: internal error: ${errorMessage(err)}`);
    if (process.env.AGENTGUARD_DEBUG && err instanceof Error) io.err(err.stack ?? '');
  }
  return 2;
}

/** How long a run may take to write its evidence after a signal before it is forced down. */
const FORCE_AFTER_MS = 30_000;
const EXIT_GRACE_MS = 5_000;

/** What may keep the process a little while after a run: killed children (bpftrace) dying. */
const DYING_CHILD = new Set(['PipeWrap', 'ProcessWrap', 'TTYWrap', 'Timeout', 'FSReqCallback']);

/**
 * Everything a command acquired is released when it returns. If a handle still keeps the process
 * alive, end it rather than hang: at once after EXIT_GRACE_MS for a server or socket left open
 * (a bug, said so), or after FORCE_AFTER_MS for a killed child that is slow to die.
 */
function exitWhenDrained(code: number, since: number): void {
  setTimeout(() => {
    const open = process.getActiveResourcesInfo().filter((r) => r !== 'Timeout' && r !== 'TTYWrap');
    const onlyDying = open.every((r) => DYING_CHILD.has(r));
    if (onlyDying && Date.now() - since < FORCE_AFTER_MS) return exitWhenDrained(code, since);
    if (!onlyDying)
      process.stderr.write(
        `agentguard: internal error: still open at exit (${open.join(', ')}); exiting anyway\n`,
      );
    process.exit(code);
  }, EXIT_GRACE_MS).unref();
}

async function forceExit(signal: NodeJS.Signals): Promise<void> {
  killActiveGroups('SIGKILL');
  await Promise.race([disposeAll(), new Promise((r) => setTimeout(r, 10_000))]);
  killActiveGroups('SIGKILL');
  process.exit(signalExitCode(signal));
}

function isEntryPoint(): boolean {
  try {
    return realpathSync(process.argv[1] ?? '') === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  const args = process.argv.slice(2);
  let stop: Promise<unknown> | undefined;
  if (args[0] === 'model-server') {
    stop = new Promise((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
  } else {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
      process.on(signal, () => {
        // A run winds down by itself: it ends its step, writes its evidence and releases what it
        // holds. A second signal, a command that does not wind down, or a wind-down that takes too
        // long gets the hard way: release everything still held, kill every child group, exit.
        const first = requestShutdown(signal);
        if (first && shutdownObserved()) {
          setTimeout(() => void forceExit(signal), FORCE_AFTER_MS).unref();
          return;
        }
        void forceExit(signal);
      });
    }
  }
  main(args, processIO, stop).then(
    (code) => {
      process.exitCode = code;
      exitWhenDrained(code, Date.now());
    },
    (err) => {
      process.stderr.write(`agentguard: internal error: ${errorMessage(err)}\n`);
      process.exitCode = 2;
    },
  );
}
