import { loadProfile } from '../agents/profiles/load-profile.js';
import type { AgentName } from '../agents/types.js';
import type { ResolvedConfig } from '../config/schema.js';
import { ConfigError, InputError } from '../errors.js';

/** The worker operator's flag naming the variables of the worker's environment its jobs' agents may get. */
export const AGENT_ENV_FLAG = '--agent-env';

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The names an operator gave with --agent-env (each flag a comma-separated list, the flag given
 * any number of times). A name that is not a variable name is a ConfigError naming it.
 */
export function parseAgentEnvFlag(values: unknown): ReadonlySet<string> {
  const given = values === undefined ? [] : Array.isArray(values) ? values : [values];
  const names = new Set<string>();
  for (const v of given)
    for (const name of String(v)
      .split(',')
      .map((n) => n.trim()))
      if (name !== '') {
        if (!NAME.test(name))
          throw new ConfigError(
            `${AGENT_ENV_FLAG} '${name}' is not an environment variable name. Fix: e.g. ${AGENT_ENV_FLAG} ANTHROPIC_API_KEY,HTTPS_PROXY.`,
          );
        names.add(name);
      }
  return names;
}

/**
 * What a queue job's agent may take from the worker's environment is the operator's choice, not
 * the job's: a job's config (agent_environment) or agent profile (env_pass) naming any variable
 * outside the allow-list is refused before anything runs, naming the variables and the flag. The
 * worker's host environment is an API key's usual home, and a job is written by whoever can reach
 * the queue.
 */
export function checkAgentEnvironment(
  cfg: ResolvedConfig,
  agent: AgentName,
  allowed: ReadonlySet<string>,
  what: string,
): void {
  const asked: [field: string, names: readonly string[]][] = [['agent_environment', cfg.agent_environment]];
  if (agent === 'agent-profile' && cfg.agent_profile)
    asked.push([`agent_profile '${cfg.agent_profile}' env_pass`, loadProfile(cfg.agent_profile).env_pass]);
  for (const [field, names] of asked) {
    const refused = names.filter((n) => !allowed.has(n));
    if (refused.length > 0)
      throw new InputError(
        `${what}: ${cfg.config_path}: ${field} asks for ${refused.join(', ')} from the worker's environment, ` +
          `which this worker does not pass to agents; not run. Fix: the worker's operator allows ${refused.length > 1 ? 'them' : 'it'} ` +
          `with ${AGENT_ENV_FLAG} ${refused.join(',')}; a job cannot.`,
      );
  }
}

/** Harness settings a run reads from its own environment; none is a secret (the queue password is dropped at start). */
const HARNESS = /^(PATH|HOME|LANG|LC_[A-Z]+|TMPDIR|AGENTGUARD_[A-Z0-9_]+)$/;

/**
 * The environment a worker's runs see as the host's: the harness's own settings and the allowed
 * names only. Whatever else reaches an agent from the host environment (a field added later, a
 * profile placeholder) then finds nothing to leak, whether or not a check above knew of it.
 */
export function jobHostEnv(env: NodeJS.ProcessEnv, allowed: ReadonlySet<string>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env))
    if (value !== undefined && (allowed.has(name) || HARNESS.test(name))) out[name] = value;
  return out;
}
