import { z } from 'zod';
import { CHECK_IDS, type CheckId } from '../../config/check-ids.js';
import { ACTION_KINDS, type Action, ActionSchema } from './actions.js';

/** The shipped benchmarks a mutation may copy (never modify: actions change only the copy). */
export const MUTATION_FIXTURES = ['js-slugify', 'py-inventory', 'sh-logrotate'] as const;
export type MutationFixture = (typeof MUTATION_FIXTURES)[number];

export const MUTATION_CATEGORIES = [
  'safe',
  'tests',
  'test-tampering',
  'paths',
  'diff-size',
  'secrets',
  'workspace',
  'persistence',
  'agent-step',
  'test-time-secrets',
  'test-time-integrity',
  'test-time-execution',
  'test-time-network',
  'test-time-persistence',
  'test-time-evasion',
] as const;

const Expectation = z
  .object({
    checks: z.array(z.enum(CHECK_IDS)).default([]),
    rules: z.array(z.string().min(1)).default([]),
  })
  .strict();

export const CatalogEntrySchema = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lower-case letters, digits and dashes'),
    category: z.enum(MUTATION_CATEGORIES),
    description: z.string().min(1),
    fixture: z.enum(MUTATION_FIXTURES),
    actions: z.array(ActionSchema),
    /** Checks that must fail and rules that must alert. Empty for a safe entry, which must stay quiet. */
    must_fail: Expectation.default({ checks: [], rules: [] }),
    /** Checks that must pass and rules that must stay silent (a safe entry: every check and rule). */
    must_not_fail: Expectation.default({ checks: [], rules: [] }),
    /** The scored verdict the run must get; FAIL for a mutation, PASS for a safe entry unless stated. */
    verdict: z.enum(['PASS', 'FAIL']).optional(),
  })
  .strict();

export type CatalogEntryInput = z.input<typeof CatalogEntrySchema>;
export type CatalogEntry = Omit<z.output<typeof CatalogEntrySchema>, 'actions' | 'verdict'> & {
  actions: Action[];
  verdict: 'PASS' | 'FAIL';
};

export function isSafe(entry: Pick<CatalogEntry, 'must_fail'>): boolean {
  return entry.must_fail.checks.length === 0 && entry.must_fail.rules.length === 0;
}

export type CatalogResult = { ok: true; entries: CatalogEntry[] } | { ok: false; issues: string[] };

/**
 * Validate catalog entries against the schema, the check ids and the given rule ids (the default
 * rules'). Every problem is one sentence naming the entry, the field and the fix. Pure.
 */
export function validateCatalog(raw: readonly unknown[], ruleIds: readonly string[]): CatalogResult {
  const issues: string[] = [];
  const entries: CatalogEntry[] = [];
  const seen = new Set<string>();
  const known = new Set(ruleIds);
  raw.forEach((item, index) => {
    const name = entryName(item, index);
    const parsed = CatalogEntrySchema.safeParse(item);
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        issues.push(`${name}, field '${fieldOf(issue.path)}': ${describe(issue)}`);
      return;
    }
    const entry = parsed.data;
    if (seen.has(entry.id)) issues.push(`${name}: the id is used twice. Fix: give each entry its own id.`);
    seen.add(entry.id);
    for (const side of ['must_fail', 'must_not_fail'] as const) {
      entry[side].rules.forEach((rule, i) => {
        if (!known.has(rule))
          issues.push(
            `${name}, field '${side}.rules[${i}]': '${rule}' is not a default security rule. Fix: use a rule id from rules/*.yaml.`,
          );
      });
    }
    const both = [
      ...entry.must_fail.checks.filter((c) => entry.must_not_fail.checks.includes(c)),
      ...entry.must_fail.rules.filter((r) => entry.must_not_fail.rules.includes(r)),
    ];
    if (both.length > 0)
      issues.push(`${name}: ${both.join(', ')} must both fail and not fail. Fix: keep each id in one list.`);
    const safe = isSafe(entry);
    entries.push({ ...entry, verdict: entry.verdict ?? (safe ? 'PASS' : 'FAIL') });
  });
  return issues.length > 0 ? { ok: false, issues } : { ok: true, entries };
}

function entryName(item: unknown, index: number): string {
  const id = typeof item === 'object' && item !== null ? (item as { id?: unknown }).id : undefined;
  return typeof id === 'string' ? `catalog entry '${id}'` : `catalog entry ${index + 1}`;
}

function fieldOf(path: readonly PropertyKey[]): string {
  return path
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
    .join('')
    .replace(/^\./, '');
}

function describe(issue: z.core.$ZodIssue): string {
  const last = issue.path[issue.path.length - 1];
  if (last === 'kind' || (issue.code === 'invalid_union' && issue.path.includes('actions')))
    return `unknown action kind. Fix: use one of ${ACTION_KINDS.join(', ')}.`;
  if (issue.code === 'invalid_value' && issue.path.includes('checks'))
    return `unknown check id. Fix: use one of ${CHECK_IDS.join(', ')} (agentguard checks).`;
  return `${issue.message}. Fix: correct the entry in src/diagnostics/mutations/catalog-*.ts.`;
}

/** Every check id, for entries whose planted change must leave every check passing. */
export const ALL_CHECKS: readonly CheckId[] = CHECK_IDS;
