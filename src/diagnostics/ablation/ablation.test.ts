import { describe, expect, it } from 'vitest';
import { CHECK_IDS, type CheckId } from '../../config/check-ids.js';
import type { CatalogEntry } from '../mutations/catalog-schema.js';
import type { Fired } from '../mutations/judge.js';
import { ablationHeadline, analyseAblation, type TrialJudgements } from './ablation.js';

const entry = (id: string, checks: CheckId[], rules: string[] = []): CatalogEntry => ({
  id,
  category: 'paths',
  description: 'd',
  fixture: 'js-slugify',
  actions: [],
  must_fail: { checks, rules },
  must_not_fail: { checks: [], rules: [] },
  verdict: checks.length + rules.length > 0 ? 'FAIL' : 'PASS',
});
const f = (checks: string[], rules: string[] = []): Fired => ({
  checks,
  rules,
  verdict: checks.length + rules.length > 0 ? 'FAIL' : 'PASS',
  score: 0,
});

/** A trial as the analysis would judge it: leaving a check out removes exactly its failure. */
function trial(n: number, control: Fired): TrialJudgements {
  const without = Object.fromEntries(
    CHECK_IDS.map((id) => [
      id,
      f(
        control.checks.filter((c) => c !== id),
        control.rules,
      ),
    ]),
  ) as Record<CheckId, Fired>;
  return { trial: n, control, without };
}

describe('analyseAblation', () => {
  const scopeOnly = entry('notes', ['scope']);
  const ci = entry('ci', ['forbidden-paths', 'scope']);
  const hook = entry('hook', ['forbidden-paths'], ['persist-install-hook']);
  const safe = entry('safe', []);

  it('finds unique contributions, overlap and the checks rules back up', () => {
    const a = analyseAblation([
      { entry: scopeOnly, trials: [trial(1, f(['scope']))] },
      { entry: ci, trials: [trial(1, f(['forbidden-paths', 'scope']))] },
      { entry: hook, trials: [trial(1, f(['forbidden-paths'], ['persist-install-hook']))] },
      { entry: safe, trials: [trial(1, f([]))] },
    ]);
    expect(a.valid).toBe(true);
    expect(a.mutations).toBe(3);
    const scope = a.contributions.find((c) => c.check === 'scope');
    expect(scope?.detections).toEqual(['notes', 'ci']);
    expect(scope?.unique_detections).toEqual(['notes']);
    const forbidden = a.contributions.find((c) => c.check === 'forbidden-paths');
    // The hook is still caught by its rule without forbidden-paths; ci by scope.
    expect(forbidden?.unique_detections).toEqual([]);
    expect(forbidden?.also_rules).toEqual(['hook']);
    expect(a.overlaps).toEqual([{ checks: ['forbidden-paths', 'scope'], shared: ['ci'], jaccard: 0.333 }]);
    const { headline } = ablationHeadline(a, []);
    expect(headline?.find((h) => h.check === 'scope')).toEqual({
      check: 'scope',
      unique_detections: 1,
      unique_signals: 1,
      detections: 2,
    });
    // An entry that could not be carried out also withholds the claims.
    expect(ablationHeadline(a, ['x (trial 1): boom']).headline).toBeNull();
  });

  it('a control that does not match the catalog makes the study invalid, saying which and why', () => {
    const a = analyseAblation([{ entry: ci, trials: [trial(1, f(['scope']))] }]);
    expect(a.valid).toBe(false);
    expect(a.invalid_controls).toEqual(['ci (trial 1): control missed: check:forbidden-paths did not fire']);
    expect(ablationHeadline(a, [])).toEqual({ headline: null, suppressed_because: a.invalid_controls });
  });

  it('flags trials that disagree and counts a contribution only when every trial shows it', () => {
    // Trial 2 also fails diff-size, a warning: without scope it PASSes all the same.
    const second = trial(2, f(['scope', 'diff-size']));
    second.without.scope = { checks: ['diff-size'], rules: [], verdict: 'PASS', score: 95 };
    const a = analyseAblation([{ entry: scopeOnly, trials: [trial(1, f(['scope'])), second] }]);
    expect(a.disagreements.map((d) => d.condition)).toContain('control');
    expect(a.contributions.find((c) => c.check === 'scope')?.unique_detections).toEqual(['notes']);
    const b = analyseAblation([
      { entry: scopeOnly, trials: [trial(1, f(['scope'])), trial(2, f(['scope'], ['persist-ci-config']))] },
    ]);
    // Trial 2 is still caught by a rule without scope: no unique contribution claimed.
    expect(b.contributions.find((c) => c.check === 'scope')?.unique_detections).toEqual([]);
  });
});
