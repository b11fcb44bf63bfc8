import { TRACER_CHOICES } from '../../evidence/kinds.js';
import type { CommandSpec } from './types.js';

export const HOST_COMMANDS: readonly CommandSpec[] = [
  {
    name: 'agents',
    usage: 'agents <action> [...names]',
    group: 'Agents',
    summary:
      "install pinned agent CLIs into agentguard's cache (install NAME…), list them (list), or run one offline on a smoke task (verify NAME)",
    description:
      "Real agent CLIs (claude-code, codex, gemini-cli, …) at pinned versions, installed into agentguard's own cache and never globally, so a run's agent is the version its profile names. verify runs one offline against a scripted model on a smoke task, to prove it can be driven here.",
    examples: [
      'agentguard agents list',
      'agentguard agents install claude-code codex',
      'agentguard agents verify codex --json',
    ],
    actions: {
      install: 'install pinned versions (NAME…)',
      list: 'the agent profiles and what is installed',
      verify: 'run one offline on a smoke task (NAME)',
    },
    actionFix: "use 'agents install NAME', 'agents list' or 'agents verify NAME'.",
    flags: [{ flag: '--json', help: 'machine-readable output' }],
    load: async () => {
      const [m, { notACommand }] = await Promise.all([
        import('../commands/agents.js'),
        import('../usage-error.js'),
      ]);
      return (io, [action, ...names], flags) => {
        if (action === 'install' && names.length > 0) return m.agentsInstall(io, names, flags);
        if (action === 'list') return m.agentsList(io, flags);
        if (action === 'verify' && names.length === 1) return m.agentsVerify(io, names[0] as string, flags);
        throw notACommand({
          command: 'agents',
          typed: String(action),
          rest: names,
          known: [],
          fix: "use 'agents install NAME', 'agents list' or 'agents verify NAME'.",
        });
      };
    },
  },
  {
    name: 'model-server',
    usage: 'model-server',
    usageLine: 'model-server --script FILE [--port N] [--record FILE] [--loop-limit N]',
    group: 'Agents',
    summary: 'serve a scripted model (OpenAI Responses/Chat, Anthropic Messages) from a trajectory file',
    description:
      "Serves a scripted model on 127.0.0.1 that answers as OpenAI's Responses and Chat APIs and Anthropic's Messages API do, from a trajectory file: a real agent CLI can then be run offline and deterministically. Runs until SIGINT or SIGTERM; --record writes what it was asked.",
    examples: [
      'agentguard model-server --script trajectory.yaml --port 8787',
      'agentguard model-server --script trajectory.yaml --record asked.jsonl --loop-limit 50',
    ],
    // It parses its own argv (src/agents/model-server/cli.ts); these flags are for the examples' check.
    ownsArgv: true,
    flags: [
      { flag: '--script <file>', help: 'trajectory to replay (see src/agents/model-server/README.md)' },
      { flag: '--port <n>', help: 'port to listen on (default: a free one)', whole: { min: 0, max: 65535 } },
      {
        flag: '--record <file>',
        help: 'append one JSON line per request and answer (e.g. evidence/model.jsonl)',
      },
      {
        flag: '--loop-limit <n>',
        help: 'answers to the same request before the agent counts as looping',
        whole: { min: 1, max: 1_000_000 },
      },
    ],
    load: async () => {
      const { runModelServerCli } = await import('../../agents/model-server/cli.js');
      return (io, argv, _flags, stop) => runModelServerCli(argv, io, stop ?? new Promise(() => {}));
    },
  },
  {
    name: 'collector',
    usage: 'collector <action>',
    group: 'Host and diagnostics',
    summary: "the host's compiled eBPF collector: start, status or stop",
    description:
      'The compiled eBPF collector is one daemon per host, started by the first traced run and stopped after an idle time. start loads it now (saving the first run its load), status says whether it runs, stop ends it now.',
    examples: ['agentguard collector status', 'agentguard collector start'],
    actions: {
      start: 'load the collector now',
      status: 'say whether it runs, and its socket',
      stop: 'end it now',
    },
    actionFix: "use 'collector start', 'collector status' or 'collector stop'.",
    flags: [],
    load: async () => {
      const { collectorCommand } = await import('../commands/collector.js');
      return (io, [action]) => collectorCommand(io, action);
    },
  },
  {
    name: 'diagnostics',
    usage: 'diagnostics <action>',
    group: 'Host and diagnostics',
    summary:
      'measure agentguard itself: mutations (planted changes every check and rule must catch), ablation (what each check alone contributes), matrix-stress (the batch layer under load)',
    description:
      "Measures agentguard's own checks and machinery, each as a report under --output-dir/diagnostics.",
    examples: [
      'agentguard diagnostics mutations --list',
      'agentguard diagnostics ablation --trials 3 --only tt-delete-test --json',
      'agentguard diagnostics matrix-stress --attempts 1000 --workers 8',
    ],
    actions: {
      mutations:
        'plant controlled changes in copies of the shipped benchmarks and check that every check and rule reacts (and stays quiet on safe ones)',
      ablation:
        "the mutation catalog's control trials re-judged with each check left out: what each check alone contributes",
      'matrix-stress':
        'the batch layer under a synthetic sleep-and-arithmetic agent: throughput, memory, history rows, accounting, fail-fast',
    },
    actionFix: "use one of 'diagnostics mutations', 'diagnostics ablation', 'diagnostics matrix-stress'.",
    writesRuns: ([action], flags) => !(action === 'mutations' && flags.list === true),
    flags: [
      {
        flag: '--only <id>',
        help: 'catalog entry ids to run (repeat the flag or separate with commas; default: all)',
      },
      { flag: '--json', help: 'print the report as JSON' },
      {
        flag: '--tracer <kind>',
        help: `${TRACER_CHOICES.join(', ')} (default: auto, as a run)`,
        choices: TRACER_CHOICES,
      },
      { flag: '--list', help: 'mutations: print the catalog and run nothing' },
      {
        flag: '--trials <n>',
        help: 'ablation: control trials per catalog entry (default 1)',
        whole: { min: 1, max: 20 },
      },
      {
        flag: '--attempts <n>',
        help: 'matrix-stress: synthetic attempts, 1 to 100000 (default 200)',
        whole: { min: 1, max: 100_000 },
      },
      {
        flag: '--workers <n>',
        help: 'matrix-stress: attempts at a time, 1 to 256 (default 4)',
        whole: { min: 1, max: 256 },
      },
      { flag: '--fail-fast', help: 'matrix-stress: start no new attempt after the planted failure' },
    ],
    load: async () => {
      const { diagnosticsCommand } = await import('../commands/diagnostics.js');
      return (io, [action], flags) => diagnosticsCommand(io, action as string, flags);
    },
  },
  {
    name: 'benchmark-overhead',
    usage: 'benchmark-overhead <config>',
    group: 'Host and diagnostics',
    summary:
      'run one task with observation off and under each available tracer: wall time, CPU, events, overhead',
    description:
      "Runs one task config with observation off and under each tracer that works here, --trials times each, and reports wall time, CPU, events recorded and each tracer's overhead against observation off.",
    examples: [
      'agentguard benchmark-overhead benchmarks/js-slugify/config.yaml',
      'agentguard benchmark-overhead benchmarks/js-slugify/config.yaml --trials 5 --tracers collector',
    ],
    writesRuns: true,
    flags: [
      { flag: '--trials <n>', help: 'runs per mode, 1 to 50 (default 3)', whole: { min: 1, max: 50 } },
      {
        flag: '--tracers <list>',
        help: 'comma-separated subset of the tracers (default: all; off always runs)',
      },
      {
        flag: '--agent <name>',
        help: 'the agent adapter (default: agent-command when the config has one, else mock-solve)',
      },
      { flag: '--json', help: 'print report.json on stdout' },
    ],
    lateHelp: async () => {
      const { OVERHEAD_MODES } = await import('../../overhead/modes.js');
      const traced = OVERHEAD_MODES.filter((m) => m !== 'off');
      return {
        flags: { tracers: `comma-separated subset of ${traced.join(',')} (default: all; off always runs)` },
      };
    },
    load: async () => {
      const { benchmarkOverheadCommand } = await import('../commands/benchmark-overhead.js');
      return (io, [config], flags) => benchmarkOverheadCommand(io, config as string, flags);
    },
  },
];
