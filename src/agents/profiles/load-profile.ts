import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { closestKey } from '../../config/closest-key.js';
import { type ConfigIssue, formatIssue } from '../../config/load.js';
import { readYamlFile } from '../../config/yaml.js';
import { ConfigError } from '../../errors.js';
import { packageRoot } from '../../package-root.js';
import { checkProfile } from './check-profile.js';
import { type AgentProfile, AgentProfileSchema, PROFILE_KEYS } from './schema.js';

export type ProfileLoadResult = { ok: true; value: AgentProfile } | { ok: false; issues: ConfigIssue[] };

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
  if (!result.ok) throw new ConfigError(result.issues.map(formatIssue).join('\n'));
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
  const fail = (message: string, fix: string): ProfileLoadResult => ({
    ok: false,
    issues: [{ file, field: '', message, fix }],
  });
  const yaml = readYamlFile(file);
  if (!yaml.ok) {
    const { problem } = yaml;
    if (problem.read === 'missing') return fail('the profile file does not exist', 'check the path');
    if (problem.read === 'not-a-file' && /folder/.test(problem.message))
      return fail('this is a folder, not a profile file', 'pass the YAML file');
    return fail(problem.message, problem.line ? 'correct the YAML syntax there' : problem.fix);
  }
  const result = parseProfile(yaml.value, file);
  if (result.ok && builtin && result.value.name !== nameOrPath) {
    return fail(`names itself '${result.value.name}'`, `set name: ${nameOrPath} to match the file name`);
  }
  return result;
}

/** Validate an already-parsed profile document. */
export function parseProfile(raw: unknown, file: string): ProfileLoadResult {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return {
      ok: false,
      issues: [
        {
          file,
          field: '',
          message: 'must be a YAML mapping',
          fix: 'start with schema_version: 1 and name: ...',
        },
      ],
    };
  }
  const parsed = AgentProfileSchema.safeParse(raw);
  if (!parsed.success) {
    // A misspelt key also shows up as a missing one; the misspelling is the useful sentence, so it goes first.
    const issues = [...parsed.error.issues].sort(
      (a, b) => Number(b.code === 'unrecognized_keys') - Number(a.code === 'unrecognized_keys'),
    );
    return { ok: false, issues: issues.map((i) => zodIssue(file, i)) };
  }
  const profile: AgentProfile = { ...parsed.data, file };
  const issues = checkProfile(profile);
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value: profile };
}

function fieldName(parts: readonly PropertyKey[]): string {
  return parts
    .map((p) => (typeof p === 'number' ? `[${p}]` : String(p)))
    .join('.')
    .replace(/\.\[/g, '[');
}

function zodIssue(file: string, issue: z.core.$ZodIssue): ConfigIssue {
  const field = fieldName(issue.path);
  switch (issue.code) {
    case 'unrecognized_keys': {
      const key = issue.keys[0] ?? '';
      const level = issue.path.filter((p) => typeof p === 'string').join('.');
      const guess = closestKey(key, PROFILE_KEYS[level] ?? []);
      return {
        file,
        field: field ? `${field}.${key}` : key,
        message: `'${key}' is not a known key${issue.keys.length > 1 ? ` (nor ${issue.keys.slice(1).join(', ')})` : ''}`,
        fix: guess ? `rename it to '${guess}'` : 'remove it; src/agents/profiles/README.md lists every key',
      };
    }
    case 'invalid_type': {
      const received = issue.message.match(/received (\w+)/)?.[1] ?? 'something else';
      if (received === 'undefined') {
        return { file, field, message: 'is required but missing', fix: `add '${field}'` };
      }
      return {
        file,
        field,
        message: `must be a ${issue.expected}, not a ${received}`,
        fix:
          issue.expected === 'string' && (received === 'number' || received === 'boolean')
            ? `quote it: YAML reads bare ${received === 'number' ? 'numbers' : 'true/false/yes/no'} as ${received}s`
            : `give a ${issue.expected}`,
      };
    }
    case 'invalid_value':
      return {
        file,
        field,
        message: `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`,
        fix: 'use one of those values',
      };
    case 'too_small':
      return { file, field, message: 'must not be empty', fix: `give at least one item in '${field}'` };
    default:
      return { file, field, message: issue.message.toLowerCase(), fix: 'see src/agents/profiles/README.md' };
  }
}
