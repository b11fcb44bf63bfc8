#!/usr/bin/env node

import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { cac } from 'cac';
import { AGENT_NAMES } from '../agents/index.js';
import { runModelServerCli } from '../agents/model-server/cli.js';
import { AgentGuardError, ConfigError, errorMessage, formatIssue } from '../errors.js';
import { disposeAll } from '../exec/disposer.js';
import { killActiveGroups } from '../exec/run-command.js';
import { requestShutdown, shutdownObserved, signalExitCode } from '../exec/shutdown.js';
import { agentguardVersion } from '../version.js';
import { agentsInstall, agentsList, agentsVerify } from './commands/agents.js';
import { analyzeCommand } from './commands/analyze.js';
import { registerAudit } from './commands/audit.js';
import { registerBatchCommands } from './commands/batch-commands.js';
import { registerBenchmarkOverhead } from './commands/benchmark-overhead.js';
import { registerBenchmarks } from './commands/benchmarks-fuzz.js';
import { checksCommand } from './commands/checks.js';
import { ciCommand, registerCi } from './commands/ci.js';
import { registerCollector } from './commands/collector.js';
import { compareCommand } from './commands/compare.js';
import { demoCommand } from './commands/demo.js';
import { registerDiagnostics } from './commands/diagnostics.js';
import { doctorCommand } from './commands/doctor.js';
import { registerInit } from './commands/init.js';
import { registerPack } from './commands/pack.js';
import { registerRegistry } from './commands/registry.js';
import { reportsBatches, reportsExport, reportsList, reportsShow } from './commands/reports.js';
import { reportsIncidents, reportsTrends } from './commands/reports-aggregates.js';
import { reportsSite } from './commands/reports-site.js';
import { rulesCoverage } from './commands/rules.js';
import { runCommand } from './commands/run.js';
import { traceReplay, traceReplayability, traceShow, traceVerify } from './commands/trace.js';
import { registerView } from './commands/view.js';
import { registerWorker } from './commands/worker.js';
import { groupHelp } from './help-groups.js';
import { type CliIO, processIO } from './io.js';
import { DEFAULT_SANDBOX, SANDBOX_OPTION, TRACER_OPTION } from './kind-help.js';
import { checkOutputDirFor } from './output-dir.js';
import { runFolderArg } from './run-folder-arg.js';
import { notACommand, UsageError } from './usage-error.js';

