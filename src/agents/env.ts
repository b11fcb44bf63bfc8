import type { AgentContext } from './types.js';

/**
 * The agent's environment: a small fixed base plus only the variable names the config allows.
 * Values never come from the config file, and the harness's own environment is not inherited.
 */
export function agentEnv(ctx: AgentContext): Record<string, string> {
  const env: Record<string, string> = {
    PATH: ctx.hostEnv.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: ctx.agentHome,
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    NO_COLOR: '1',
    TMPDIR: '/tmp',
    AGENTGUARD_RUN_ID: ctx.runId,
    AGENTGUARD_WORKSPACE: ctx.repoDir,
    AGENTGUARD_TASK_FILE: ctx.taskFile,
    // npm's own update check asks the proxy for registry.npmjs.org on a fresh HOME at every npm
    // command (`npm ls`, `npm test`): an alert where the registry is not allowed, for a request
    // nobody asked for (issue 38's everyday set).
    npm_config_update_notifier: 'false',
  };
  for (const name of ctx.config.agent_environment) {
    const value = ctx.hostEnv[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}
