import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../errors.js';
import { packageRoot } from '../../package-root.js';
import { defaultRuleFiles, readRuleSources } from './load-rules.js';
import { type ParsedRulesTable, parsedRules, parseRuleFileOnce } from './parsed-rules.js';
import { parseRuleFile } from './rule-file.js';
import { buildRuleSet } from './ruleset.js';

const rule = (id: string, condition = 'kind = open') =>
  `lists:\n  tools: [curl]\nrules:\n  - id: ${id}\n    description: d\n    class: secrets\n    severity: error\n    condition: ${JSON.stringify(condition)}\n`;

describe('rule files parsed once per text', () => {
  it('gives what parseRuleFile gives, named by the file asked for, and a copy each time', () => {
    const text = rule('once-a');
    const first = parseRuleFileOnce('/a.yaml', text);
    expect(first).toEqual(parseRuleFile('/a.yaml', text));
    // Changing what one caller got changes nothing another caller gets.
    (first.lists.tools as string[]).push('wget');
    first.rules.length = 0;
    const again = parseRuleFileOnce('/b.yaml', text);
    expect(again).toEqual(parseRuleFile('/b.yaml', text));
    expect(again.file).toBe('/b.yaml');
  });

  it('parses an edited text anew, and a broken text fails every time', () => {
    expect(parseRuleFileOnce('/c.yaml', rule('edit-a')).rules[0]?.id).toBe('edit-a');
    expect(parseRuleFileOnce('/c.yaml', rule('edit-b')).rules[0]?.id).toBe('edit-b');
    const broken = rule('Bad Id');
    for (let i = 0; i < 2; i++) expect(() => parseRuleFileOnce('/d.yaml', broken)).toThrow(ConfigError);
  });

  it('a rule set is built again when the texts or the options differ', () => {
    const sources = [{ file: '/e.yaml', text: `${rule('set-a')}` }];
    const a = buildRuleSet(sources);
    expect(buildRuleSet(sources)).toBe(a);
    expect(buildRuleSet(sources, { security: { disable: ['set-a'] } }).rules.map((r) => r.id)).toEqual([]);
    expect(buildRuleSet([{ file: '/e.yaml', text: rule('set-b') }]).rules.map((r) => r.id)).toEqual([
      'set-b',
    ]);
    expect(buildRuleSet(sources).rules.map((r) => r.id)).toEqual(['set-a']);
  });
});

describe("the build's table of the shipped rules", () => {
  const built = path.join(packageRoot(), 'dist', 'analysis', 'rules');
  const tableFile = path.join(built, 'shipped-rules.json');

  it.skipIf(!existsSync(tableFile))(
    'holds exactly what parsing the shipped files gives, for this build',
    () => {
      const table = JSON.parse(readFileSync(tableFile, 'utf8')) as ParsedRulesTable;
      expect(table.files).toEqual(
        JSON.parse(JSON.stringify(parsedRules(readRuleSources(defaultRuleFiles())))),
      );
      // Made by the parser this build runs: a table from another parser would be ignored (and its time lost).
      const parser = createHash('sha256')
        .update(readFileSync(path.join(built, 'rule-file.js')))
        .digest('hex');
      expect(table.parser).toBe(parser);
    },
  );
});
