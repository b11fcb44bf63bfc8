import { createHash } from 'node:crypto';
import { renderConfigDir } from '../config/mounts.js';
import { agentEnv } from './env.js';
import type { AgentAdapter, AgentContext, AgentName, PlanResult } from './types.js';

/** Replace whole-argument placeholders; the loader has already rejected embedded or unknown ones. */
export function renderArgv(
  argv: readonly string[],
  ctx: AgentContext,
): { argv: string[]; display: string[] } {
  const promptTag = `<prompt sha256:${createHash('sha256').update(ctx.config.prompt).digest('hex').slice(0, 12)}>`;
  const values: Record<string, string> = {
    '{task_prompt}': ctx.config.prompt,
    '{task_file}': ctx.taskFile,
    '{repo_dir}': ctx.repoDir,
    '{config_dir}': ctx.config.config_dir,
  };
  const value = (a: string) => values[a] ?? renderConfigDir(a, ctx.config.config_dir);
  const rendered = argv.map(value);
  const display = argv.map((a) => (a === '{task_prompt}' ? promptTag : value(a)));
  return { argv: rendered, display };
}

function commandAdapter(name: Extract<AgentName, 'agent-command' | 'local-command'>): AgentAdapter {
  return {
    name,
    description:
      name === 'agent-command'
        ? 'a command-line coding agent from agent_command (cwd from agent_workdir)'
        : 'the local command in agent_command, run in the workspace',
    plan(ctx: AgentContext): PlanResult {
      const cfg = ctx.config;
      if (!cfg.agent_command) {
        return {
          ok: false,
          field: 'agent_command',
          message: `the '${name}' agent runs agent_command, which the config does not set`,
          fix: 'add agent_command (an argv list) or pick a mock agent with --agent',
        };
      }
      const { argv, display } = renderArgv(cfg.agent_command, ctx);
      const cwd =
        name === 'agent-command' && cfg.agent_workdir === 'config_dir' ? cfg.config_dir : ctx.repoDir;
      const plan = {
        adapter: name,
        name: cfg.agent_name ?? cfg.agent_command[0] ?? name,
        spec: { argv, cwd, env: agentEnv(ctx) },
        display_argv: display,
        model: cfg.agent_model ?? null,
        metadata: cfg.agent_metadata,
        ...(cfg.agent_version_command
          ? { version_argv: renderArgv(cfg.agent_version_command, ctx).argv }
          : {}),
      };
      return { ok: true, plan };
    },
  };
}

export const COMMAND_AGENTS = {
  'agent-command': commandAdapter('agent-command'),
  'local-command': commandAdapter('local-command'),
};
