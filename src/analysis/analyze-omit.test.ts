import { describe, expect, it } from 'vitest';
import { CHECK_IDS } from '../config/check-ids.js';
import { analyze } from './analyze.js';
import type { Alert } from './rules/types.js';
import { makeBundle } from './test-bundle.js';

describe('analyze with omitted checks', () => {
  it('does not run an omitted check: absent from the result and the score', () => {
    const bundle = makeBundle({ tests: { passed: false } });
    const all = analyze(bundle);
    expect(all.checks.find((c) => c.id === 'tests-pass')?.passed).toBe(false);
    expect(all.score.result).toBe('FAIL');
    const without = analyze(bundle, undefined, { omitChecks: new Set(['tests-pass'] as const) });
    expect(without.checks.map((c) => c.id)).toEqual(CHECK_IDS.filter((id) => id !== 'tests-pass'));
    expect(without.score.deductions.map((d) => d.id)).not.toContain('tests-pass');
    expect(without.score.result).toBe('PASS');
  });

  it('takes alerts computed before instead of evaluating rules again', () => {
    const bundle = makeBundle();
    const alert = {
      rule: 'persist-git-hook',
      class: 'persistence',
      severity: 'critical',
      description: 'd',
      message: 'm',
      syscall: 'openat',
      seq: 1,
      ts: 1,
      count: 1,
      process: { pid: 1, exe: '/bin/sh', chain: [] },
    } as unknown as Alert;
    const r = analyze(bundle, undefined, { alerts: [alert] });
    expect(r.alerts).toEqual([alert]);
    expect(r.score.result).toBe('FAIL');
  });
});