/** Parse argv, run one command, and return the exit code: 0 pass, 1 evaluated and failed, 2 usage/config/setup. */
export async function main(argv: string[], io: CliIO = processIO, stop?: Promise<unknown>): Promise<number> {
  // The model server owns its flags and runs until stopped; it is a long-lived helper, not a verdict.
  if (argv[0] === 'model-server') {
    const forever = stop ?? new Promise(() => {});
    return runModelServerCli(argv.slice(1), io, forever);
  }
  const cli = cac('agentguard');
  let pending: Promise<number> | null = null;
  const start = (p: () => Promise<number>) => {
    pending = p();
  };

  cli.option('--output-dir <dir>', 'where runs, reports and history.db go (default: ./.agentguard)');

  cli
    .command('run <config>', 'run an agent on a benchmark task and judge it from evidence')
    .option('--agent <name>', `agent adapter: ${AGENT_NAMES.join(', ')} (default: agent-command)`)
    .option(
      '--sandbox <kind>',
      `${SANDBOX_OPTION} (overrides the config; default: ${DEFAULT_SANDBOX} where it works)`,
    )
    .option('--tracer <kind>', `${TRACER_OPTION} (overrides the config; default: auto)`)
    .option(
      '--guard <mode>',
      'live security rules: audit (print alerts as they happen; default), enforce (also stop the agent on a critical alert), off',
    )
    .option('--trials <n>', 'independent runs, each in its own directory, then reliability and similarity')
    .option('--json', 'print exactly report.json on stdout (with --trials: runs, reliability, comparison)')
    .option(
      '--dry-run',
      'check everything and print the sanitised plan (prompt hash, env names); run nothing',
    )
    .option(
      '--allow-below-floor',
      'let a config from a pack run below the isolation floor (sandbox local, tracer off, host network)',
    )
    .action((config: string, opts) => start(() => runCommand(io, config, opts)));

  cli
    .command(
      'compare <runDir> [...more]',
      'compare runs by their star graphs: similarity, outlier, what differs',
    )
    .option('--json', 'machine-readable output (includes homogeneous_wins_share across tasks)')
    .option(
      '--html <file>',
      'also write the comparison as a self-contained HTML page (heat map, graphs side by side)',
    )
    .action((first: string, more: string[], opts) =>
      start(() =>
        compareCommand(
          io,
          [first, ...more].map((run) => runFolderArg(run, opts)),
          opts,
        ),
      ),
    );

  registerCi(cli, (opts) => start(() => ciCommand(io, opts)));
  registerRegistry(cli, io, start);
  registerAudit(cli, io, start);
  registerPack(cli, io, start);

  cli
    .command('doctor', 'show which sandboxes, tracers and network modes work here, and how to fix the rest')
    .option('--json', 'machine-readable output')
    .action((opts) => start(() => doctorCommand(io, opts)));

  cli
    .command('analyze <runDir>', 're-derive checks, score and reports from a run directory, running nothing')
    .option('--config <file>', 'judge the stored evidence under the policy of another config')
    .option('--json', 'print exactly report.json on stdout')
    .action((runDir: string, opts) => start(() => analyzeCommand(io, runFolderArg(runDir, opts), opts)));

  cli
    .command('demo', 'run the built-in benchmark tasks with every mock agent and print a summary')
    .option('--jobs <n>', 'runs at a time (default: 2, or 1 on a one-core machine)')
    .action((opts) => start(() => demoCommand(io, opts)));

  cli
    .command(
      'agents <action> [...names]',
      "install pinned agent CLIs into agentguard's cache (install NAME…), list them (list), or run one offline on a smoke task (verify NAME)",
    )
    .option('--json', 'machine-readable output')
    .action((action: string, names: string[], opts) =>
      start(() => {
        if (action === 'install' && names.length > 0) return agentsInstall(io, names, opts);
        if (action === 'list') return agentsList(io, opts);
        if (action === 'verify' && names.length === 1) return agentsVerify(io, names[0] as string, opts);
        throw notACommand({
          command: 'agents',
          typed: action,
          rest: names,
          known: ['install', 'list', 'verify'],
          fix: "use 'agents install NAME', 'agents list' or 'agents verify NAME'.",
        });
      }),
    );

  cli
    .command(
      'rules <action>',
      'show which default rule covers each behaviour of the public catalogue (coverage)',
    )
    .option('--json', 'machine-readable output')
    .option('--markdown', 'the docs/rules-coverage.md page')
    .action((action: string, opts) =>
      start(() => {
        if (action === 'coverage') return rulesCoverage(io, opts);
        throw notACommand({
          command: 'rules',
          typed: action,
          known: ['coverage'],
          fix: "use 'rules coverage'.",
        });
      }),
    );

  cli
    .command('checks', 'list the checks: default severity, the config keys they judge by, what passing means')
    .option('--json', 'machine-readable output')
    .option('--markdown', 'the checks table of docs/config.md')
    .action((opts) => start(() => checksCommand(io, opts)));

  cli
    .command(
      'reports <action> [runIdOrDir]',
      'list recorded runs (list), print one report (show RUN_ID), list batches (batches), export runs (export), pass rate and score over time (trends), alerts by rule (incidents), a static site (site OUT_DIR)',
    )
    .option('--limit <n>', 'the newest n runs (default: 20; export, trends, incidents, site: all)')
    .option('--batch <id>', 'only the runs of this batch')
    .option('--agent <name>', 'only runs of this agent')
    .option('--task <name>', 'only runs of this task')
    .option('--benchmark <id>', 'only runs of this benchmark id')
    .option('--result <PASS|FAIL|ERROR>', 'only runs with this result')
    .option('--check <id>', 'only runs where this check failed')
    .option('--rule <id>', 'only runs with an alert of this rule')
    .option('--since <date>', 'only runs started at or after this date or time')
    .option('--until <date>', 'only runs started before this date or time')
    .option('--format <json|csv>', 'export: the format (default: json)')
    .option('--by <day|benchmark>', 'trends: per UTC day (default) or per benchmark version')
    .option('--json', 'machine-readable output')
    .action((action: string, runId: string | undefined, opts) =>
      start(() => {
        if (action === 'list') return reportsList(io, opts);
        if (action === 'export') return reportsExport(io, opts);
        if (action === 'trends') return reportsTrends(io, opts);
        if (action === 'incidents') return reportsIncidents(io, opts);
        if (action === 'site') return reportsSite(io, runId, opts);
        if (action === 'show' && runId) return reportsShow(io, runId, opts);
        if (action === 'batches') return reportsBatches(io, opts);
        throw notACommand({
          command: 'reports',
          typed: action,
          known: ['list', 'show', 'batches', 'export', 'trends', 'incidents', 'site'],
          fix: "use 'reports list', 'reports show RUN_ID', 'reports batches', 'reports export', 'reports trends', 'reports incidents' or 'reports site OUT_DIR'.",
        });
      }),
    );

  registerBatchCommands(cli, io, start);
  registerInit(cli, io, start);
  registerWorker(cli, io, start);
  registerCollector(cli, io, start);
  registerDiagnostics(cli, io, start);
  registerBenchmarks(cli, io, start);
  registerBenchmarkOverhead(cli, io, start);
  registerView(cli, io, start);

  cli
    .command(
      'trace <action> <runDir>',
      "a run's provenance: verify (manifest and hash chain), show, replayability, replay (re-judge the verified evidence, running nothing)",
    )
    .option('--config <file>', 'replay: judge the verified evidence under the policy of another config')
    .option('--json', 'machine-readable output')
    .action((action: string, runArg: string, opts) =>
      start(() => {
        const runDir = runFolderArg(runArg, opts);
        if (action === 'verify') return traceVerify(io, runDir, opts);
        if (action === 'show') return traceShow(io, runDir, opts);
        if (action === 'replayability') return traceReplayability(io, runDir, opts);
        if (action === 'replay') return traceReplay(io, runDir, opts);
        throw notACommand({
          command: 'trace',
          typed: action,
          known: ['verify', 'show', 'replayability', 'replay'],
          fix: "use 'trace verify|show|replayability|replay RUN_DIR'.",
        });
      }),
    );

  cli
    .command(
      'model-server',
      'serve a scripted model (OpenAI Responses/Chat, Anthropic Messages) from a trajectory file',
    )
    .usage('model-server --script FILE [--port N] [--record FILE] [--loop-limit N]');

  cli.help((sections) => groupHelp(sections, cli.commands));
  cli.version(agentguardVersion());

  try {
    cli.parse(['node', 'agentguard', ...argv], { run: false });
    if (!cli.matchedCommand) {
      if (cli.options.help || cli.options.version) return 0;
      if (cli.args.length > 0)
        throw notACommand({
          typed: String(cli.args[0]),
          known: cli.commands.map((c) => c.name),
          fix: "see 'agentguard --help'.",
        });
      cli.outputHelp();
      return 2;
    }
    checkOutputDirFor(cli.matchedCommand.name, cli.options.outputDir);
    await cli.runMatchedCommand();
    if (pending === null) return 0;
    return await pending;
  } catch (err) {
    return reportError(io, err);
  }
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
