import { beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/reports/types.js';
import {
  allCases,
  batchTimeout,
  cases,
  classOf,
  judgeCase,
  runCases,
  title,
  unsupported,
} from './run-case.js';

describe('rule cases are well-formed', () => {
  it('name default rules and cover every class with both outcomes', () => {
    for (const c of allCases) expect(classOf.has(c.rule), `${c.name}: unknown rule ${c.rule}`).toBe(true);
    const covered = new Set(allCases.map((c) => `${classOf.get(c.rule)}:${c.expect}`));
    for (const cls of ['secrets', 'integrity', 'execution', 'network', 'persistence', 'evasion']) {
      expect(covered, `${cls} needs an alert case`).toContain(`${cls}:alert`);
      expect(covered, `${cls} needs a none case`).toContain(`${cls}:none`);
    }
  });
});

describe.skipIf(unsupported !== null)('rule cases, run under strace', () => {
  let reports = new Map<string, RunReport>();
  beforeAll(async () => {
    reports = await runCases('strace');
  }, batchTimeout());
  for (const c of cases) it(title(c), () => judgeCase(c, 'strace', reports));
});
