import { createHash } from 'node:crypto';
import path from 'node:path';
import { ConfigError } from '../../errors.js';
import { type Placeholder, substitute } from './placeholders.js';
import type { AgentProfile, ConfigFile, Endpoint } from './schema.js';

export type RenderContext = {
  prompt: string;
  /** The prompt written to a file, for `{task_file}`. */
  taskFile: string;
  /** The workspace (the same path inside and outside the sandbox). */
  repoDir: string;
  /** HOME as the agent sees it (inside the sandbox). */
  agentHome: string;
  /** Where that HOME lies on the host, i.e. where files must be written. Default: `agentHome`. */
  hostHome?: string;
  /** The agent's state folder as it sees it. Default: HOME + the profile's first `state_dirs` entry. */
  stateDir?: string;
  /**
   * Root URL of the scripted model endpoint as the agent reaches it (no `/v1`). When set, the
   * profile's `scripted` block applies; when absent the agent talks to its real model.
   */
  modelUrl?: string;
  /**
   * The key the agent presents to that endpoint, for `{model_key}`: `scripted` for the scripted model,
   * the run's stand-in key for the relay (never a provider's real key).
   */
  modelKey?: string;
  /** The config's folder, for `{config_dir}` and `workdir: config_dir`. */
  configDir?: string;
  /** The resolved executable (e.g. from `resolveAgentBin`). Default: the profile's `bin`. */
  binPath?: string;
  /** The user's environment, from which `env_pass` names are read. */
  hostEnv?: Readonly<Record<string, string | undefined>>;
};

export type RenderedFile = {
  /** Where to write it on the host. */
  path: string;
  /** The same file as the agent sees it. */
  agent_path: string;
  content: string;
};

export type RenderedProfile = {
  name: string;
  argv: string[];
  /** argv for people, reports and evidence: each prompt argument replaced by its sha256 tag. */
  display_argv: string[];
  version_argv: string[] | null;
  cwd: string;
  /** Only the profile's variables (passed and set); the caller adds its base environment. */
  env: Record<string, string>;
  /** `env_pass` names the user's environment does not have. */
  env_missing: string[];
  files: RenderedFile[];
  /** `state_dirs` as absolute paths the agent sees (for the security rules' `$STATE_DIRS`). */
  state_dirs: string[];
  /** Where the agent looks for skills, as it sees it; null when the profile does not say. */
  skills_dir: string | null;
  endpoint: Endpoint | null;
  /** Whether the scripted block was applied (a model URL was given). */
  scripted: boolean;
  /** The value `{model_key}` had (the scripted block applied), else null. */
  modelKey: string | null;
  model: string | null;
  metadata: AgentProfile['metadata'];
};

/** The tag that stands for a prompt wherever argv is shown or stored. */
export function promptTag(prompt: string): string {
  return `<prompt sha256:${createHash('sha256').update(prompt).digest('hex').slice(0, 12)}>`;
}

/** The base URL the agent's API client expects: OpenAI clients want `…/v1`, the others the root. */
export function modelBaseUrl(root: string, endpoint: Endpoint | undefined): string {
  const trimmed = root.replace(/\/+$/, '');
  if (endpoint !== 'responses' && endpoint !== 'chat') return trimmed;
  return trimmed.endsWith('/v1') ? trimmed : `${trimmed}/v1`;
}

