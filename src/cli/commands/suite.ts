import { agentSpecs, loadSuiteFile } from '../../batch/batch-file.js';
import type { ResolvedConfig } from '../../config/schema.js';
import { ConfigError } from '../../errors.js';
import type { AgentSpec } from '../../reports/batch-types.js';
import { type CliIO, outputDir } from '../io.js';
import { type BatchFlags, countFlag, loadTaskConfigs, startBatch } from './batch-run.js';
import { resumeFromFlag } from './resume.js';

export type SuiteFlags = BatchFlags & { category?: string; difficulty?: string; tag?: string };

/** Keep the configs every given filter accepts; an empty result names the filter that emptied it. */
export function filterConfigs(file: string, configs: ResolvedConfig[], flags: SuiteFlags): ResolvedConfig[] {
  const filters: [string, string | undefined, (c: ResolvedConfig, v: string) => boolean][] = [
    ['--category', flags.category, (c, v) => c.category === v],
    ['--difficulty', flags.difficulty, (c, v) => c.difficulty === v],
    ['--tag', flags.tag, (c, v) => c.tags.includes(v)],
  ];
  let selected = configs;
  for (const [flag, value, keep] of filters) {
    if (value === undefined) continue;
    const next = selected.filter((c) => keep(c, String(value)));
    if (next.length === 0)
      throw new ConfigError(
        `${file}: ${flag} '${value}' leaves no task of the ${selected.length} selected so far. Fix: use a value the tasks' benchmark metadata has, or drop ${flag}.`,
      );
    selected = next;
  }
  return selected;
}

/** Many task configs from a suite file, each run by the suite's agents (default: the config's own agent). */
export async function suiteCommand(io: CliIO, file: string, flags: SuiteFlags): Promise<number> {
  if (flags.resume !== undefined)
    return resumeFromFlag(io, 'suite', file, { ...flags, resume: flags.resume });
  const suite = loadSuiteFile(file);
  const configs = filterConfigs(suite.file, loadTaskConfigs(suite.configPaths, outputDir(flags)), flags);
  const agents: AgentSpec[] = suite.defaults.agents
    ? agentSpecs(suite.file, 'defaults.agents', suite.defaults.agents, suite.file.replace(/[^/]*$/, ''))
    : [ownAgent(suite.file, configs)];
  return startBatch(io, flags, {
    kind: 'suite',
    sourceFile: suite.file,
    agents,
    configs,
    trials: countFlag('--trials', flags.trials, suite.defaults.trials ?? 1),
    ...(suite.defaults.workers !== undefined ? { fileWorkers: suite.defaults.workers } : {}),
  });
}

/** Without defaults.agents each task runs its own agent_command or agent_profile. */
function ownAgent(file: string, configs: ResolvedConfig[]): AgentSpec {
  const without = configs.find((c) => !c.agent_command && !c.agent_profile);
  if (without)
    throw new ConfigError(
      `${file}: field 'defaults.agents' is missing and ${without.config_path} has no agent_command or agent_profile. Fix: add defaults.agents (e.g. [mock-solve]).`,
    );
  const profiles = configs.filter((c) => c.agent_profile).length;
  if (profiles !== 0 && profiles !== configs.length)
    throw new ConfigError(
      `${file}: field 'defaults.agents' is missing and the tasks mix agent_command and agent_profile. Fix: add defaults.agents.`,
    );
  return profiles
    ? { name: 'agent-profile', kind: 'builtin', adapter: 'agent-profile' }
    : { name: 'agent-command', kind: 'builtin', adapter: 'agent-command' };
}
