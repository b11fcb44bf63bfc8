import { sandboxKindOf } from './mounts.js';
import { type BenchmarkConfigInput, BenchmarkConfigSchema, type ResolvedConfig } from './schema.js';

/**
 * A config built in memory rather than loaded from a file (fuzz variants, test fixtures): the
 * schema's defaults applied to `fields`, the config in `dir` with its template at `dir/repo`, the
 * test command as argv. The commands a loader would split from a string are not taken here.
 */
export function configInMemory(
  fields: Omit<
    BenchmarkConfigInput,
    'repo' | 'test_command' | 'agent_command' | 'agent_version_command' | 'setup_command' | 'solution'
  >,
  at: { dir: string; prompt: string; testCommand: string[]; promptFile?: string },
): ResolvedConfig {
  const {
    test_command: _t,
    repo: _r,
    solution: _s,
    agent_command: _a,
    agent_version_command: _v,
    setup_command: _c,
    sandbox,
    toolchains: _tc,
    ...parsed
  } = BenchmarkConfigSchema.parse({ ...fields, repo: 'repo', test_command: at.testCommand });
  const kind = sandboxKindOf(sandbox);
  return {
    ...parsed,
    ...(kind ? { sandbox: kind } : {}),
    mounts: [],
    config_path: `${at.dir}/agentguard.yaml`,
    config_dir: at.dir,
    repo: `${at.dir}/repo`,
    prompt: at.prompt,
    ...(at.promptFile !== undefined ? { prompt_file: at.promptFile } : {}),
    test_command: [...at.testCommand],
  };
}