function inside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Characters that would break out of a TOML or JSON string if a value were put into a config file. */
function unsafeInFiles(value: string): boolean {
  for (const ch of value) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === '"' || ch === '\\' || code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/**
 * Render a profile for one run: the real argv and environment to start, the config files to
 * write, and the sanitised argv to show. Pure: the caller writes the files (writeRenderedFiles)
 * and starts the process. Paths in `ctx` should be absolute.
 */
export function renderProfile(profile: AgentProfile, ctx: RenderContext): RenderedProfile {
  const fail = (field: string, message: string, fix: string): never => {
    throw new ConfigError([{ file: profile.file, field, message, fix }]);
  };
  const agentHome = ctx.agentHome;
  const hostHome = ctx.hostHome ?? ctx.agentHome;
  const fromHome = (rel: string) => path.join(agentHome, rel);
  const firstState = profile.state_dirs[0];
  const stateDir = ctx.stateDir ?? (firstState !== undefined ? fromHome(firstState.slice(2)) : undefined);
  const scripted = ctx.modelUrl !== undefined;

  const values: Partial<Record<Placeholder, string>> = {
    '{task_prompt}': ctx.prompt,
    '{task_file}': ctx.taskFile,
    '{repo_dir}': ctx.repoDir,
    '{home_dir}': agentHome,
  };
  if (ctx.configDir !== undefined) values['{config_dir}'] = ctx.configDir;
  if (stateDir !== undefined) values['{state_dir}'] = stateDir;
  if (ctx.modelUrl !== undefined) {
    values['{model_url}'] = modelBaseUrl(ctx.modelUrl, profile.endpoint);
    values['{model_key}'] = ctx.modelKey ?? 'scripted';
  }

  const value = (field: string, item: string): string => {
    if (!/^\{[a-z_]+\}$/.test(item)) return item;
    const v = values[item as Placeholder];
    return (
      v ??
      fail(field, `${item} has no value for this run`, `pass ${placeholderSource(item)} to renderProfile`)
    );
  };
  profile.command.forEach((a, i) => {
    if (a === '{task_prompt}' && ctx.prompt.startsWith('-') && profile.command[i - 1] !== '--') {
      fail(
        `command[${i}]`,
        `the prompt starts with '-', which ${profile.name} would read as an option`,
        "reword the prompt so it does not start with '-', or put '--' before {task_prompt} if the agent accepts it",
      );
    }
  });
  const program = ctx.binPath ?? profile.bin;
  const args = profile.command.map((a, i) => value(`command[${i}]`, a));
  const argv = [program, ...args];
  const tag = promptTag(ctx.prompt);
  const display_argv = [
    program,
    ...profile.command.map((a, i) => (a === '{task_prompt}' ? tag : (args[i] ?? a))),
  ];
  const version_argv = profile.version_command
    ? [program, ...profile.version_command.map((a, i) => value(`version_command[${i}]`, a))]
    : null;

  let cwd = ctx.repoDir;
  if (profile.workdir === 'config_dir') {
    cwd = ctx.configDir ?? fail('workdir', 'is config_dir but no config folder was given', 'pass configDir');
  }

  const env: Record<string, string> = {};
  const env_missing: string[] = [];
  for (const name of profile.env_pass) {
    const v = ctx.hostEnv?.[name];
    if (v === undefined) env_missing.push(name);
    else env[name] = v;
  }
  for (const [name, v] of Object.entries(profile.env_set)) env[name] = value(`env_set.${name}`, v);
  if (scripted) {
    for (const [name, v] of Object.entries(profile.scripted.env_set))
      env[name] = value(`scripted.env_set.${name}`, v);
  }

  const toHost = (agentPath: string) =>
    inside(agentHome, agentPath) ? path.join(hostHome, path.relative(agentHome, agentPath)) : agentPath;
  const renderFile = (file: ConfigFile, field: string): RenderedFile => {
    const agent_path = file.path.startsWith('~/')
      ? fromHome(file.path.slice(2))
      : path.join(
          stateDir ?? fail(`${field}.path`, 'needs {state_dir}', 'declare state_dirs'),
          file.path.slice('{state_dir}/'.length),
        );
    for (const token of new Set(file.content.match(/\{[a-z_]+\}/g) ?? [])) {
      const v = values[token as Placeholder];
      if (v === undefined) {
        fail(
          `${field}.content`,
          `${token} has no value for this run`,
          `pass ${placeholderSource(token)} to renderProfile`,
        );
      } else if (unsafeInFiles(v)) {
        fail(
          `${field}.content`,
          `the value of ${token} (${JSON.stringify(v)}) holds a quote, backslash or control character and cannot go into a config file`,
          'use a folder or URL without those characters',
        );
      }
    }
    const content = substitute(file.content, values);
    return { path: toHost(agent_path), agent_path, content };
  };
  const files = new Map<string, RenderedFile>();
  profile.config_files.forEach((f, i) => {
    const r = renderFile(f, `config_files[${i}]`);
    files.set(r.agent_path, r);
  });
  if (scripted) {
    profile.scripted.config_files.forEach((f, i) => {
      const r = renderFile(f, `scripted.config_files[${i}]`);
      files.set(r.agent_path, r);
    });
  }

  const skills = profile.skills_dir;
  return {
    name: profile.name,
    argv,
    display_argv,
    version_argv,
    cwd,
    env,
    env_missing,
    files: [...files.values()],
    state_dirs: profile.state_dirs.map((d) => fromHome(d.slice(2))),
    skills_dir:
      skills === undefined
        ? null
        : skills.startsWith('~/')
          ? fromHome(skills.slice(2))
          : path.join(ctx.repoDir, skills),
    endpoint: profile.endpoint ?? null,
    scripted,
    modelKey: values['{model_key}'] ?? null,
    model: profile.model ?? null,
    metadata: profile.metadata,
  };
}

function placeholderSource(token: string): string {
  switch (token) {
    case '{config_dir}':
      return 'configDir';
    case '{model_url}':
      return 'modelUrl';
    case '{state_dir}':
      return 'stateDir';
    default:
      return token;
  }
}
