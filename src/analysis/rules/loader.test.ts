import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../errors.js';
import { packageRoot } from '../../package-root.js';
import { loadRuleSet } from './load-rules.js';
import { buildRuleSet } from './ruleset.js';
import type { SecurityOptions } from './types.js';

const rule = (condition: string, more = '') =>
  `rules:\n  - id: my-rule\n    description: d\n    class: secrets\n    severity: error\n    condition: ${JSON.stringify(condition)}\n${more}`;

function problem(text: string, security: Partial<SecurityOptions> = {}, file = 'custom.yaml'): string {
  try {
    buildRuleSet([{ file, text }], { security, configFile: 'task.yaml' });
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    const message = (err as Error).message;
    // One sentence, as for every file a user writes: no line breaks, the fix last.
    expect(message).not.toContain('\n');
    expect(message).toMatch(/\. Fix: .+[.?]$/);
    return message;
  }
  throw new Error('expected a ConfigError');
}

describe('rule files: bad input is one sentence naming the file, the rule and the fix', () => {
  const cases: [string, string, RegExp[]][] = [
    [
      'YAML syntax error',
      'rules:\n  - id: a\n    condition: [unclosed\n',
      [/^custom\.yaml: is not valid YAML at line \d+, column \d+/, /correct the syntax/],
    ],
    ['duplicate key', 'rules: []\nrules: []\n', [/^custom\.yaml: is not valid YAML at line 2/]],
    [
      'unknown top-level field',
      'rulez: []\n',
      [
        /^custom\.yaml: field 'rulez': 'rulez' is not a known key/,
        /did you mean 'rules'\? See rules\/README\.md\.$/,
      ],
    ],
    [
      'unknown rule field',
      rule('kind = open', '    priority: high\n'),
      [
        /custom\.yaml: rule 'my-rule', field 'priority': 'priority' is not a known key/,
        /remove it, or use one of: id, description, class, severity, condition/,
      ],
    ],
    [
      'missing field',
      'rules:\n  - id: my-rule\n    description: d\n    class: secrets\n    condition: kind = open\n',
      [/rule 'my-rule', field 'severity': is required but missing/, /add 'severity'/],
    ],
    [
      'bad class',
      rule('kind = open').replace('class: secrets', 'class: secret'),
      [
        /rule 'my-rule', field 'class': must be one of "secrets", "integrity".*\. Fix: did you mean 'secrets'\?/,
      ],
    ],
    [
      'nested typo: a threshold key',
      rule('kind = open', '    threshold: {cout: 3, within_seconds: 1}\n'),
      [/rule 'my-rule', field 'threshold\.cout': 'cout' is not a known key\. Fix: did you mean 'count'\?/],
    ],
    [
      'nested typo: an exception key (a union of a string and a mapping)',
      rule('kind = open', '    exceptions: [{name: x, conditon: kind = exec}]\n'),
      [
        /rule 'my-rule', field 'exceptions\[0\]\.conditon': 'conditon' is not a known key\. Fix: did you mean 'condition'\?/,
      ],
    ],
    [
      'nested typo: a list append',
      'lists:\n  xs: {apend: [a]}\n',
      [/^custom\.yaml: field 'lists\.xs\.apend': 'apend' is not a known key\. Fix: did you mean 'append'\?/],
    ],
    [
      'unknown macro',
      rule('kind = open and reads_secretz'),
      [/rule 'my-rule': 'reads_secretz' is neither a macro nor a field/, /define macro 'reads_secretz'/],
    ],
    [
      'unknown list',
      rule('kind = open and target in (secret_pathz)'),
      [/rule 'my-rule': 'secret_pathz' looks like a list name/, /define the list, or quote the value/],
    ],
    [
      'unknown field',
      rule('kind = open and pth = /x'),
      [/rule 'my-rule': the condition uses the unknown field 'pth'/, /write 'path' instead/],
    ],
    [
      'number compared with text',
      rule('kind = open and result = ok'),
      [/'result' is a number but is compared with 'ok'/, /compare it with a number/],
    ],
    ['unknown enum value', rule('kind = exce'), [/'exce' is not a possible value of 'kind'/, /write 'exec'/]],
    [
      'unknown syscall',
      rule('syscall = opnat'),
      [/'opnat' is not a possible value of 'syscall'/, /write 'openat'/],
    ],
    [
      'operator the type lacks',
      rule('kind glob ex*'),
      [/'kind' is a enum field and does not support 'glob'/, /use one of =, !=, in/],
    ],
    [
      '!= on a set field',
      rule('ancestors.exe != /bin/sh'),
      [/'ancestors.exe' is a set of values/, /write 'not ancestors.exe = \.\.\.'/],
    ],
    [
      '= with a list',
      rule('target = (/a, /b)'),
      [/compares with one value but was given a list/, /use 'target in/],
    ],
    [
      'unknown placeholder',
      rule('target startswith $HOMES'),
      [/unknown placeholder \$HOMES/, /write \$HOME/],
    ],
    [
      'list placeholder in =',
      rule('target = $CANARIES'),
      [/\$CANARIES is a list/, /target in \(\$CANARIES\)/],
    ],
    [
      'syntax error in a condition',
      rule('kind = open and (target = /x'),
      [/syntax error: expected '\)' but found the end/, /correct the condition syntax/],
    ],
    [
      'never matches: two kinds',
      rule('kind = exec and kind = open'),
      [/rule 'my-rule': the condition can never match/, /remove the contradicting tests/],
    ],
    ['never matches: syscall of another kind', rule('syscall = openat and kind = exec'), [/can never match/]],
    ['never matches: field of another kind', rule('kind = exec and access = write'), [/can never match/]],
    [
      'never matches: failed and result >= 0',
      rule('kind = open and failed and result >= 0'),
      [/can never match/],
    ],
    [
      'never matches: a test and its negation',
      rule('target = /a and not target = /a'),
      [/can never match \(it requires both/],
    ],
    [
      'exception that can never match',
      rule('kind = open', '    exceptions:\n      - name: wrong-kind\n        condition: kind = exec\n'),
      [
        /rule 'my-rule': wrong-kind can never match an event the condition matches/,
        /correct the exception or remove it/,
      ],
    ],
    [
      'unknown field in an exception',
      rule('kind = open', '    exceptions: ["pth = /x"]\n'),
      [/exception #1: the condition uses the unknown field 'pth'/],
    ],
    [
      'unknown field in output',
      rule('kind = open', "    output: '{proc.nam} read {target}'\n"),
      [/rule 'my-rule': output: the template names the unknown field \{proc\.nam\}/, /write \{proc\.name\}/],
    ],
    [
      'macro cycle',
      `macros:\n  a: b\n  b: a\n${rule('a')}`,
      [/custom\.yaml: macro 'b': macro 'a' refers to itself \(a -> b -> a\)/, /break the cycle/],
    ],
    [
      'bad macro even if unused',
      'macros:\n  unused: kind = opn\n',
      [/custom\.yaml: macro 'unused': 'opn' is not a possible value of 'kind'/],
    ],
  ];
  for (const [name, text, patterns] of cases) {
    it(name, () => {
      const message = problem(text);
      for (const p of patterns) expect(message).toMatch(p);
    });
  }

  it('duplicate ids, lists and macros across files name both files', () => {
    const a = { file: 'a.yaml', text: `lists:\n  xs: [a]\nmacros:\n  m: kind = open\n${rule('m')}` };
    const dupRule = () => buildRuleSet([a, { file: 'b.yaml', text: rule('kind = exec') }]);
    expect(dupRule).toThrow(
      /^b\.yaml: rule 'my-rule': has the same id as a rule in a\.yaml\. Fix: give it another id/,
    );
    expect(() => buildRuleSet([a, { file: 'b.yaml', text: 'lists:\n  xs: [b]\n' }])).toThrow(
      /b\.yaml: list 'xs': is already defined in a\.yaml\. Fix: rename it, or write '\{append/,
    );
    expect(() => buildRuleSet([a, { file: 'b.yaml', text: 'macros:\n  m: kind = exec\n' }])).toThrow(
      /b\.yaml: macro 'm': is already defined in a\.yaml/,
    );
    expect(() => buildRuleSet([{ file: 'b.yaml', text: 'lists:\n  ys: {append: [c]}\n' }])).toThrow(
      /list 'ys': appends to a list no earlier file defines/,
    );
  });
});

it('every problem of a rule file is reported, one issue per rule and field', () => {
  const text = `${rule('kind = open', '    priority: high\n')}  - id: second\n    description: d\n    class: secret\n    severity: error\n    condition: kind = open\n`;
  try {
    buildRuleSet([{ file: 'custom.yaml', text }]);
    expect.unreachable();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).issues.map((i) => `${i.where}, ${i.field}`)).toEqual([
      "rule 'my-rule', priority",
      "rule 'second', class",
    ]);
  }
});

describe('config security options', () => {
  const ok = rule('kind = open and target startswith /etc/');
  it('names the config file and the unknown rule id', () => {
    expect(problem(ok, { disable: ['no-such-rule'] })).toMatch(
      /^task\.yaml: field 'security\.disable': names the rule 'no-such-rule', which no rule file defines\. Fix: use one of the rule ids \(my-rule/,
    );
    expect(problem(ok, { allow: { 'my-rul': ['proc.name = git'] } })).toMatch(
      /^task\.yaml: field 'security\.allow': names the rule 'my-rul'/,
    );
    expect(problem(ok, { severity: { nope: 'info' } })).toMatch(
      /field 'security\.severity': names the rule 'nope'/,
    );
  });
  it('rejects allow entries that are invalid or can never apply to the rule', () => {
    expect(problem(ok, { allow: { 'my-rule': ['pth = /x'] } })).toMatch(
      /^task\.yaml: field 'security\.allow\['my-rule'\]\[0\]': the condition uses the unknown field 'pth'/,
    );
    expect(problem(ok, { allow: { 'my-rule': [{ host: 'api.github.com' }] } })).toMatch(
      /security\.allow\['my-rule'\]\[0\]': can never match an event rule 'my-rule' fires on/,
    );
    expect(problem(ok, { allow: { 'my-rule': [{ path: '../outside' }] } })).toMatch(
      /the path '\.\.\/outside' is empty or climbs with '\.\.'/,
    );
  });
});

describe('loadRuleSet', () => {
  it('loads the default rules and adds user rule files', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ag-rules-'));
    const extra = path.join(dir, 'extra.yaml');
    writeFileSync(extra, `${rule('kind = open and target glob (ssh_private_keys)')}`);
    const rs = loadRuleSet({ rules: [extra] }, { rulesDir: path.join(packageRoot(), 'rules') });
    expect(rs.rules.some((r) => r.id === 'my-rule')).toBe(true);
    expect(rs.rules.some((r) => r.id === 'secrets-canary-read')).toBe(true);
    // Without the default files the default lists are not defined either.
    expect(() => loadRuleSet({ default_rules: false, rules: [extra] })).toThrow(
      /'ssh_private_keys' looks like a list name/,
    );
  });

  it('a missing user rule file is a ConfigError naming the config', () => {
    expect(() => loadRuleSet({ rules: ['/nonexistent/r.yaml'] }, { configFile: 'task.yaml' })).toThrow(
      /^task\.yaml: field 'security\.rules': cannot read the rule file \/nonexistent\/r\.yaml \(ENOENT\)\. Fix: check the path\.$/,
    );
  });
});
