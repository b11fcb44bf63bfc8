import { existsSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, type ConfigIssue, errorMessage, formatIssue } from '../errors.js';
import { readTextFile } from '../evidence/read.js';
import { type Loaded, readYamlValue, validateYamlValue, type YamlFileKind } from './load-yaml-file.js';
import { CONFIG_DIR, renderConfigDir, resolveMounts, sandboxKindOf } from './mounts.js';
import { resolveSetup } from './resolve-setup.js';
import { BenchmarkConfigSchema, type ResolvedConfig } from './schema.js';
import { shellSplit } from './shell-split.js';
import { systemFolder } from './system-folder.js';

export type { ConfigIssue } from '../errors.js';
export { formatIssue };

export type LoadResult = { ok: true; value: ResolvedConfig } | { ok: false; issues: ConfigIssue[] };

/** How a config file is named in its issues, and where its keys are documented. */
export const CONFIG_FILE: YamlFileKind = {
  what: 'config',
  docs: 'docs/config.md',
  missingFix: 'check the path you passed',
  notMapping: {
    message: 'must be a YAML mapping of keys to values',
    fix: 'start the file with `name: ...` and the other keys',
  },
};

export const PLACEHOLDERS = ['{task_prompt}', '{task_file}', '{repo_dir}', '{config_dir}'] as const;

const MAX_PROMPT_BYTES = 256 * 1024;

/** Throw the issues of a failed load as one ConfigError (for callers that do not branch). */
export function loadConfigOrThrow(file: string): ResolvedConfig {
  const result = loadConfig(file);
  if (!result.ok) throw new ConfigError(result.issues);
  return result.value;
}

export function loadConfig(file: string): LoadResult {
  const configPath = path.resolve(file);
  const read = readConfigYaml(configPath);
  return read.ok ? resolveConfigObject(read.value, configPath) : read;
}

/** A config file's YAML value, or the one issue that says why it could not be read or parsed. */
export function readConfigYaml(configPath: string): Loaded<unknown> {
  return readYamlValue(configPath, CONFIG_FILE);
}

/**
 * Validate and resolve a parsed config object as if it had been read from `configPath` (relative
 * paths resolve against its folder). CI mode builds its object from a policy-only file and uses this,
 * so both kinds of config are checked by the same code.
 */
