import { readConfigYaml, resolveConfigObject } from '../config/load.js';
import type { ResolvedConfig } from '../config/schema.js';
import { ConfigError } from '../errors.js';

/** Where `agentguard ci` looks for its config at the repository root, in this order. */
export const CI_CONFIG_NAMES = ['.agentguard.yaml', 'agentguard.yaml'] as const;

/**
 * Keys of a benchmark config that describe a task or an agent. A CI config judges a checkout
 * someone already changed: there is no task to give and no agent to start, so these are refused
 * by name rather than silently ignored.
 */
export const NOT_IN_CI = [
  'task',
  'repo',
  'solution',
  'timeout_seconds',
  'run_timeout_seconds',
  'agent_command',
  'agent_name',
  'agent_environment',
  'agent_workdir',
  'agent_version_command',
  'setup_command',
  'setup',
  'setup_timeout_seconds',
  'agent_model',
  'agent_metadata',
  'agent_profile',
  'model_script',
  'skills',
  'grader_paths',
  'min_skill_coverage',
  'command_policy',
] as const;

/** A CI config: the policy, and where the pull request keeps its agent's command logs. */
export type CiConfig = {
  cfg: ResolvedConfig;
  /** `agent_logs`: globs of files in the judged changes read as agent command logs (see agent-log.ts). */
  agent_logs: string[];
};

/**
 * Load a CI config: the policy part of a benchmark config (paths, test paths, unsafe commands,
 * severity, diff limits, secrets, security rules, sandbox and tracer, test_command). It is checked
 * by the same schema and resolver as a benchmark config, with the checkout as its `repo`. One key is
 * CI's own: `agent_logs`, the files in the changes that hold the agent's command logs.
 */
export function loadCiConfig(file: string, root: string): CiConfig {
  const read = readConfigYaml(file);
  if (!read.ok) throw new ConfigError(read.issues);
  const raw = read.value;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    refuse(
      file,
      '',
      'must be a YAML mapping of keys to values',
      'start the file with test_command: ... and the policy keys',
    );
  }
  const { agent_logs: logs, ...given } = raw as Record<string, unknown>;
  const agentLogs = agentLogGlobs(file, logs);
  const refused = NOT_IN_CI.find((key) => key in given);
  if (refused) {
    refuse(
      file,
      refused,
      `a CI config judges the checkout, with no task or agent, so '${refused}' has no meaning here`,
      'remove it (keep the policy keys: paths, test paths, unsafe commands, severity, diff limits, secrets, security, test_command)',
    );
  }
  if (given.test_command === undefined) {
    refuse(
      file,
      'test_command',
      'is missing',
      "add the command that runs the project's tests, e.g. test_command: npm test (--no-tests skips running it)",
    );
  }
  const resolved = resolveConfigObject(
    {
      name: 'ci',
      ...given,
      task: { prompt: 'CI mode: judge the changes in the checkout' },
      repo: root,
    },
    file,
  );
  if (!resolved.ok) throw new ConfigError(resolved.issues);
  return { cfg: resolved.value, agent_logs: agentLogs };
}

function agentLogGlobs(file: string, value: unknown): string[] {
  if (value === undefined) return [];
  const list = typeof value === 'string' ? [value] : value;
  const fix = 'give a list of paths or globs inside the repository, e.g. agent_logs: [".agent/*.jsonl"]';
  if (!Array.isArray(list) || !list.every((g) => typeof g === 'string' && g.trim() !== ''))
    refuse(file, 'agent_logs', 'must be a list of non-empty strings', fix);
  const outside = list.find((g: string) => g.startsWith('/') || g.split('/').includes('..'));
  if (outside !== undefined)
    refuse(
      file,
      'agent_logs',
      `'${outside}' points outside the repository; the logs are read from the judged changes`,
      `${fix}. A log elsewhere (a downloaded artifact) goes to --agent-log FILE`,
    );
  return list as string[];
}

function refuse(file: string, field: string, message: string, fix: string): never {
  throw new ConfigError([{ file, field, message, fix }]);
}
