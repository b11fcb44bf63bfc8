import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { z } from 'zod';
import { loadYamlFile, type YamlFileKind } from '../config/load-yaml-file.js';
import { ConfigError, type ConfigIssue } from '../errors.js';

/*
 * The benchmark registry: stable family ids, each with its metadata (category, difficulty, tags),
 * an optional contract, and its versions, each version one or more config variants (the same task
 * for different agents). It catalogues; it does not run anything, and suites never depend on it —
 * `registry suite` writes an ordinary suite file from it.
 *
 * This file reads the registry's own shape and paths. What needs the configs and contracts loaded
 * (metadata alignment, contract references) is `validateRegistry` in validate-registry.ts.
 */

const nonEmpty = z.string().min(1);
const FAMILY_ID = /^[a-z0-9][a-z0-9._-]*$/;

const VersionSchema = z.strictObject({
  version: nonEmpty,
  /** Config files of this version, relative to the registry file: one per variant. */
  configs: z.array(nonEmpty).min(1, 'must list at least one config'),
});

const FamilySchema = z.strictObject({
  id: nonEmpty.regex(FAMILY_ID, 'must be lower-case letters, digits, dots, dashes or underscores'),
  description: nonEmpty.optional(),
  category: nonEmpty,
  difficulty: z.enum(['easy', 'medium', 'hard']).optional(),
  tags: z.array(nonEmpty).default([]),
  /** The family's contract file, relative to the registry file. */
  contract: nonEmpty.optional(),
  versions: z.array(VersionSchema).min(1, 'must list at least one version'),
});

export const RegistryFileSchema = z.strictObject({
  schema: z.literal(1, { error: 'must be 1, the only registry schema this agentguard reads' }),
  families: z.array(FamilySchema).min(1, 'must list at least one family'),
});

export type RegistryVersion = { version: string; configs: string[] };
export type RegistryFamily = Omit<z.output<typeof FamilySchema>, 'versions' | 'contract'> & {
  /** Absolute path of the contract file, when the family has one. */
  contract?: string;
  /** Newest first. */
  versions: RegistryVersion[];
};
export type Registry = { file: string; families: RegistryFamily[] };

const REGISTRY_FILE: YamlFileKind = {
  what: 'registry',
  docs: 'docs/registry.md',
  notMapping: {
    message: 'must be a YAML mapping of keys to values',
    fix: 'see docs/registry.md for the registry format',
  },
};

/** The registry file shipped with agentguard, listing every shipped benchmark. */
export const SHIPPED_REGISTRY = 'benchmarks/registry.yaml';

/**
 * Read a registry file: its shape, unique family ids and versions, strict semver versions, and
 * config and contract paths that exist inside the registry's folder. Every problem is reported at
 * once as a ConfigError naming the file and the field.
 */
export function loadRegistry(file: string): Registry {
  const abs = path.resolve(file);
  const loaded = loadYamlFile(abs, RegistryFileSchema, REGISTRY_FILE);
  if (!loaded.ok) throw new ConfigError(loaded.issues);
  const issues: ConfigIssue[] = [];
  const issue = (field: string, message: string, fix: string) =>
    issues.push({ file: abs, field, message, fix });
  const dir = path.dirname(abs);
  const local = (field: string, rel: string): string => {
    const target = path.resolve(dir, rel);
    const inside = path.relative(dir, target);
    if (path.isAbsolute(rel) || inside.startsWith('..'))
      issue(
        field,
        `'${rel}' is outside the registry's folder`,
        "write it relative to the registry file, without '..'",
      );
    else if (!existsSync(target) || !statSync(target).isFile())
      issue(field, `${target} does not exist`, 'check the path (relative to the registry file)');
    return target;
  };
  const seen = new Set<string>();
  const families: RegistryFamily[] = loaded.value.families.map((f, i) => {
    const at = `families[${i}]`;
    if (seen.has(f.id))
      issue(`${at}.id`, `family '${f.id}' appears twice`, 'give every family a distinct id');
    seen.add(f.id);
    const versions = new Set<string>();
    const family: RegistryFamily = {
      ...f,
      contract: f.contract === undefined ? undefined : local(`${at}.contract`, f.contract),
      versions: f.versions.map((v, j) => {
        if (semver.valid(v.version) === null || semver.clean(v.version) !== v.version)
          issue(
            `${at}.versions[${j}].version`,
            `'${v.version}' is not a strict semantic version`,
            "write MAJOR.MINOR.PATCH, e.g. '1.0.0'",
          );
        else if (versions.has(v.version))
          issue(
            `${at}.versions[${j}].version`,
            `version ${v.version} of '${f.id}' appears twice`,
            'list each version once',
          );
        versions.add(v.version);
        return {
          version: v.version,
          configs: v.configs.map((c, k) => local(`${at}.versions[${j}].configs[${k}]`, c)),
        };
      }),
    };
    if (family.contract === undefined) delete family.contract;
    family.versions.sort((a, b) =>
      semver.valid(a.version) && semver.valid(b.version) ? semver.rcompare(a.version, b.version) : 0,
    );
    return family;
  });
  if (issues.length > 0) throw new ConfigError(issues);
  return { file: abs, families };
}
