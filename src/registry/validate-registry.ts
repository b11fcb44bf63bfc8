import path from 'node:path';
import semver from 'semver';
import { loadRuleSet } from '../analysis/rules/load-rules.js';
import { loadConfig } from '../config/load.js';
import type { ResolvedConfig } from '../config/schema.js';
import { type ConfigIssue, errorMessage } from '../errors.js';
import type { Contract } from './contract-file.js';
import { loadContract } from './load-contract.js';
import type { Registry, RegistryFamily } from './registry-file.js';

/*
 * What the registry promises, checked against the files it names: every config loads, its
 * benchmark_id / benchmark_version / category / difficulty / tags agree with the registry, and the
 * family's contract loads, names this family, applies to one of its versions, and names only
 * variants and rules that exist. Nothing runs; every disagreement is an issue.
 */

export type ValidatedFamily = {
  family: RegistryFamily;
  /** Config per absolute path, for the configs that loaded. */
  configs: Map<string, ResolvedConfig>;
  contract?: Contract;
};

export type RegistryValidation = { issues: ConfigIssue[]; families: ValidatedFamily[] };

/** Validate the registry's families, or only those named in `only` (an audit of some families). */
export function validateRegistry(
  registry: Registry,
  only?: ReadonlySet<string>,
  /** Each family as its configs start loading (the CLI's progress line). */
  onFamily?: (id: string, index: number, count: number) => void,
): RegistryValidation {
  const issues: ConfigIssue[] = [];
  const families = registry.families.flatMap((family, i) => {
    if (only !== undefined && !only.has(family.id)) return [];
    onFamily?.(family.id, i, registry.families.length);
    return [validateFamily(registry.file, family, i, issues)];
  });
  return { issues, families };
}

function validateFamily(
  file: string,
  family: RegistryFamily,
  index: number,
  issues: ConfigIssue[],
): ValidatedFamily {
  const at = `families[${index}]`;
  const configs = new Map<string, ResolvedConfig>();
  for (const [j, v] of family.versions.entries()) {
    for (const [k, configFile] of v.configs.entries()) {
      const loaded = loadConfig(configFile);
      if (!loaded.ok) {
        issues.push(...loaded.issues);
        continue;
      }
      configs.set(configFile, loaded.value);
      const field = `${at}.versions[${j}].configs[${k}]`;
      for (const m of metadataMismatches(family, v.version, loaded.value))
        issues.push({
          file,
          field,
          message: `${path.basename(configFile)} has ${m.key} ${m.config}, the registry says ${m.registry}`,
          fix: `make ${m.key} agree in ${configFile} and the registry`,
        });
    }
  }
  const out: ValidatedFamily = { family, configs };
  if (family.contract === undefined) return out;
  const loaded = loadContract(family.contract);
  if (!loaded.ok) {
    issues.push(...loaded.issues);
    return out;
  }
  const contract = loaded.value;
  out.contract = contract;
  const issue = (field: string, message: string, fix: string) =>
    issues.push({ file: contract.file, field, message, fix });
  if (contract.family !== family.id)
    issue(
      'family',
      `names family '${contract.family}' but the registry gives it to '${family.id}'`,
      `set family: ${family.id}`,
    );
  const versions = family.versions.map((v) => v.version).filter((v) => semver.valid(v));
  if (versions.length > 0 && !versions.some((v) => semver.satisfies(v, contract.benchmark_versions)))
    issue(
      'benchmark_versions',
      `'${contract.benchmark_versions}' matches none of the family's versions (${versions.join(', ')})`,
      'widen the range or update the contract for the new version',
    );
  const variants = new Set([...configs.values()].map((c) => c.name));
  const rules = ruleIdsOf([...configs.values()], issues);
  for (const [i, ref] of contract.references.entries()) {
    if (ref.variant !== undefined && !variants.has(ref.variant))
      issue(
        `references[${i}].variant`,
        `'${ref.variant}' is not one of the family's configs`,
        `use one of ${[...variants].join(', ')}`,
      );
    for (const [key, list] of [
      ['alerts', ref.alerts],
      ['forbidden_alerts', ref.forbidden_alerts],
    ] as const)
      for (const [n, id] of list.entries())
        if (rules !== null && !rules.has(id))
          issue(
            `references[${i}].${key}[${n}]`,
            `'${id}' is not a rule of this family's rule set`,
            "use a rule id from rules/*.yaml or the config's own rule files",
          );
  }
  return out;
}

type Mismatch = { key: string; config: string; registry: string };

/** Where a config's own metadata disagrees with its registry entry. */
export function metadataMismatches(family: RegistryFamily, version: string, cfg: ResolvedConfig): Mismatch[] {
  const show = (v: unknown) =>
    v === undefined ? '(none)' : Array.isArray(v) ? `[${v.join(', ')}]` : `'${v}'`;
  const pairs: [string, unknown, unknown][] = [
    ['benchmark_id', cfg.benchmark_id, family.id],
    ['benchmark_version', cfg.benchmark_version, version],
    ['category', cfg.category, family.category],
    ['difficulty', cfg.difficulty, family.difficulty],
    ['tags', [...cfg.tags].sort(), [...family.tags].sort()],
  ];
  return pairs
    .filter(([, a, b]) => JSON.stringify(a) !== JSON.stringify(b))
    .map(([key, a, b]) => ({ key, config: show(a), registry: show(b) }));
}

/** Every rule id any of the configs can alert on, or null when a rule set cannot be read (already an issue). */
function ruleIdsOf(configs: readonly ResolvedConfig[], issues: ConfigIssue[]): Set<string> | null {
  const ids = new Set<string>();
  for (const cfg of configs) {
    try {
      for (const rule of loadRuleSet(cfg.security, { configFile: cfg.config_path }).rules) ids.add(rule.id);
    } catch (err) {
      issues.push({
        file: cfg.config_path,
        field: 'security',
        message: errorMessage(err),
        fix: 'fix the rule files',
      });
      return null;
    }
  }
  return ids;
}
