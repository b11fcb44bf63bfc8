import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { MODEL_HOST } from '../evidence/harness-hosts.js';
import { agentEnv } from './env.js';
import { resolveAgentBin } from './install/resolve-bin.js';
import { loadProfile } from './profiles/load-profile.js';
import { renderProfile } from './profiles/render-profile.js';
import { runsOffline } from './profiles/schema.js';
import type { AgentAdapter, AgentContext, PlanResult } from './types.js';

/**
 * The name a sandboxed agent uses for the scripted model. The egress proxy's hosts map sends it to
 * the model server's loopback port, so the URL is the same in every run (and in every config file).
 */

/** A real coding agent started the way its profile says (installed with `agentguard agents install`). */
export const PROFILE_AGENT: AgentAdapter = {
  name: 'agent-profile',
  description:
    'a real coding agent from agent_profile (codex, claude-code, gemini-cli, opencode or a profile file)',
  plan(ctx: AgentContext): PlanResult {
    const cfg = ctx.config;
    if (!cfg.agent_profile) {
      return {
        ok: false,
        field: 'agent_profile',
        message: "the 'agent-profile' agent runs agent_profile, which the config does not set",
        fix: 'add agent_profile (e.g. codex) or pick another agent with --agent',
      };
    }
    // Throws one ConfigError naming the profile file, the field and the fix.
    const profile = loadProfile(cfg.agent_profile);
    const scripted = cfg.model_script !== undefined;
    const relay = cfg.model_relay;
    // Before looking for the binary: an online-only agent cannot be pointed at agentguard's endpoint.
    if ((scripted || relay) && !runsOffline(profile))
      return {
        ok: false,
        field: relay ? 'model_relay' : 'model_script',
        message: `the agent profile '${profile.name}' is online-only (offline: false): ${profile.offline_reason ?? 'no supported setting points it at another model endpoint'}`,
        fix: 'remove model_script to run it online with your own credentials, or pick an offline agent (agentguard agents list)',
      };
    const realKey = relay ? ctx.hostEnv[relay.key_env] : undefined;
    if (relay && (realKey === undefined || realKey.length < 8))
      return {
        ok: false,
        field: 'model_relay.key_env',
        message: `${relay.key_env} is ${realKey === undefined ? 'not set' : 'too short to be a key'} in agentguard's environment, so the relay has no key for ${relay.provider}`,
        fix: `export ${relay.key_env}=<your key> where agentguard runs (the agent never sees it)`,
      };
    const bin = resolveAgentBin(profile, { env: ctx.hostEnv });
    if (!bin.ok) return { ok: false, field: 'agent_profile', message: bin.message, fix: bin.fix };
    const rendered = renderProfile(profile, {
      prompt: cfg.prompt,
      taskFile: ctx.taskFile,
      repoDir: ctx.repoDir,
      agentHome: ctx.agentHome,
      hostHome: ctx.hostHome,
      configDir: cfg.config_dir,
      binPath: bin.path,
      // Through the relay the agent gets no key of the host's (env_pass names keys), only the stand-in.
      hostEnv: relay ? {} : ctx.hostEnv,
      ...(scripted ? { modelUrl: `http://${MODEL_HOST}` } : {}),
      ...(relay ? { modelUrl: `http://${MODEL_HOST}`, modelKey: standInKey() } : {}),
    });
    const env = { ...agentEnv(ctx), ...rendered.env };
    if (realKey !== undefined) {
      // The class, not the name: the key's value must not reach the agent under any variable or file.
      const where = [
        ...Object.entries(env)
          .filter(([, v]) => v.includes(realKey))
          .map(([k]) => `its environment variable ${k}`),
        ...rendered.files.filter((f) => f.content.includes(realKey)).map((f) => `its file ${f.agent_path}`),
      ];
      if (where.length > 0)
        return {
          ok: false,
          field: 'agent_environment',
          message: `the relay's key (${relay?.key_env}) would reach the agent as ${where.join(' and ')}`,
          fix: 'remove it from agent_environment and the profile: through the relay the agent needs no key of its own',
        };
    }
    return {
      ok: true,
      plan: {
        adapter: 'agent-profile',
        name: cfg.agent_name ?? profile.name,
        spec: { argv: rendered.argv, cwd: rendered.cwd, env },
        display_argv: rendered.display_argv,
        ...(rendered.version_argv ? { version_argv: rendered.version_argv } : {}),
        model: scripted
          ? `scripted:${path.basename(cfg.model_script ?? '')}`
          : relay
            ? `relay:${new URL(relay.provider).host}${relay.model ? `/${relay.model}` : ''}`
            : (cfg.agent_model ?? rendered.model),
        metadata: {
          profile: profile.name,
          ...(profile.package ? { package: `${profile.package.name}@${profile.package.version}` } : {}),
          ...rendered.metadata,
          ...cfg.agent_metadata,
        },
        files: rendered.files,
        // A profile that hands the agent {config_dir} names the config's folder: it is shown (read-only).
        visible: [
          ...(bin.dir ? [bin.dir] : []),
          ...(JSON.stringify(profile).includes('{config_dir}') ? [cfg.config_dir] : []),
        ],
        state_dirs: rendered.state_dirs,
        ...(profile.vendor_hosts.length > 0 ? { vendor_hosts: profile.vendor_hosts } : {}),
        ...(profile.prompt_off ? { prompt_off: profile.prompt_off } : {}),
        ...(scripted ? { model_endpoint: { host: MODEL_HOST, api: rendered.endpoint ?? 'unknown' } } : {}),
        ...(relay
          ? {
              model_endpoint: {
                host: MODEL_HOST,
                api: rendered.endpoint ?? 'unknown',
                key: rendered.modelKey ?? '',
              },
            }
          : {}),
      },
    };
  },
};

/** The key the agent presents to the relay: unique to the run, worth nothing anywhere else. */
function standInKey(): string {
  return `agentguard-relay-${randomBytes(16).toString('hex')}`;
}
