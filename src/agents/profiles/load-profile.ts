import { readdirSync } from 'node:fs';
import path from 'node:path';
import { closestKey } from '../../config/closest-key.js';
import { readYamlValue, validateYamlValue, type YamlFileKind } from '../../config/load-yaml-file.js';
import { ConfigError, type ConfigIssue } from '../../errors.js';
import { packageRoot } from '../../package-root.js';
import { checkProfile } from './check-profile.js';
import { type AgentProfile, AgentProfileSchema } from './schema.js';

export type ProfileLoadResult = { ok: true; value: AgentProfile } | { ok: false; issues: ConfigIssue[] };

/** How a profile file is named in its issues, and where its keys are documented. */
const PROFILE_FILE: YamlFileKind = {
  what: 'profile',
  docs: 'src/agents/profiles/README.md',
  notMapping: { message: 'must be a YAML mapping', fix: 'start with schema_version: 1 and name: ...' },
};

/** The folder holding the built-in profiles (`agents/` at the package root). */
export function builtinProfileDir(): string {
  return path.join(packageRoot(), 'agents');
}

/** Names of the built-in profiles, sorted. */
export function listBuiltinProfiles(): string[] {
  let names: string[];
  try {
    names = readdirSync(builtinProfileDir());
  } catch {
    return [];
  }
  return names
    .filter((n) => n.endsWith('.yaml'))
    .map((n) => n.slice(0, -'.yaml'.length))
    .sort();
}

/** A built-in name (`codex`) or a path to a profile file (anything with a `/` or a .yaml/.yml suffix). */
export function isProfilePath(nameOrPath: string): boolean {
  return nameOrPath.includes('/') || /\.ya?ml$/.test(nameOrPath);
}

/**
 * Load and validate a profile by built-in name or file path. Throws one ConfigError naming the
 * file, the field and the fix for every problem found; nothing has run yet when it does.
 */
export function loadProfile(nameOrPath: string): AgentProfile {
  const result = loadProfileResult(nameOrPath);
  if (!result.ok) throw new ConfigError(result.issues);
  return result.value;
}

export function loadProfileResult(nameOrPath: string): ProfileLoadResult {
  const builtin = !isProfilePath(nameOrPath);
  if (builtin) {
    const names = listBuiltinProfiles();
    if (!names.includes(nameOrPath)) {
      const guess = closestKey(nameOrPath, names);
      return {
        ok: false,
        issues: [
          {
            file: `agent profile '${nameOrPath}'`,
            field: '',
            message: `there is no built-in agent profile '${nameOrPath}' (built-in: ${names.join(', ') || 'none'})`,
            fix: guess ? `use '${guess}'` : 'use one of those names or give the path of a profile file',
          },
        ],
      };
    }
  }
  const file = builtin ? path.join(builtinProfileDir(), `${nameOrPath}.yaml`) : path.resolve(nameOrPath);
  const yaml = readYamlValue(file, PROFILE_FILE);
  if (!yaml.ok) return yaml;
  const result = parseProfile(yaml.value, file);
  if (result.ok && builtin && result.value.name !== nameOrPath) {
    const fix = `set name: ${nameOrPath} to match the file name`;
    return { ok: false, issues: [{ file, field: '', message: `names itself '${result.value.name}'`, fix }] };
  }
  return result;
}

/** Validate an already-parsed profile document. */
export function parseProfile(raw: unknown, file: string): ProfileLoadResult {
  const parsed = validateYamlValue(file, raw, AgentProfileSchema, PROFILE_FILE);
  if (!parsed.ok) return parsed;
  const profile: AgentProfile = { ...parsed.value, file };
  const issues = checkProfile(profile);
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value: profile };
}
