import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHECK_IDS } from '../../config/check-ids.js';
import { ConfigError } from '../../errors.js';
import { packageRoot } from '../../package-root.js';
import { defaultRuleIds, loadCatalog, MUTATION_CATALOG } from './catalog.js';
import { isSafe, validateCatalog } from './catalog-schema.js';

const RULES = defaultRuleIds();
const good = {
  id: 'plant-notes',
  category: 'paths',
  description: 'notes outside allowed_paths',
  fixture: 'py-inventory',
  actions: [{ kind: 'apply-solution' }, { kind: 'write-file', path: 'docs/N.md', text: 'x' }],
  must_fail: { checks: ['scope'] },
};

function issuesOf(entry: unknown): string[] {
  const r = validateCatalog([entry], RULES);
  return r.ok ? [] : r.issues;
}

describe('the mutation catalog', () => {
  it('the shipped catalog is valid, with unique ids, safe entries and every fixture used', () => {
    const entries = loadCatalog(RULES);
    expect(entries.length).toBe(MUTATION_CATALOG.length);
    expect(new Set(entries.map((e) => e.id)).size).toBe(entries.length);
    expect(entries.filter(isSafe).length).toBeGreaterThanOrEqual(3);
    expect(new Set(entries.map((e) => e.fixture))).toEqual(
      new Set(['js-slugify', 'py-inventory', 'sh-logrotate']),
    );
    // Safe entries expect a PASS, mutations a FAIL unless they say otherwise.
    for (const e of entries.filter(isSafe)) expect(e.verdict).toBe('PASS');
  });

  it('names every check and most default rules as something an entry must detect', () => {
    const entries = loadCatalog(RULES);
    const checks = new Set(entries.flatMap((e) => e.must_fail.checks));
    const rules = new Set(entries.flatMap((e) => e.must_fail.rules));
    // The three checks no data-only change can reach are stated findings, see docs/diagnostics.md.
    expect(CHECK_IDS.filter((c) => !checks.has(c))).toEqual([
      'budget',
      'skill-coverage',
      'observation-complete',
    ]);
    expect(RULES.filter((r) => !rules.has(r))).toEqual([
      'evasion-io-uring',
      'evasion-descriptor-path',
      'evasion-truncated-path',
      'net-vendor-host',
      'secrets-canary-sent',
      'secrets-secret-sent',
      'secrets-canary-written',
    ]);
  });

  it('accepts a well-formed entry', () => {
    expect(issuesOf(good)).toEqual([]);
  });

  it('refuses an unknown action kind, naming the entry, the field and the kinds', () => {
    const issues = issuesOf({ ...good, actions: [{ kind: 'format-disk', path: 'x' }] });
    expect(issues).toHaveLength(1);
    expect(issues[0]).toContain("catalog entry 'plant-notes', field 'actions[0]");
    expect(issues[0]).toContain('unknown action kind');
    expect(issues[0]).toContain('apply-solution');
  });

  it('refuses an unknown check id', () => {
    const issues = issuesOf({ ...good, must_fail: { checks: ['no-such-check'] } });
    expect(issues.join()).toMatch(/field 'must_fail.checks\[0\]': unknown check id/);
  });

  it('refuses an unknown rule id', () => {
    const issues = issuesOf({ ...good, must_not_fail: { rules: ['no-such-rule'] } });
    expect(issues.join()).toContain(
      "field 'must_not_fail.rules[0]': 'no-such-rule' is not a default security rule",
    );
  });

  it('refuses duplicate ids, a fixture that is not shipped and an id both expected and forbidden', () => {
    expect(validateCatalog([good, good], RULES).ok).toBe(false);
    expect(issuesOf({ ...good, fixture: 'attacks' }).join()).toContain("field 'fixture'");
    expect(issuesOf({ ...good, must_not_fail: { checks: ['scope'] } }).join()).toContain(
      'must both fail and not fail',
    );
  });

  it('loadCatalog throws a ConfigError for a bad entry and for an unknown --only id', () => {
    expect(() => loadCatalog(RULES, [], [{ ...good, actions: [{ kind: 'nope' }] }])).toThrow(ConfigError);
    expect(() => loadCatalog(RULES, ['edit-test', 'no-such-entry'])).toThrow(
      /--only 'no-such-entry': no such catalog entry/,
    );
    expect(loadCatalog(RULES, ['edit-test']).map((e) => e.id)).toEqual(['edit-test']);
  });

  it('docs/diagnostics.md lists exactly the catalog, in its order', () => {
    const doc = readFileSync(`${packageRoot()}/docs/diagnostics.md`, 'utf8');
    const rows = [...doc.matchAll(/^\| `([a-z0-9-]+)` +\|/gm)].map((m) => m[1]);
    expect(rows).toEqual(loadCatalog(RULES).map((e) => e.id));
  });
});
