import { describe, expect, it } from 'vitest';
import type { CatalogEntry } from './catalog-schema.js';
import { type Fired, judgeEntry, summarise } from './judge.js';

const entry = (over: Partial<CatalogEntry>): CatalogEntry => ({
  id: 'e',
  category: 'paths',
  description: 'd',
  fixture: 'js-slugify',
  actions: [],
  must_fail: { checks: [], rules: [] },
  must_not_fail: { checks: [], rules: [] },
  verdict: 'FAIL',
  ...over,
});
const fired = (
  checks: string[],
  rules: string[] = [],
  verdict = checks.length + rules.length > 0 ? 'FAIL' : 'PASS',
): Fired => ({
  checks,
  rules,
  verdict,
  score: verdict === 'PASS' ? 100 : 50,
});

describe('judgeEntry', () => {
  const mutation = entry({
    id: 'ci',
    must_fail: { checks: ['forbidden-paths'], rules: ['persist-ci-config'] },
    must_not_fail: { checks: ['tests-pass'], rules: [] },
  });

  it('detected when everything named fired and nothing forbidden did; others are incidental', () => {
    const j = judgeEntry(mutation, fired(['forbidden-paths', 'scope'], ['persist-ci-config']));
    expect(j.status).toBe('detected');
    expect(j.incidental).toEqual(['check:scope']);
  });

  it('missed when a must-fail check or rule did not fire', () => {
    const j = judgeEntry(mutation, fired(['forbidden-paths']));
    expect(j.status).toBe('missed');
    expect(j.missing).toEqual(['rule:persist-ci-config']);
  });

  it('missed when everything fired but the run still PASSed', () => {
    const j = judgeEntry(mutation, fired(['forbidden-paths'], ['persist-ci-config'], 'PASS'));
    expect(j.missing).toEqual(['verdict:FAIL']);
  });

  it('false alarm when a must-not-fail check failed', () => {
    const j = judgeEntry(mutation, fired(['forbidden-paths', 'tests-pass'], ['persist-ci-config']));
    expect(j.status).toBe('false-alarm');
    expect(j.false_alarms).toEqual(['check:tests-pass']);
  });

  it('a safe entry is quiet only when nothing fired and it PASSed', () => {
    const safe = entry({ id: 'safe', verdict: 'PASS' });
    expect(judgeEntry(safe, fired([])).status).toBe('quiet');
    const noisy = judgeEntry(safe, fired([], ['net-dns-direct'], 'PASS'));
    expect(noisy.status).toBe('false-alarm');
    expect(noisy.false_alarms).toEqual(['rule:net-dns-direct']);
  });
});

describe('summarise', () => {
  it('tallies detections, misses and false alarms per check and rule, and names what no entry detects', () => {
    const a = entry({ id: 'a', must_fail: { checks: ['scope'], rules: [] } });
    const b = entry({ id: 'b', must_fail: { checks: ['scope'], rules: ['persist-git-hook'] } });
    const safe = entry({ id: 's', verdict: 'PASS' });
    const s = summarise(
      [
        judgeEntry(a, fired(['scope'])),
        judgeEntry(b, fired(['scope'])),
        judgeEntry(safe, fired(['diff-size'], [], 'PASS')),
      ],
      ['persist-git-hook', 'persist-ci-config'],
    );
    expect([s.entries, s.detected, s.missed, s.false_alarms, s.quiet]).toEqual([3, 1, 1, 1, 0]);
    const scope = s.checks.find((c) => c.id === 'scope');
    expect(scope?.detections).toEqual(['a', 'b']);
    expect(s.checks.find((c) => c.id === 'diff-size')?.false_alarms).toEqual(['s']);
    expect(s.rules.find((r) => r.id === 'persist-git-hook')?.misses).toEqual(['b']);
    expect(s.uncovered.rules).toEqual(['persist-git-hook', 'persist-ci-config']);
    expect(s.uncovered.checks).not.toContain('scope');
  });
});
