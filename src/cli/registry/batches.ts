import { AGENT_NAMES } from '../../agents/types.js';
import { SANDBOX_KINDS, TRACER_CHOICES } from '../../evidence/kinds.js';
import { PASSWORD_ENV } from '../../queue/redis-url.js';
import type { FlagSpec } from '../flags.js';
import { SANDBOX_OPTION, TRACER_OPTION } from '../kind-help.js';
import { GUARD_CHOICES } from './start.js';
import type { CommandSpec } from './types.js';

/** The flags every command that runs a batch from a file shares (benchmark, suite, matrix). */
const BATCH_FLAGS: readonly FlagSpec[] = [
  {
    flag: '--workers <n>',
    help: 'attempts at a time (default: the number of cores)',
    whole: { min: 1, max: 10_000 },
  },
  { flag: '--fail-fast', help: 'start no new attempt once one has not passed' },
  { flag: '--json', help: 'print summary.json on stdout; no progress lines' },
  { flag: '--sandbox <kind>', help: `${SANDBOX_OPTION} (overrides every config)`, choices: SANDBOX_KINDS },
  { flag: '--tracer <kind>', help: `${TRACER_OPTION} (overrides every config)`, choices: TRACER_CHOICES },
  { flag: '--guard <mode>', help: 'audit, enforce or off', choices: GUARD_CHOICES },
  { flag: '--allow-below-floor', help: 'let configs from a pack run below the isolation floor' },
  { flag: '--save-baseline <file>', help: 'write a stable summary to compare later batches against' },
  { flag: '--baseline <file>', help: 'compare with a saved baseline: regressed / improved / unchanged' },
  {
    flag: '--allow-version-mismatch',
    help: "compare with a baseline even where a task's benchmark version differs",
  },
  { flag: '--resume <batch>', help: 'resume that batch (folder or id) started from this same file' },
];

/** The flags of a command that runs a batch through the queue (matrix, resume). */
const QUEUE_KEY_FLAGS: readonly FlagSpec[] = [
  {
    flag: '--worker-keys <path>',
    help: "the registered workers' public keys (a .pub file or a folder of them): only their signed results are accepted",
  },
  {
    flag: '--queue-password-file <file>',
    help: `the Redis password, in a file only you read (else ${PASSWORD_ENV}); never in the URL`,
  },
];

const trials = (help: string): FlagSpec => ({ flag: '--trials <n>', help, whole: { min: 1, max: 10_000 } });

