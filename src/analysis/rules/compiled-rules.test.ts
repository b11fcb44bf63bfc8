import { describe, expect, it } from 'vitest';
import { placeholderValues } from './compile.js';
import { compiledRules } from './compiled-rules.js';
import { createMatcher } from './matcher.js';
import { buildRuleSet } from './ruleset.js';
import { CTX, Trace } from './test-events.js';

const text = `rules:
  - id: home-secret
    description: reads a file under HOME's .ssh
    class: secrets
    severity: error
    condition: "kind = open and target glob ($HOME/.ssh/*)"
    output: '{proc.name} {target}'
`;

describe('compiled rules', () => {
  const ruleset = buildRuleSet([{ file: 'compiled-rules.yaml', text }]);

  it('a run compiles its rules once: the same rule set and values give the one index', () => {
    const a = compiledRules(ruleset, placeholderValues(CTX));
    expect(compiledRules(ruleset, placeholderValues({ ...CTX }))).toBe(a);
    // Another run's values (another HOME) are compiled for it, and bind its own paths.
    const other = compiledRules(ruleset, placeholderValues({ ...CTX, home: '/home/u' }));
    expect(other).not.toBe(a);
  });

  it("matchers sharing an index keep their own state: one run's alerts are not another's", () => {
    const read = new Trace()
      .exec(2, 1, '/usr/bin/cat', ['cat', '/root/.ssh/id_rsa'])
      .open(2, '/root/.ssh/id_rsa');
    const first = createMatcher(ruleset, CTX);
    const second = createMatcher(ruleset, CTX);
    for (const e of read.events) first.onEvent(e);
    expect(first.alerts().map((a) => a.rule)).toEqual(['home-secret']);
    expect(second.alerts()).toEqual([]);
    // Under another HOME the same read is not under $HOME/.ssh.
    const elsewhere = createMatcher(ruleset, { ...CTX, home: '/home/u' });
    for (const e of read.events) elsewhere.onEvent(e);
    expect(elsewhere.alerts()).toEqual([]);
  });
});
