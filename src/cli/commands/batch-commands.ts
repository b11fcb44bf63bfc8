import type { CAC } from 'cac';
import { AGENT_NAMES } from '../../agents/index.js';
import type { CliIO } from '../io.js';
import { SANDBOX_OPTION, TRACER_OPTION } from '../kind-help.js';
import { benchmarkCommand } from './benchmark.js';
import { gateCommand } from './gate.js';
import { matrixCommand } from './matrix.js';
import { QUEUE_OPTIONS } from './queue-work.js';
import { resumeCommand } from './resume.js';
import { suiteCommand } from './suite.js';

/** benchmark, suite, matrix, resume and gate: the batch layer's commands (docs/batches.md). */
export function registerBatchCommands(cli: CAC, io: CliIO, start: (p: () => Promise<number>) => void): void {
  const common = (c: ReturnType<CAC['command']>) =>
    c
      .option('--workers <n>', 'attempts at a time (default: the number of cores)')
      .option('--fail-fast', 'start no new attempt once one has not passed')
      .option('--json', 'print summary.json on stdout; no progress lines')
      .option('--sandbox <kind>', `${SANDBOX_OPTION} (overrides every config)`)
      .option('--tracer <kind>', `${TRACER_OPTION} (overrides every config)`)
      .option('--guard <mode>', 'audit, enforce or off')
      .option('--allow-below-floor', 'let configs from a pack run below the isolation floor')
      .option('--save-baseline <file>', 'write a stable summary to compare later batches against')
      .option('--baseline <file>', 'compare with a saved baseline: regressed / improved / unchanged')
      .option(
        '--allow-version-mismatch',
        "compare with a baseline even where a task's benchmark version differs",
      )
      .option('--resume <batch>', 'resume that batch (folder or id) started from this same file');

  common(
    cli
      .command('benchmark <config>', 'run several agents on one task, --trials times each')
      .option('--agents <list>', `comma-separated: ${AGENT_NAMES.join(', ')}`)
      .option('--trials <n>', 'attempts per agent (default 1)'),
  ).action((config: string, opts) => start(() => benchmarkCommand(io, config, opts)));

  common(
    cli
      .command('suite <file>', 'run the task configs a suite file lists (filters use benchmark metadata)')
      .option('--category <c>', 'only tasks of this category')
      .option('--difficulty <d>', 'only tasks of this difficulty')
      .option('--tag <t>', 'only tasks with this tag')
      .option('--trials <n>', "attempts per agent and task (default: the file's, else 1)"),
  ).action((file: string, opts) => start(() => suiteCommand(io, file, opts)));

  common(
    cli
      .command('matrix <file>', 'run agents × tasks × trials from a matrix file')
      .option('--trials <n>', "attempts per agent and task (default: the file's)")
      .option(
        '--queue <url>',
        'enqueue the attempts on Redis for `agentguard worker`s on any host (docs/scale-out.md)',
      )
      .option(QUEUE_OPTIONS.keys[0], QUEUE_OPTIONS.keys[1])
      .option(QUEUE_OPTIONS.password[0], QUEUE_OPTIONS.password[1]),
  ).action((file: string, opts) => start(() => matrixCommand(io, file, opts)));

  cli
    .command('resume <batch>', 'run the attempts of a batch (folder or id) that did not finish')
    .option('--json', 'print summary.json on stdout')
    .option('--save-baseline <file>', 'when the batch is complete, write a stable summary to file')
    .option('--queue <url>', 'a batch started with --queue: re-attach to its jobs on that Redis')
    .option(QUEUE_OPTIONS.keys[0], QUEUE_OPTIONS.keys[1])
    .option(QUEUE_OPTIONS.password[0], QUEUE_OPTIONS.password[1])
    .action((dir: string, opts) => start(() => resumeCommand(io, dir, opts)));

  cli
    .command('gate <batchDir>', 'check a batch against thresholds: exit 0 when all hold, 1 when one does not')
    .option('--min-pass-rate <x>', "every agent's pass rate at least x (0..1)")
    .option('--min-wilson-low <x>', "every agent's 95 % Wilson low bound at least x")
    .option('--max-unsafe-successes <n>', 'at most n runs whose tests passed but that FAILed on policy')
    .option('--max-alerts <n>', 'at most n guard alerts over the batch')
    .option(
      '--max-cost <x>',
      "every agent's mean model cost per attempt at most x (the configs' pricing currency)",
    )
    .option('--baseline <file>', 'with --max-regressions: compare the batch with this saved baseline')
    .option('--max-regressions <n>', 'at most n attempts regressed against --baseline')
    .option('--allow-version-mismatch', "compare even where a task's benchmark version differs")
    .option('--json', 'machine-readable output')
    .action((dir: string, opts) => start(async () => gateCommand(io, dir, opts)));
}
