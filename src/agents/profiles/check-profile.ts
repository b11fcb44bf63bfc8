import type { ConfigIssue } from '../../config/load.js';
import {
  contentPlaceholderProblem,
  type PlaceholderField,
  type PlaceholderProblem,
  wholePlaceholderProblem,
} from './placeholders.js';
import { type AgentProfile, type ConfigFile, PROFILE_SCHEMA_VERSION } from './schema.js';

/** Variables the harness owns: a profile may neither set nor pass them (a profile must not route around the proxy). */
const RESERVED_ENV = new Set([
  'PATH',
  'HOME',
  'TMPDIR',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'ALL_PROXY',
  'NO_PROXY',
  'AGENTGUARD_RUN_ID',
  'AGENTGUARD_WORKSPACE',
  'AGENTGUARD_TASK_FILE',
]);

/** Values shaped like credentials; env_set is for fixed, non-secret values only. */
const SECRET_SHAPES =
  /^(sk-[A-Za-z0-9_-]{16,}|ghp_|gho_|github_pat_|xox[abpr]-|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}|-----BEGIN)/;

/** `~/rel` or `{state_dir}/rel` with a plain relative rest. */
const FILE_PATH = /^(~|\{state_dir\})\/(.+)$/;

type Issue = (field: string, message: string, fix: string) => void;

function cleanRelative(rel: string): boolean {
  return (
    rel !== '' &&
    !rel.startsWith('/') &&
    !rel.split('/').some((part) => part === '..' || part === '') &&
    !/[{}]/.test(rel)
  );
}

function usesStateDir(text: string): boolean {
  return text.includes('{state_dir}');
}

function checkEnv(values: Record<string, string>, field: PlaceholderField, issue: Issue): void {
  for (const [name, value] of Object.entries(values)) {
    if (RESERVED_ENV.has(name.toUpperCase()))
      issue(`${field}.${name}`, 'is set by the harness itself', 'remove it from the profile');
    if (SECRET_SHAPES.test(value))
      issue(
        `${field}.${name}`,
        'looks like a credential; profiles hold no secret values',
        `remove the value and list ${name} in env_pass, so it comes from your environment`,
      );
    const bad = wholePlaceholderProblem(value, field);
    if (bad) issue(`${field}.${name}`, bad.message, bad.fix);
  }
}

function checkFiles(files: ConfigFile[], field: PlaceholderField, issue: Issue): void {
  const seen = new Set<string>();
  files.forEach((file, index) => {
    const where = `${field}[${index}]`;
    const m = FILE_PATH.exec(file.path);
    if (!m || !cleanRelative(m[2] ?? '')) {
      issue(
        `${where}.path`,
        `'${file.path}' is not a path under HOME or the state folder`,
        "start it with '~/' or '{state_dir}/' and use no '..' or other placeholders",
      );
    }
    if (seen.has(file.path)) issue(`${where}.path`, `'${file.path}' is listed twice`, 'keep one entry');
    seen.add(file.path);
    const bad: PlaceholderProblem | null = contentPlaceholderProblem(file.content, field);
    if (bad) issue(`${where}.content`, bad.message, bad.fix);
  });
}

/** Rules zod cannot express: placeholders, reserved variables, paths. Returns every problem found. */
export function checkProfile(profile: AgentProfile): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const issue: Issue = (field, message, fix) => issues.push({ file: profile.file, field, message, fix });

  if (profile.schema_version !== PROFILE_SCHEMA_VERSION) {
    issue(
      'schema_version',
      `${profile.schema_version} is not a profile version this agentguard reads`,
      `use schema_version: ${PROFILE_SCHEMA_VERSION} (or upgrade agentguard)`,
    );
  }
  for (const [field, argv] of [
    ['command', profile.command],
    ['version_command', profile.version_command ?? []],
  ] as const) {
    argv.forEach((item, index) => {
      const bad = wholePlaceholderProblem(item, field);
      if (bad) issue(`${field}[${index}]`, bad.message, bad.fix);
    });
  }
  // Compared with the agent's command line as run: a placeholder there would never match.
  (profile.prompt_off ?? []).forEach((item, index) => {
    if (/[{}]/.test(item))
      issue(
        `prompt_off[${index}]`,
        `'${item}' holds a placeholder, but prompt_off is compared with the command line as written`,
        "write the arguments themselves, e.g. ['--approval-mode', 'yolo']",
      );
  });
  checkEnv(profile.env_set, 'env_set', issue);
  checkEnv(profile.scripted.env_set, 'scripted.env_set', issue);
  profile.env_pass.forEach((name, index) => {
    if (RESERVED_ENV.has(name.toUpperCase()))
      issue(`env_pass[${index}]`, `${name} is set by the harness itself`, 'remove it');
  });
  checkFiles(profile.config_files, 'config_files', issue);
  checkFiles(profile.scripted.config_files, 'scripted.config_files', issue);

  profile.state_dirs.forEach((dir, index) => {
    if (!dir.startsWith('~/') || !cleanRelative(dir.slice(2)))
      issue(
        `state_dirs[${index}]`,
        `'${dir}' is not a path under HOME`,
        "write it as '~/.name' without '..'",
      );
  });
  const all = [
    ...profile.command,
    ...(profile.version_command ?? []),
    ...Object.values(profile.env_set),
    ...Object.values(profile.scripted.env_set),
    ...[...profile.config_files, ...profile.scripted.config_files].flatMap((f) => [f.path, f.content]),
  ];
  if (profile.state_dirs.length === 0 && all.some(usesStateDir)) {
    issue(
      'state_dirs',
      '{state_dir} is used but no state folder is declared',
      "add state_dirs: ['~/.agent-name']",
    );
  }

  if (profile.skills_dir !== undefined) {
    const rel = profile.skills_dir.startsWith('~/') ? profile.skills_dir.slice(2) : profile.skills_dir;
    if (!cleanRelative(rel))
      issue(
        'skills_dir',
        `'${profile.skills_dir}' is neither '~/…' nor a path inside the workspace`,
        "use e.g. '~/.codex/skills' or '.claude/skills', without '..'",
      );
  }
  const scriptedUsed =
    Object.keys(profile.scripted.env_set).length > 0 || profile.scripted.config_files.length > 0;
  if (scriptedUsed && profile.endpoint === undefined) {
    issue(
      'endpoint',
      'is required when the profile has a scripted block',
      'set endpoint to responses, chat, anthropic or gemini',
    );
  }
  if (profile.offline === true && profile.endpoint === undefined)
    issue(
      'offline',
      'is true but no endpoint says which model API the agent speaks',
      'set endpoint to responses, chat, anthropic or gemini, or set offline: false',
    );
  if (profile.offline === false && scriptedUsed)
    issue(
      'scripted',
      'is never applied: the profile says offline: false, so agentguard never serves its model',
      'remove the scripted block, or set offline: true with the endpoint it uses',
    );
  if (profile.offline_reason !== undefined && profile.offline !== false)
    issue(
      'offline_reason',
      'explains why an agent cannot run offline, but the profile does not say offline: false',
      'set offline: false, or remove offline_reason',
    );
  return issues;
}
