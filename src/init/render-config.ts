import { HIGH_PRECISION_PRESETS } from '../evidence/secret-formats.js';
import type { DependencySetup } from './dependency-setup.js';
import type { ProjectFacts } from './detect-project.js';
import type { PathPolicy } from './path-policy.js';

/** Which agent the config names: an installed built-in profile, or none yet (the choices listed). */
export type AgentChoice =
  | { kind: 'profile'; name: string; api_host: string | null; others: string[] }
  | { kind: 'none'; choices: string[] };

/** A YAML flow value: JSON is valid YAML, and quotes every string that needs it. */
const flow = (value: unknown) => JSON.stringify(value);

/** The prompt when the user has not written one: the one task every repository has. */
export function defaultPrompt(facts: ProjectFacts): string {
  const run = facts.test_command ? ` (\`${facts.test_command.join(' ')}\`)` : '';
  return (
    `Make the project's tests pass${run} without changing the tests, the CI files or the lockfiles.\n` +
    'Replace this prompt with the task you want the agent to do.\n'
  );
}

export function testCommandLines(facts: ProjectFacts): string[] {
  if (facts.test_command === null) {
    return [
      '# No test command was found (package.json scripts.test, pyproject/pytest, go.mod, Cargo.toml,',
      '# a Makefile test target). Replace this one, which fails on purpose, with yours.',
      `test_command: ${flow(['sh', '-c', 'echo "set test_command in agentguard.yaml" >&2; exit 1'])}`,
    ];
  }
  const lines = [`# Found in ${facts.test_source}. Runs in the sandbox after the agent, with no network.`];
  for (const other of facts.other_test_commands)
    lines.push(`# Also found (${other.source}): test_command: ${flow(other.command)}`);
  lines.push(`test_command: ${flow(facts.test_command)}`);
  return lines;
}

export function secretLines(): string[] {
  return [
    '# Secrets: added content is scanned for these key formats (high precision); files such as .env,',
    '# *.pem or id_rsa that the agent creates fail the secret-paths check (secret_paths has defaults).',
    `secret_presets: ${flow(HIGH_PRECISION_PRESETS)}`,
    '# Your own token formats, e.g.:',
    '# secret_detectors: [{ name: internal-token, pattern: "itk_[A-Za-z0-9]{32}" }]',
  ];
}

export function observationLines(): string[] {
  return [
    '# Sandbox: unset means bwrap where it works (see `agentguard doctor`); container and local are the others.',
    '# sandbox: bwrap',
    '# Tracer: auto takes ebpf, then strace, then off, and every report says which ran.',
    'tracer: auto',
  ];
}

export function pathLines(paths: PathPolicy): string[] {
  return [
    '# What the agent may change (scope), what counts as tests (test-tampering), and what it must not',
    '# touch at all (CI files, lockfiles, this file). Globs are relative to the repository root.',
    `allowed_paths: ${flow(paths.allowed)}`,
    `test_paths: ${flow(paths.test)}`,
    `forbidden_paths: ${flow(paths.forbidden)}`,
  ];
}

function agentLines(agent: AgentChoice): string[] {
  if (agent.kind === 'profile') {
    const lines = [
      `# The agent: the built-in profile '${agent.name}' is installed (agentguard agents list).`,
    ];
    if (agent.others.length > 0) lines.push(`# Also installed: ${agent.others.join(', ')}.`);
    lines.push(`agent_profile: ${agent.name}`);
    if (agent.api_host !== null) {
      lines.push(
        "# A real agent talks to its model's API: only that host is let through the egress proxy.",
        'network:',
        '  mode: allowlist',
        `  allow: ${flow([agent.api_host])}`,
      );
    }
    return lines;
  }
  return [
    '# The agent: no supported agent CLI is installed yet. Install one and name it here, e.g.',
    `#   agentguard agents install ${agent.choices[0] ?? 'codex'}`,
    `# agent_profile: ${agent.choices[0] ?? 'codex'}      # built-in profiles: ${agent.choices.join(', ')}`,
    '# or run your own:  agent_command: [my-agent, --prompt, "{task_prompt}"]',
    '# Until then: agentguard run agentguard.yaml --agent mock-noop (or mock-solve, mock-cheat, ...).',
    'network:',
    '  mode: none # allowlist with allow: [host, ...] lets named hosts through the egress proxy',
  ];
}

/** `setup.dependencies` and what setup cannot do, as comments. */
export function dependencyLines(deps: DependencySetup): string[] {
  const lines = deps.notes.map((n) => `# Note: ${n}`);
  if (deps.toolchains.length > 0)
    lines.push(
      '# Your interpreter lives under your HOME, which the sandbox hides: shown read-only at its path.',
      `toolchains: ${flow(deps.toolchains)}`,
    );
  if (deps.entries.length === 0) return lines;
  lines.push(
    '# Dependencies, installed from the lockfiles before the agent starts, outside the monitoring',
    '# window, in a sandbox that reaches only the mirror (replace it with your registry or a cache).',
    'setup:',
    '  dependencies:',
    ...deps.entries.map((e) => `    - ${flow(e)}`),
    'setup_timeout_seconds: 600',
  );
  if (deps.environment.length > 0)
    lines.push(
      "# How this machine's package managers reach the registry (TLS trust, corepack's registry): the",
      '# values are taken from the environment agentguard runs in; the agent and tests see them too.',
      `agent_environment: ${flow(deps.environment)}`,
    );
  return lines;
}

/** The commented `agentguard.yaml` for running an agent on this repository. */
export function renderTaskConfig(opts: {
  facts: ProjectFacts;
  paths: PathPolicy;
  agent: AgentChoice;
  schemaRef: string;
  dependencies?: DependencySetup;
}): string {
  const facts = opts.dependencies
    ? { ...opts.facts, test_command: opts.dependencies.test_command }
    : opts.facts;
  const prompt = defaultPrompt(facts)
    .trimEnd()
    .split('\n')
    .map((l) => `    ${l}`);
  const languages = facts.languages.length > 0 ? facts.languages.join(', ') : 'nothing recognised';
  return `${[
    `# yaml-language-server: $schema=${opts.schemaRef}`,
    `# agentguard task config written by 'agentguard init' (found: ${languages}).`,
    '# Every key is documented in docs/config.md; `agentguard schema config` prints the JSON Schema.',
    '# Run it: agentguard run agentguard.yaml   (or --agent mock-noop to try the pipeline first)',
    `name: ${flow(facts.name)}`,
    'task:',
    '  prompt: |',
    ...prompt,
    '# The repository the agent works on: this folder, copied fresh for every run (.git and the',
    '# .agentguard output folder are not copied).',
    'repo: .',
    ...testCommandLines(facts),
    'test_timeout_seconds: 300',
    ...(opts.dependencies ? dependencyLines(opts.dependencies) : []),
    'timeout_seconds: 600',
    ...pathLines(opts.paths),
    ...secretLines(),
    ...observationLines(),
    ...agentLines(opts.agent),
  ].join('\n')}\n`;
}