export function resolveConfigObject(raw: unknown, configPath: string): LoadResult {
  const parsed = validateYamlValue(configPath, raw, BenchmarkConfigSchema, CONFIG_FILE);
  if (!parsed.ok) return parsed;
  const cfg = parsed.value;
  const configDir = path.dirname(configPath);

  const issues: ConfigIssue[] = [];
  const issue = (field: string, message: string, fix: string) =>
    issues.push({ file: configPath, field, message, fix });

  const repo = path.resolve(configDir, cfg.repo);
  if (!isDir(repo))
    issue('repo', `template folder ${repo} does not exist`, 'point repo at the task repository folder');
  else {
    const system = systemFolder(repo);
    if (system)
      issue(
        'repo',
        `${repo} is ${system}, which agentguard will not copy as a task template`,
        'point repo at the task repository folder (usually next to the config, e.g. repo: repo)',
      );
  }

  // A bare grader name that is a folder of the template is stored as `folder/**`, so the
  // grading-files check can tell listing that folder (harmless) from reading a grader file.
  cfg.grader_paths = cfg.grader_paths.map((g) => {
    const stem = g.replace(/^\.\//, '');
    if (/[*?[\]{}!]/.test(stem) || stem.endsWith('/')) return g;
    return isDir(path.join(repo, stem)) ? `${stem}/**` : g;
  });

  let solution: string | undefined;
  if (cfg.solution !== undefined) {
    solution = path.resolve(configDir, cfg.solution);
    if (!isDir(solution))
      issue('solution', `folder ${solution} does not exist`, 'create it or remove the key');
  }

  let prompt = cfg.task.prompt ?? '';
  let promptFile: string | undefined;
  if (cfg.task.prompt_file !== undefined) {
    const resolved = confinedPath(configDir, cfg.task.prompt_file);
    if (resolved === null) {
      issue(
        'task.prompt_file',
        `'${cfg.task.prompt_file}' is outside the config's folder ${configDir}`,
        'move the prompt file into that folder or use task.prompt',
      );
    } else {
      const read = readTextFile(resolved, MAX_PROMPT_BYTES);
      if (read.ok) {
        prompt = read.text;
        promptFile = resolved;
      } else if (read.error.code === 'too-big') {
        issue('task.prompt_file', `is over the ${MAX_PROMPT_BYTES}-byte limit`, 'shorten it');
      } else {
        issue(
          'task.prompt_file',
          `${resolved} does not exist or is not a file (${read.error.detail})`,
          'create it or fix the path',
        );
      }
    }
  }

  const command = (field: string, value: string | string[] | undefined): string[] | undefined => {
    if (value === undefined) return undefined;
    let argv: string[];
    try {
      argv = typeof value === 'string' ? shellSplit(value) : value;
    } catch (err) {
      issue(field, `cannot be split into arguments: ${errorMessage(err)}`, 'balance the quotes');
      return undefined;
    }
    if (argv.length === 0 || argv[0] === '') {
      issue(field, 'is empty', 'give the program to run and its arguments');
      return undefined;
    }
    for (const item of argv) {
      const bad = badPlaceholder(item);
      if (bad)
        issue(field, bad, `use one of ${PLACEHOLDERS.join(', ')} as a whole argument, or {config_dir}/path`);
    }
    return argv;
  };
  const testCommand = command('test_command', cfg.test_command);
  const agentCommand = command('agent_command', cfg.agent_command);
  const versionCommand = command('agent_version_command', cfg.agent_version_command);
  const setupCommand = command('setup_command', cfg.setup_command);
  if (cfg.setup) cfg.setup = resolveSetup(cfg.setup, { configDir, repo: isDir(repo) ? repo : null }, issue);

  for (const [index, source] of [...cfg.unsafe_commands.entries()]) {
    try {
      new RegExp(source);
    } catch (err) {
      issue(
        `unsafe_commands[${index}]`,
        `is not a valid regular expression (${errorMessage(err)})`,
        'fix it',
      );
    }
  }
  for (const [index, det] of cfg.secret_detectors.entries()) {
    if ((det.literal === undefined) === (det.pattern === undefined)) {
      issue(`secret_detectors[${index}]`, 'needs exactly one of literal or pattern', 'give one of them');
    } else if (det.literal !== undefined && det.literal.length < 6) {
      issue(
        `secret_detectors[${index}].literal`,
        'is shorter than 6 characters',
        'use a longer, distinctive literal',
      );
    } else if (det.pattern !== undefined) {
      try {
        new RegExp(det.pattern);
      } catch (err) {
        issue(
          `secret_detectors[${index}].pattern`,
          `is not a valid regular expression (${errorMessage(err)})`,
          'fix it',
        );
      }
    }
  }

  const ruleFiles = cfg.security.rules.map((f) => path.resolve(configDir, f));
  for (const [index, file] of ruleFiles.entries()) {
    if (!existsSync(file)) {
      issue(
        `security.rules[${index}]`,
        `rule file ${file} does not exist`,
        'correct the path (relative to the config)',
      );
    }
  }
  cfg.security.rules = ruleFiles;

  let agentProfile: string | undefined;
  if (cfg.agent_profile !== undefined) {
    // A built-in name stays as is; a profile file (a path) is resolved against the config's folder.
    // The profile itself is validated when the agent is planned, before anything is written.
    const isPath = cfg.agent_profile.includes('/') || /\.ya?ml$/.test(cfg.agent_profile);
    agentProfile = isPath ? path.resolve(configDir, cfg.agent_profile) : cfg.agent_profile;
    if (cfg.agent_command !== undefined)
      issue('agent_profile', 'cannot be combined with agent_command', 'keep one of the two');
  }
  let modelScript: string | undefined;
  if (cfg.model_script !== undefined) {
    modelScript = confinedPath(configDir, cfg.model_script) ?? undefined;
    if (modelScript === undefined)
      issue(
        'model_script',
        `'${cfg.model_script}' is outside the config's folder`,
        'move the trajectory into that folder',
      );
    else if (!existsSync(modelScript))
      issue('model_script', `${modelScript} does not exist`, 'create it or fix the path');
    if (cfg.agent_profile === undefined)
      issue(
        'model_script',
        'needs agent_profile (the profile says how to point the agent at the scripted model)',
        'add agent_profile',
      );
  }
  if (cfg.model_relay !== undefined) {
    if (cfg.model_script !== undefined)
      issue(
        'model_relay',
        'cannot be combined with model_script',
        'keep one: the relay or the scripted model',
      );
    if (cfg.agent_profile === undefined)
      issue(
        'model_relay',
        'needs agent_profile (the profile says how to point the agent at the relay)',
        'add agent_profile',
      );
  }
  if (cfg.budget !== undefined) {
    if (cfg.model_relay === undefined)
      issue(
        'budget',
        'caps only what the relay forwards, and the config has no model_relay',
        'add model_relay or remove budget',
      );
    if (cfg.budget.max_usd !== undefined && cfg.pricing === undefined)
      issue(
        'budget.max_usd',
        'needs pricing to know what a token costs',
        'add pricing (input_per_million, output_per_million)',
      );
  }
  let skills: string | undefined;
  if (cfg.skills !== undefined) {
    skills = confinedPath(configDir, cfg.skills) ?? undefined;
    if (skills === undefined)
      issue(
        'skills',
        `'${cfg.skills}' is outside the config's folder`,
        'move the skills folder into that folder',
      );
    else if (!isDir(skills)) issue('skills', `folder ${skills} does not exist`, 'create it or fix the path');
    if (cfg.agent_profile === undefined)
      issue(
        'skills',
        'needs agent_profile (the profile says where its agent looks for skills)',
        'add agent_profile',
      );
  }

  const mounts = resolveMounts(
    {
      sandbox: cfg.sandbox,
      toolchains: cfg.toolchains,
      commands: [
        ['agent_command', agentCommand],
        ['agent_version_command', versionCommand],
        ['setup_command', setupCommand],
        ['test_command', testCommand],
      ],
      workdirIsConfigDir: cfg.agent_workdir === 'config_dir',
      configDir,
      home: process.env.HOME,
    },
    issue,
  );

  if (issues.length > 0 || testCommand === undefined) return { ok: false, issues };

  const {
    agent_command: _a,
    agent_version_command: _v,
    setup_command: _c,
    solution: _s,
    sandbox: _b,
    toolchains: _t,
    ...rest
  } = cfg;
  const sandbox = sandboxKindOf(cfg.sandbox);
  // The agent's commands are rendered when it is planned; the tests and setup run as written, so
  // their `{config_dir}` arguments are written out here.
  const value: ResolvedConfig = {
    ...rest,
    ...(sandbox ? { sandbox } : {}),
    mounts,
    config_path: configPath,
    config_dir: configDir,
    repo,
    prompt,
    test_command: testCommand.map((a) => renderConfigDir(a, configDir)),
  };
  if (solution !== undefined) value.solution = solution;
  if (promptFile !== undefined) value.prompt_file = promptFile;
  if (agentCommand !== undefined) value.agent_command = agentCommand;
  if (versionCommand !== undefined) value.agent_version_command = versionCommand;
  if (setupCommand !== undefined)
    value.setup_command = setupCommand.map((a) => renderConfigDir(a, configDir));
  if (agentProfile !== undefined) value.agent_profile = agentProfile;
  if (modelScript !== undefined) value.model_script = modelScript;
  if (skills !== undefined) value.skills = skills;
  return { ok: true, value };
}

/** A message when `item` uses a placeholder other than as one whole known argument. */
export function badPlaceholder(item: string): string | null {
  if ((PLACEHOLDERS as readonly string[]).includes(item)) return null;
  // `{config_dir}/rel`: a path under (or beside) the config's folder, shown to the sandbox (mounts.ts).
  if (item.startsWith(`${CONFIG_DIR}/`) && !/\{[a-z_]+\}/.test(item.slice(CONFIG_DIR.length))) return null;
  const found = item.match(/\{[a-z_]+\}/g);
  if (!found) return null;
  const unknown = found.find((p) => !(PLACEHOLDERS as readonly string[]).includes(p));
  if (unknown) return `uses the unknown placeholder ${unknown}`;
  return `embeds ${found[0]} inside the argument '${item}'`;
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** `rel` resolved under `root`, following symlinks, or null when it escapes. */
function confinedPath(root: string, rel: string): string | null {
  const abs = path.resolve(root, rel);
  let real = abs;
  try {
    real = realpathSync(abs);
  } catch {
    // a missing file is reported by the caller; judge the lexical path
  }
  const realRoot = realpathSync(root);
  const inside = (p: string, r: string) => p === r || p.startsWith(r + path.sep);
  return inside(abs, root) && inside(real, realRoot) ? abs : null;
}
