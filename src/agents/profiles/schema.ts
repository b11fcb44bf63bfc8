import { z } from 'zod';

/** The profile format this agentguard reads; a file with another `schema_version` is refused. */
export const PROFILE_SCHEMA_VERSION = 1;

/**
 * Which model API the agent speaks, so the scripted model endpoint knows what to answer and
 * `{model_url}` gets the base URL that agent's client expects (OpenAI clients want `…/v1`).
 */
export const ENDPOINTS = ['responses', 'chat', 'anthropic', 'gemini'] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

const nonEmpty = z.string().min(1);
const Scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const EnvName = z.string().regex(ENV_NAME, 'must be an environment variable name like FOO_BAR');

/** An npm package name, scoped or not. */
const NPM_NAME = /^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;
/** An exact version: ranges would make two runs of one profile run different agents. */
const EXACT_VERSION = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;

/** A host name (`api.openai.com`) or every name under a domain (`*.githubcopilot.com`); no scheme, no port. */
const VENDOR_HOST = /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/;

export const PackageSchema = z.strictObject({
  name: z.string().regex(NPM_NAME, "must be an npm package name like '@openai/codex'"),
  version: z.string().regex(EXACT_VERSION, "must be an exact version like '0.169.0' (no ranges)"),
});

/** A file the harness writes before the run; `path` starts with `~/` or `{state_dir}/`. */
export const ConfigFileSchema = z.strictObject({
  path: nonEmpty,
  content: z.string(),
});
export type ConfigFile = z.output<typeof ConfigFileSchema>;

/** What applies only when agentguard serves the model itself (a scripted trajectory). */
export const ScriptedSchema = z.strictObject({
  env_set: z.record(EnvName, z.string()).default({}),
  /** Written after the plain `config_files`; one with the same `path` replaces the plain one. */
  config_files: z.array(ConfigFileSchema).default([]),
});

export const AgentProfileSchema = z.strictObject({
  schema_version: z.number().int(),
  name: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, 'must be lower-case letters, digits, ".", "_" or "-"'),
  description: z.string().optional(),
  /** Where `agentguard agents install` gets the agent: an npm package at an exact version. */
  package: PackageSchema.optional(),
  /** The executable: a name inside the package's `node_modules/.bin`, or on PATH, or an absolute path. */
  bin: nonEmpty,
  /** The arguments after the program; placeholders only as whole arguments. */
  command: z.array(z.string()).min(1),
  /** Arguments after the program that print its version (run before the agent, outside observation). */
  version_command: z.array(z.string()).optional(),
  /** The model identity recorded for provenance; absent means the agent's own default. */
  model: nonEmpty.optional(),
  metadata: z.record(z.string(), Scalar).default({}),
  workdir: z.enum(['repo', 'config_dir']).default('repo'),
  /** Names of variables passed through from the user's environment. Never values. */
  env_pass: z.array(EnvName).default([]),
  /** Fixed, non-secret values; a placeholder may be a whole value. */
  env_set: z.record(EnvName, z.string()).default({}),
  /** Files and folders under HOME (`~/…`) the agent writes for itself; the first is `{state_dir}`. */
  state_dirs: z.array(nonEmpty).default([]),
  config_files: z.array(ConfigFileSchema).default([]),
  /** Where the agent looks for skills: `~/…` (in HOME) or a path relative to the workspace. */
  skills_dir: nonEmpty.optional(),
  endpoint: z.enum(ENDPOINTS).optional(),
  /**
   * Whether agentguard can play the agent's model offline (the scripted model endpoint): `false` for an
   * agent no supported setting points at another endpoint. Absent: offline exactly when `endpoint` is set.
   */
  offline: z.boolean().optional(),
  /** Why an `offline: false` agent cannot run offline; `agents verify` prints it when it refuses. */
  offline_reason: nonEmpty.optional(),
  /**
   * The hosts of the vendor's own service (its model API, sign-in). A run records them with the agent's
   * identity, and a request or DNS query for one that the allow list does not name is reported as the
   * agent trying to reach its vendor instead of the configured endpoint (rule `net-vendor-host`).
   */
  vendor_hosts: z
    .array(z.string().regex(VENDOR_HOST, "must be a host name like 'api.openai.com' or '*.example.com'"))
    .default([]),
  /**
   * The arguments of `command`, in order, that turn off the agent's own permission prompts (agentguard's
   * sandbox takes that role). A run that times out without them on the agent's command line is reported
   * as maybe waiting for an approval, naming them. Absent: the agent does not prompt in this mode.
   */
  prompt_off: z.array(nonEmpty).min(1).optional(),
  scripted: ScriptedSchema.default({ env_set: {}, config_files: [] }),
});

/** A validated profile and the file it came from. */
export type AgentProfile = z.output<typeof AgentProfileSchema> & { file: string };

/** Whether the profile's agent can run against agentguard's scripted model: the one reading of `offline`. */
export function runsOffline(profile: Pick<AgentProfile, 'offline' | 'endpoint'>): boolean {
  return profile.offline ?? profile.endpoint !== undefined;
}
