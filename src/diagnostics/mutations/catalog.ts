import { defaultRuleFiles, readRuleSources } from '../../analysis/rules/load-rules.js';
import { buildRuleSet } from '../../analysis/rules/ruleset.js';
import { ConfigError } from '../../errors.js';
import { CHANGE_ENTRIES } from './catalog-changes.js';
import { type CatalogEntry, validateCatalog } from './catalog-schema.js';
import { TEST_TIME_ENTRIES } from './catalog-test-time.js';

/** Where the catalog lives, for error messages: it is data in the source, one definition per entry. */
export const CATALOG_SOURCE = 'src/diagnostics/mutations/catalog-*.ts';

/** The whole mutation catalog, unvalidated: validation happens at load (loadCatalog). */
export const MUTATION_CATALOG: readonly unknown[] = [...CHANGE_ENTRIES, ...TEST_TIME_ENTRIES];

/** The ids of the default security rules (rules/*.yaml) as a run loads them, in file order. */
export function defaultRuleIds(): string[] {
  const ruleset = buildRuleSet(readRuleSources(defaultRuleFiles()));
  return ruleset.rules.map((r) => r.id);
}

/**
 * The validated catalog, narrowed to `only` (entry ids) when given. A bad entry or an unknown id is
 * a ConfigError: one sentence per problem, naming the entry and the field.
 */
export function loadCatalog(
  ruleIds: readonly string[],
  only: readonly string[] = [],
  raw: readonly unknown[] = MUTATION_CATALOG,
): CatalogEntry[] {
  const result = validateCatalog(raw, ruleIds);
  if (!result.ok)
    throw new ConfigError(`the mutation catalog (${CATALOG_SOURCE}) is invalid: ${result.issues.join('; ')}`);
  if (only.length === 0) return result.entries;
  const ids = new Set(result.entries.map((e) => e.id));
  const unknown = only.filter((id) => !ids.has(id));
  if (unknown.length > 0)
    throw new ConfigError(
      `--only ${unknown.map((u) => `'${u}'`).join(', ')}: no such catalog entry. Fix: use ids from 'agentguard diagnostics mutations --list', e.g. ${[...ids].slice(0, 3).join(', ')}.`,
    );
  const wanted = new Set(only);
  return result.entries.filter((e) => wanted.has(e.id));
}
