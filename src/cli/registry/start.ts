import { AGENT_NAMES } from '../../agents/types.js';
import { SANDBOX_KINDS, TRACER_CHOICES } from '../../evidence/kinds.js';
import type { FlagSpec } from '../flags.js';
import { SANDBOX_OPTION, TRACER_OPTION } from '../kind-help.js';
import type { CommandSpec } from './types.js';

/** The live guard's modes, as `run --guard` and the batch commands take them. */
export const GUARD_CHOICES = ['off', 'audit', 'enforce'] as const;

const json = (help = 'machine-readable output'): FlagSpec => ({ flag: '--json', help });

/** `--sandbox`'s help names the sandbox used by default, which only the sandbox registry knows. */
async function defaultSandboxHelp(suffix: string): Promise<string> {
  const [{ SANDBOXES }, { automaticSandboxes }] = await Promise.all([
    import('../../sandbox/index.js'),
    import('../../sandbox/select-sandbox.js'),
  ]);
  return `${SANDBOX_OPTION} (${suffix}; default: ${automaticSandboxes(SANDBOXES)[0]} where it works)`;
}

export const START_COMMANDS: readonly CommandSpec[] = [
  {
    name: 'init',
    usage: 'init [dir]',
    group: 'Start here',
    summary:
      'inspect a repository and write a commented agentguard.yaml that runs as is (--ci: CI policy and workflow)',
    description:
      'Looks at a repository (its language, lockfile, test command, secrets files) and writes a commented agentguard.yaml whose task runs as it is, then runs it once with --agent mock-noop to show the baseline passes. With --ci it writes .agentguard.yaml, the policy `agentguard ci` reads, and a GitHub workflow instead. Files that exist are kept unless --force.',
    examples: [
      'agentguard init',
      'agentguard init ../my-service --force --no-check',
      'agentguard init --ci --action my-org/agentguard@v1',
    ],
    flags: [
      { flag: '--force', help: 'replace files that already exist' },
      {
        flag: '--ci',
        help: 'write .agentguard.yaml for `agentguard ci` and .github/workflows/agentguard.yml instead',
      },
      {
        flag: '--action <ref>',
        help: "the workflow's uses: for agentguard's action, OWNER/REPO@REF (default: this agentguard's GitHub origin at its commit, else repository variables)",
      },
      {
        flag: '--no-check',
        help: 'do not run the written config once with --agent mock-noop to see the baseline pass',
      },
    ],
    load: async () => {
      const { initCommand } = await import('../commands/init.js');
      return (io, [dir], flags) => initCommand(io, dir, flags);
    },
  },
  {
    name: 'run',
    usage: 'run <config>',
    group: 'Start here',
    summary: 'run an agent on a benchmark task and judge it from evidence',
    description:
      "Copies the task's template, runs the agent in the sandbox with its system calls traced and its network proxied, runs the task's tests in a grading copy, and judges the run by its checks and security rules. Prints the verdict and where the report is; exit 0 PASS, 1 FAIL, 2 bad input or setup. With --trials N, N independent runs and their reliability.",
    examples: [
      'agentguard run benchmarks/js-slugify/config.yaml --agent mock-solve',
      'agentguard run agentguard.yaml --agent agent-command --tracer ebpf --guard enforce',
      'agentguard run benchmarks/py-inventory/config.yaml --agent mock-solve --trials 5 --json',
      'agentguard run relay.yaml --replay .agentguard/runs/20261206-101500-1a2b3c4d',
    ],
    writesRuns: true,
    flags: [
      {
        flag: '--agent <name>',
        help: `agent adapter: ${AGENT_NAMES.join(', ')} (default: agent-command)`,
        choices: AGENT_NAMES,
      },
      { flag: '--sandbox <kind>', help: `${SANDBOX_OPTION} (overrides the config)`, choices: SANDBOX_KINDS },
      {
        flag: '--tracer <kind>',
        help: `${TRACER_OPTION} (overrides the config; default: auto)`,
        choices: TRACER_CHOICES,
      },
      {
        flag: '--guard <mode>',
        help: 'live security rules: audit (print alerts as they happen; default), enforce (also stop the agent on a critical alert), off',
        choices: GUARD_CHOICES,
      },
      {
        flag: '--trials <n>',
        help: 'independent runs, each in its own directory, then reliability and similarity',
        whole: { min: 1, max: 1000 },
      },
      json('print exactly report.json on stdout (with --trials: runs, reliability, comparison)'),
      {
        flag: '--dry-run',
        help: 'check everything and print the sanitised plan (prompt hash, env names); run nothing',
      },
      {
        flag: '--allow-below-floor',
        help: 'let a config from a pack run below the isolation floor (sandbox local, tracer off, host network)',
      },
      {
        flag: '--replay <run-dir>',
        help: "serve a finished run's model answers offline in place of its relay or script, then name the first turn where the agent asked otherwise and compare the verdicts",
      },
    ],
    lateHelp: async () => ({ flags: { sandbox: await defaultSandboxHelp('overrides the config') } }),
    load: async () => {
      const { runCommand } = await import('../commands/run.js');
      return (io, [config], flags) => runCommand(io, config as string, flags);
    },
  },
  {
    name: 'demo',
    usage: 'demo',
    group: 'Start here',
    summary: 'run the built-in benchmark tasks with every mock agent and print a summary',
    description:
      'Runs the shipped tasks (JavaScript, Python, shell) with each mock agent: one that solves the task, and ones that tamper with the tests, write out of scope, leak a secret, do nothing or explore. Prints each verdict beside the expected one; exit 0 when all match. A quick way to see what agentguard catches, and that this host can sandbox and trace.',
    examples: ['agentguard demo', 'agentguard demo --jobs 1 --output-dir /tmp/agentguard-demo'],
    writesRuns: true,
    flags: [
      {
        flag: '--jobs <n>',
        help: 'runs at a time (default: 2, or 1 on a one-core machine)',
        whole: { min: 1 },
      },
    ],
    load: async () => {
      const { demoCommand } = await import('../commands/demo.js');
      return (io, _args, flags) => demoCommand(io, flags);
    },
  },
  {
    name: 'doctor',
    usage: 'doctor',
    group: 'Start here',
    summary: 'show which sandboxes, tracers and network modes work here, and how to fix the rest',
    description:
      'Probes this host for each sandbox (bwrap, container, microvm), tracer (the eBPF collector, strace, bpftrace) and network mode, and prints what works, what does not and the command that fixes it, with a one-line summary. Run it first on a new machine, or when a run falls back to a weaker isolation.',
    examples: ['agentguard doctor', 'agentguard doctor --json'],
    flags: [json()],
    load: async () => {
      const { doctorCommand } = await import('../commands/doctor.js');
      return (io, _args, flags) => doctorCommand(io, flags);
    },
  },
  {
    name: 'ci',
    usage: 'ci',
    group: 'CI',
    summary:
      "judge a checkout's changes (working tree vs HEAD, or --base...--head) with the same checks and rules",
    description:
      "Judges the changes of a checkout as a run's diff: the working tree against HEAD, or merge-base(base, head)..head. The policy is read from the base commit, so a change cannot relax the policy that judges it. The changes' tests run in a sandboxed, traced copy. Exit 0 PASS, 1 FAIL (0 with --allow-failures), 2 bad input or setup.",
    examples: [
      'agentguard ci',
      'agentguard ci --base origin/main --head HEAD --github-summary',
      'agentguard ci --policy ../policies/strict.yaml --no-tests --json',
    ],
    // Without the flag, ci's folder is in the checkout (ci.ts checks it once it knows where).
    writesRuns: (_, flags) => flags.outputDir !== undefined,
    flags: [
      {
        flag: '--config <file>',
        help: "the CI policy's path in the repository, read from the base commit (default: .agentguard.yaml, then agentguard.yaml)",
      },
      {
        flag: '--policy <file>',
        help: 'a CI policy file outside the checkout, instead of the one committed in the base (see docs/ci.md)',
      },
      {
        flag: '--allow-below-floor',
        help: "let the changes' tests run below the isolation floor (sandbox local, tracer off, host network)",
      },
      { flag: '--repo <dir>', help: 'the checkout to judge (default: the current folder)' },
      { flag: '--base <ref>', help: 'judge merge-base(base, head)..head instead of the working tree' },
      { flag: '--head <ref>', help: 'the commit to judge with --base (default: HEAD)' },
      {
        flag: '--run-tests',
        help: 'run test_command in a copy of the checkout, sandboxed and traced (default)',
      },
      { flag: '--no-tests', help: 'do not run the tests' },
      { flag: '--tracer <kind>', help: `${TRACER_OPTION} (overrides the config)`, choices: TRACER_CHOICES },
      {
        flag: '--github-summary',
        help: 'append a summary to $GITHUB_STEP_SUMMARY and print ::error annotations',
      },
      {
        flag: '--agent-log <file>',
        help: "the agent's command log or transcript (JSON lines; repeatable), besides the config's agent_logs",
      },
      { flag: '--allow-failures', help: 'exit 0 even when the verdict is FAIL (still printed)' },
      json('print exactly report.json on stdout'),
    ],
    load: async () => {
      const { ciCommand } = await import('../commands/ci.js');
      return (io, _args, flags) => ciCommand(io, flags);
    },
  },
];
