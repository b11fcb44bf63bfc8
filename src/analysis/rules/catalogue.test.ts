import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCatalogue } from '../../cli/commands/rules.js';
import { packageRoot } from '../../package-root.js';
import { parseCatalogue, renderCoverageMarkdown } from './catalogue.js';

const known = { rules: new Set(['exec-ptrace']), cases: new Set(['exec-ptrace--alert']) };

describe('the behaviour catalogue', () => {
  it('names only default rules and existing rule cases, and docs/rules-coverage.md is generated from it', () => {
    const entries = loadCatalogue();
    expect(entries.filter((e) => e.status === 'covered').length).toBeGreaterThan(15);
    const page = readFileSync(path.join(packageRoot(), 'docs', 'rules-coverage.md'), 'utf8');
    expect(page, 'regenerate: node dist/cli/main.js rules coverage --markdown > docs/rules-coverage.md').toBe(
      renderCoverageMarkdown(entries),
    );
  });

  it('refuses an unknown rule, a missing test and a duplicate behaviour', () => {
    const one = (extra: string) => `behaviours:\n  - {id: a, behaviour: b, ${extra}}\n`;
    expect(
      parseCatalogue(
        one('rule: exec-ptrace, tracers: [strace], tests: [exec-ptrace--alert]'),
        'c.yaml',
        known,
      ),
    ).toHaveLength(1);
    expect(() => parseCatalogue(one('rule: nope, tracers: [strace], tests: []'), 'c.yaml', known)).toThrow(
      /rule nope/,
    );
    expect(() =>
      parseCatalogue(one('rule: exec-ptrace, tracers: [strace], tests: [gone]'), 'c.yaml', known),
    ).toThrow(/test gone/);
    expect(() =>
      parseCatalogue(one('gap: why').repeat(2).replace('behaviours:\n', ''), 'c.yaml', known),
    ).toThrow();
    expect(
      parseCatalogue(one('rule: exec-ptrace, tracers: [strace], tests: [gone]'), 'c.yaml', {
        ...known,
        cases: null,
      }),
    ).toHaveLength(1);
  });
});
