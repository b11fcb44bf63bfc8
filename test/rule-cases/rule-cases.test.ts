import { describe, expect, it } from 'vitest';
import { cases, classOf, runCase, title, unsupported } from './run-case.js';

describe('rule cases are well-formed', () => {
  it('name default rules and cover every class with both outcomes', () => {
    for (const c of cases) expect(classOf.has(c.rule), `${c.name}: unknown rule ${c.rule}`).toBe(true);
    const covered = new Set(cases.map((c) => `${classOf.get(c.rule)}:${c.expect}`));
    for (const cls of ['secrets', 'integrity', 'execution', 'network', 'persistence', 'evasion']) {
      expect(covered, `${cls} needs an alert case`).toContain(`${cls}:alert`);
      expect(covered, `${cls} needs a none case`).toContain(`${cls}:none`);
    }
  });
});

describe.skipIf(unsupported !== null)('rule cases, run under strace', () => {
  for (const c of cases) it(title(c), { timeout: 60_000 }, () => runCase(c, 'strace'));
});