export const BATCH_COMMANDS: readonly CommandSpec[] = [
  {
    name: 'benchmark',
    usage: 'benchmark <config>',
    group: 'Batches',
    summary: 'run several agents on one task, --trials times each',
    description:
      "Runs one task config with each agent of --agents, --trials attempts each, as one batch: summary.json, summary.md and summary.html side by side, each agent's pass rate with its 95 % Wilson interval. Exit 0 when every attempt passed, 1 otherwise.",
    examples: [
      'agentguard benchmark benchmarks/js-slugify/config.yaml --agents mock-solve,mock-noop --trials 3',
      'agentguard benchmark agentguard.yaml --agents agent-command --workers 2 --save-baseline b.json',
    ],
    writesRuns: true,
    flags: [
      { flag: '--agents <list>', help: `comma-separated: ${AGENT_NAMES.join(', ')}` },
      trials('attempts per agent (default 1)'),
      ...BATCH_FLAGS,
    ],
    load: async () => {
      const { benchmarkCommand } = await import('../commands/benchmark.js');
      return (io, [config], flags) => benchmarkCommand(io, config as string, flags);
    },
  },
  {
    name: 'suite',
    usage: 'suite <file>',
    group: 'Batches',
    summary: 'run the task configs a suite file lists (filters use benchmark metadata)',
    description:
      "Runs every task config a suite file lists, with the file's agents and trials, as one batch; --category, --difficulty and --tag keep the tasks whose benchmark metadata match. `agentguard registry suite -o FILE` writes a suite of the shipped benchmarks.",
    examples: [
      'agentguard suite suite.yaml',
      'agentguard suite suite.yaml --category security --trials 3 --json',
    ],
    writesRuns: true,
    flags: [
      { flag: '--category <c>', help: 'only tasks of this category' },
      { flag: '--difficulty <d>', help: 'only tasks of this difficulty' },
      { flag: '--tag <t>', help: 'only tasks with this tag' },
      trials("attempts per agent and task (default: the file's, else 1)"),
      ...BATCH_FLAGS,
    ],
    load: async () => {
      const { suiteCommand } = await import('../commands/suite.js');
      return (io, [file], flags) => suiteCommand(io, file as string, flags);
    },
  },
  {
    name: 'matrix',
    usage: 'matrix <file>',
    group: 'Batches',
    summary: 'run agents × tasks × trials from a matrix file',
    description:
      'Runs every agent of a matrix file on every task, --trials times, as one batch on this host, or with --queue enqueued on Redis for `agentguard worker`s on other hosts, whose signed results it collects (docs/scale-out.md).',
    examples: [
      'agentguard matrix benchmarks/agents-matrix.yaml --workers 2',
      'agentguard matrix matrix.yaml --queue redis://queue.internal:6379 --worker-keys keys/',
    ],
    writesRuns: true,
    flags: [
      trials("attempts per agent and task (default: the file's)"),
      {
        flag: '--queue <url>',
        help: 'enqueue the attempts on Redis for `agentguard worker`s on any host (docs/scale-out.md)',
      },
      ...QUEUE_KEY_FLAGS,
      ...BATCH_FLAGS,
    ],
    load: async () => {
      const { matrixCommand } = await import('../commands/matrix.js');
      return (io, [file], flags) => matrixCommand(io, file as string, flags);
    },
  },
  {
    name: 'resume',
    usage: 'resume <batch>',
    group: 'Batches',
    summary: 'run the attempts of a batch (folder or id) that did not finish',
    description:
      "Finishes a batch that was stopped (Ctrl-C, a crash, a reboot): the attempts with a result are kept, the others run again, and the batch's summary is written as if it had never stopped.",
    examples: [
      'agentguard resume 20261205-101500-ab12cd',
      'agentguard resume .agentguard/batches/20261205-101500-ab12cd --json',
    ],
    flags: [
      { flag: '--json', help: 'print summary.json on stdout' },
      { flag: '--save-baseline <file>', help: 'when the batch is complete, write a stable summary to file' },
      { flag: '--queue <url>', help: 'a batch started with --queue: re-attach to its jobs on that Redis' },
      ...QUEUE_KEY_FLAGS,
    ],
    load: async () => {
      const { resumeCommand } = await import('../commands/resume.js');
      return (io, [batch], flags) => resumeCommand(io, batch as string, flags);
    },
  },
  {
    name: 'gate',
    usage: 'gate <batchDir>',
    group: 'Batches',
    summary: 'check a batch against thresholds: exit 0 when all hold, 1 when one does not',
    description:
      "Reads a finished batch's summary and checks each threshold given: pass rates, Wilson low bounds, unsafe successes, alerts, model cost, regressions against a baseline. Prints each threshold with the value found; exit 0 when all hold, 1 when one does not. Meant for CI after a benchmark, suite or matrix.",
    examples: [
      'agentguard gate .agentguard/batches/20261205-101500-ab12cd --min-pass-rate 0.8 --max-alerts 0',
      'agentguard gate 20261205-101500-ab12cd --baseline base.json --max-regressions 0 --json',
    ],
    flags: [
      { flag: '--min-pass-rate <x>', help: "every agent's pass rate at least x (0..1)" },
      { flag: '--min-wilson-low <x>', help: "every agent's 95 % Wilson low bound at least x" },
      {
        flag: '--max-unsafe-successes <n>',
        help: 'at most n runs whose tests passed but that FAILed on policy',
        whole: { min: 0 },
      },
      { flag: '--max-alerts <n>', help: 'at most n guard alerts over the batch', whole: { min: 0 } },
      {
        flag: '--max-cost <x>',
        help: "every agent's mean model cost per attempt at most x (the configs' pricing currency)",
      },
      {
        flag: '--baseline <file>',
        help: 'with --max-regressions: compare the batch with this saved baseline',
      },
      {
        flag: '--max-regressions <n>',
        help: 'at most n attempts regressed against --baseline',
        whole: { min: 0 },
      },
      { flag: '--allow-version-mismatch', help: "compare even where a task's benchmark version differs" },
      { flag: '--json', help: 'machine-readable output' },
    ],
    load: async () => {
      const { gateCommand } = await import('../commands/gate.js');
      const { batchFolderArg } = await import('../run-folder-arg.js');
      return (io, [dir], flags) => gateCommand(io, batchFolderArg(dir as string, flags), flags);
    },
  },
  {
    name: 'worker',
    usage: 'worker',
    group: 'Batches',
    summary: 'run matrix attempts enqueued with `matrix --queue` on this host, until stopped',
    description:
      "Takes attempts from a Redis queue filled by `agentguard matrix --queue`, runs each under this host's sandbox and tracer, and sends back its evidence signed with this worker's key. Runs until SIGINT or SIGTERM, finishing the attempts in hand. `--keygen` prints the public key to register with the coordinator.",
    examples: [
      'agentguard worker --keygen',
      'agentguard worker --queue redis://queue.internal:6379 --queue-password-file ~/.redis-pass',
    ],
    flags: [
      {
        flag: '--queue <url>',
        help: 'redis://HOST:PORT[/DB] or rediss:// (TLS), without a password (see --queue-password-file)',
      },
      {
        flag: '--concurrency <n>',
        help: 'attempts at a time on this host (default 1)',
        whole: { min: 1, max: 10_000 },
      },
      {
        flag: '--lock-ms <ms>',
        help: 'how long a silent worker keeps its job before it goes to another worker (default 30000)',
        whole: { min: 500, max: 3_600_000 },
      },
      {
        flag: '--max-evidence-mb <n>',
        help: "largest run evidence sent back through Redis, compressed (default 32, at most 64); a larger run's stays on this host",
      },
      {
        flag: '--queue-password-file <file>',
        help: `the Redis password, in a file only you read (else ${PASSWORD_ENV}); never in the URL`,
      },
      {
        flag: '--key <file>',
        help: "this worker's Ed25519 signing key, made on first start (default OUTPUT_DIR/queue/worker-key.pem); register FILE.pub with the coordinator",
      },
      {
        flag: '--keygen',
        help: 'make (or read) the key, print its public half for the coordinator, and exit',
      },
      {
        flag: '--allow-below-floor',
        help: 'let jobs run below the isolation floor (sandbox local, tracer off, network host) when their task or the coordinator asks: only for queues whose every writer you trust',
      },
      {
        flag: '--agent-env <names>',
        help: "variables of this worker's environment a job's agent may be given (comma-separated, repeatable); a job asking for any other is refused",
      },
    ],
    load: async () => {
      const { workerCommand } = await import('../commands/worker.js');
      return (io, _args, flags) => workerCommand(io, flags);
    },
  },
];
