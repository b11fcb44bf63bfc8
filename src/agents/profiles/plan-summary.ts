import { promptTag, renderProfile } from './render-profile.js';
import type { AgentProfile } from './schema.js';

/** Stand-ins for the paths of a run that does not exist yet, so a dry-run plan is stable. */
export const DRY_RUN_MARKERS = {
  repoDir: '<run>/repo',
  agentHome: '<run>/home',
  taskFile: '<run>/task/prompt.md',
  modelUrl: 'http://<model-server>',
} as const;

export type PlanEnvEntry = {
  name: string;
  /** `pass`: from the user's environment; `set`: a fixed value; `scripted`: only with the scripted model. */
  source: 'pass' | 'set' | 'scripted';
  /** For `pass`: whether the user's environment has it (the value itself is never shown). */
  present?: boolean;
};

/** What `agentguard run --dry-run` shows: nothing secret, no prompt, no environment value. */
export type PlanSummary = {
  profile: string;
  file: string;
  package: string | null;
  argv: string[];
  version_argv: string[] | null;
  cwd: string;
  prompt: string;
  env: PlanEnvEntry[];
  files: string[];
  state_dirs: string[];
  skills_dir: string | null;
  endpoint: string | null;
  model_server: 'scripted' | 'real';
  model: string | null;
  metadata: AgentProfile['metadata'];
};

export type PlanSummaryOptions = {
  prompt: string;
  /** Whether a scripted model endpoint will serve the model (the config sets a model script). */
  scripted: boolean;
  /** Real paths when known; markers otherwise. */
  repoDir?: string;
  agentHome?: string;
  taskFile?: string;
  configDir?: string;
  binPath?: string;
  /** Used only to say whether each env_pass name is present. */
  hostEnv?: Readonly<Record<string, string | undefined>>;
};

/** The sanitised plan of one profile run: argv with prompt hashes, environment names only. */
export function planSummary(profile: AgentProfile, opts: PlanSummaryOptions): PlanSummary {
  const rendered = renderProfile(profile, {
    prompt: opts.prompt,
    repoDir: opts.repoDir ?? DRY_RUN_MARKERS.repoDir,
    agentHome: opts.agentHome ?? DRY_RUN_MARKERS.agentHome,
    taskFile: opts.taskFile ?? DRY_RUN_MARKERS.taskFile,
    configDir: opts.configDir ?? '<config_dir>',
    ...(opts.binPath !== undefined ? { binPath: opts.binPath } : {}),
    ...(opts.scripted ? { modelUrl: DRY_RUN_MARKERS.modelUrl } : {}),
  });
  const env: PlanEnvEntry[] = [
    ...profile.env_pass.map((name) => ({
      name,
      source: 'pass' as const,
      present: opts.hostEnv?.[name] !== undefined,
    })),
    ...Object.keys(profile.env_set).map((name) => ({ name, source: 'set' as const })),
    ...(opts.scripted
      ? Object.keys(profile.scripted.env_set).map((name) => ({ name, source: 'scripted' as const }))
      : []),
  ];
  return {
    profile: profile.name,
    file: profile.file,
    package: profile.package ? `${profile.package.name}@${profile.package.version}` : null,
    argv: rendered.display_argv,
    version_argv: rendered.version_argv,
    cwd: rendered.cwd,
    prompt: promptTag(opts.prompt),
    env,
    files: rendered.files.map((f) => f.agent_path),
    state_dirs: rendered.state_dirs,
    skills_dir: rendered.skills_dir,
    endpoint: rendered.endpoint,
    model_server: opts.scripted ? 'scripted' : 'real',
    model: rendered.model,
    metadata: rendered.metadata,
  };
}

/** The plan as lines for a terminal. */
export function formatPlanSummary(plan: PlanSummary): string {
  const quote = (a: string) => (/^[\w@%+=:,./<>-]+$/.test(a) ? a : `'${a.replaceAll("'", "'\\''")}'`);
  const env = plan.env.map((e) =>
    e.source === 'pass' ? `${e.name}${e.present ? '' : ' (not set)'}` : e.name,
  );
  const lines = [
    `agent profile ${plan.profile} (${plan.file})${plan.package ? `, package ${plan.package}` : ''}`,
    `  command:   ${plan.argv.map(quote).join(' ')}`,
    ...(plan.version_argv ? [`  version:   ${plan.version_argv.map(quote).join(' ')}`] : []),
    `  cwd:       ${plan.cwd}`,
    `  prompt:    ${plan.prompt}`,
    `  model:     ${plan.model_server === 'scripted' ? `scripted endpoint (${plan.endpoint ?? 'unknown API'})` : (plan.model ?? "the agent's default")}`,
    `  env names: ${env.join(', ') || 'none'}`,
    ...(plan.files.length > 0 ? [`  writes:    ${plan.files.join(', ')}`] : []),
    ...(plan.state_dirs.length > 0 ? [`  state:     ${plan.state_dirs.join(', ')}`] : []),
    ...(plan.skills_dir ? [`  skills in: ${plan.skills_dir}`] : []),
  ];
  return lines.join('\n');
}
