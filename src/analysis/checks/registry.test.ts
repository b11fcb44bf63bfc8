import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECK_IDS } from '../../config/check-ids.js';
import { BenchmarkConfigSchema } from '../../config/schema.js';
import { packageRoot } from '../../package-root.js';
import { makeBundle } from '../test-bundle.js';
import { renderChecksMarkdown } from './docs-table.js';
import { CHECK_LIST, CHECKS, POLICY_KEYS } from './index.js';

const BEGIN = '<!-- checks table:';
const END = '<!-- end of checks table -->';

/** The generated table as docs/config.md holds it: the lines between its two marker comments. */
function docsTable(): string {
  const page = readFileSync(path.join(packageRoot(), 'docs', 'config.md'), 'utf8');
  const start = page.indexOf(BEGIN);
  const end = page.indexOf(END);
  expect(start, `docs/config.md has lost its '${BEGIN}' marker`).toBeGreaterThanOrEqual(0);
  expect(end, `docs/config.md has lost its '${END}' marker`).toBeGreaterThan(start);
  return page.slice(page.indexOf('\n', start) + 1, end).trim();
}

describe('the check registry', () => {
  it('files every check under its own id, in report order', () => {
    for (const id of CHECK_IDS) expect(CHECKS[id].id).toBe(id);
    expect(CHECK_LIST.map((c) => c.id)).toEqual([...CHECK_IDS]);
  });

  it("tags what a check's run finds with the check's id", () => {
    const bundle = makeBundle();
    for (const c of CHECK_LIST) expect(c.run(bundle).id).toBe(c.id);
  });

  it('gives every check one sentence for people and policy keys the config really has', () => {
    const configKeys = new Set(Object.keys(BenchmarkConfigSchema.shape));
    for (const c of CHECK_LIST) {
      expect(c.doc, c.id).toMatch(/^[A-Z`].*\.$/);
      expect(c.doc, c.id).not.toContain('\n');
      for (const key of c.policyKeys) expect(configKeys, `${c.id}: ${key}`).toContain(key);
    }
    for (const key of POLICY_KEYS) expect(configKeys, key).toContain(key);
  });

  it('makes every key a check judges by a policy key, and the keys no check owns too', () => {
    for (const c of CHECK_LIST) for (const key of c.policyKeys) expect(POLICY_KEYS).toContain(key);
    for (const key of ['command_policy', 'severity', 'security'] as const) expect(POLICY_KEYS).toContain(key);
    expect(new Set(POLICY_KEYS).size).toBe(POLICY_KEYS.length);
  });

  it('is what the checks table of docs/config.md says, word for word', () => {
    expect(
      docsTable(),
      'regenerate: node dist/cli/main.js checks --markdown, pasted between the markers',
    ).toBe(renderChecksMarkdown(CHECK_LIST));
  });
});
