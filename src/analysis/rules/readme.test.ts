import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../package-root.js';
import { loadRuleSet } from './load-rules.js';
import { FIELDS, PLACEHOLDERS } from './vocabulary.js';

const readme = readFileSync(path.join(packageRoot(), 'rules', 'README.md'), 'utf8');

describe('rules/README.md', () => {
  it('documents every field, placeholder and default rule', () => {
    for (const field of Object.keys(FIELDS)) expect(readme, field).toContain(`\`${field}`);
    for (const p of Object.keys(PLACEHOLDERS)) expect(readme, p).toContain(`$${p}`);
    for (const rule of loadRuleSet({}, { rulesDir: path.join(packageRoot(), 'rules') }).rules) {
      expect(readme, rule.id).toMatch(
        new RegExp(`\\| \`${rule.id.replace(/\./g, '\\.')}\` +\\| ${rule.severity} +\\|`),
      );
    }
  });
});
