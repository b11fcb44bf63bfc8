import { describe, expect, it } from 'vitest';
import { passAtK, passPowerK, passRate, reliabilitySummary, scoreSpread, wilsonInterval } from './stats.js';

describe('wilsonInterval', () => {
  it.each([
    // 81/263 is Newcombe's (1998) worked example; 8/10 the brief's [0.490, 0.943]; the others from
    // the closed form (p + z²/2n ± z√(p(1−p)/n + z²/4n²)) / (1 + z²/n) with z = 1.96 by hand.
    [8, 10, 0.4902, 0.9433],
    [0, 10, 0, 0.2775],
    [10, 10, 0.7225, 1],
    [1, 2, 0.0945, 0.9055],
    [81, 263, 0.2553, 0.3662],
  ])('%i/%i → [%f, %f]', (passes, trials, low, high) => {
    const interval = wilsonInterval(passes, trials);
    expect(interval?.low).toBeCloseTo(low, 4);
    expect(interval?.high).toBeCloseTo(high, 4);
  });

  it('is null without trials and rejects impossible counts', () => {
    expect(wilsonInterval(0, 0)).toBeNull();
    expect(() => wilsonInterval(3, 2)).toThrow(RangeError);
    expect(() => wilsonInterval(-1, 2)).toThrow(RangeError);
    expect(() => wilsonInterval(1.5, 2)).toThrow(RangeError);
  });
});

describe('pass@k and pass^k', () => {
  it('match C(n−c,k)/C(n,k) and C(c,k)/C(n,k) by hand', () => {
    // n = 10, c = 3: pass@1 = .3; pass@2 = 1 − C(7,2)/C(10,2) = 1 − 21/45; pass^2 = C(3,2)/C(10,2) = 3/45.
    expect(passAtK(3, 10, 1)).toBeCloseTo(0.3, 12);
    expect(passAtK(3, 10, 2)).toBeCloseTo(1 - 21 / 45, 12);
    expect(passPowerK(3, 10, 2)).toBeCloseTo(3 / 45, 12);
    // pass^3 = C(3,3)/C(10,3) = 1/120.
    expect(passPowerK(3, 10, 3)).toBeCloseTo(1 / 120, 12);
    expect(passPowerK(3, 10, 1)).toBeCloseTo(0.3, 12);
  });

  it('handles the edges: no passes, all passes, fewer failures or passes than k', () => {
    expect(passAtK(0, 5, 3)).toBe(0);
    expect(passPowerK(0, 5, 1)).toBe(0);
    expect(passAtK(5, 5, 2)).toBe(1);
    expect(passPowerK(5, 5, 5)).toBe(1);
    // n − c = 2 < k = 3: every draw of 3 contains a pass.
    expect(passAtK(3, 5, 3)).toBe(1);
    // c = 2 < k = 3: no draw of 3 is all passes.
    expect(passPowerK(2, 5, 3)).toBe(0);
    // k = n: pass@n is "any passed", pass^n "all passed".
    expect(passAtK(1, 4, 4)).toBe(1);
    expect(passPowerK(3, 4, 4)).toBe(0);
  });

  it('is null for k outside 1..n, and stays finite for large n', () => {
    expect(passAtK(1, 3, 0)).toBeNull();
    expect(passAtK(1, 3, 4)).toBeNull();
    expect(passPowerK(1, 3, 1.5)).toBeNull();
    expect(passAtK(0, 0, 1)).toBeNull();
    // C(1000, 500) overflows a double; the product form does not.
    expect(passPowerK(900, 1000, 500)).toBeGreaterThan(0);
    expect(passAtK(100, 1000, 500)).toBeCloseTo(1, 12);
  });
});

describe('passRate and scoreSpread', () => {
  it('computes the pass rate', () => {
    expect(passRate(8, 10)).toBe(0.8);
    expect(passRate(0, 0)).toBeNull();
  });

  it('gives mean, range and the sample standard deviation', () => {
    // Mean 90; squared deviations 100 + 0 + 100 = 200; / (3 − 1) = 100; √ = 10.
    expect(scoreSpread([80, 90, 100])).toEqual({ n: 3, mean: 90, min: 80, max: 100, stddev: 10 });
    expect(scoreSpread([70])).toEqual({ n: 1, mean: 70, min: 70, max: 70, stddev: 0 });
    expect(scoreSpread([])).toBeNull();
  });

  it('summarises trials', () => {
    const s = reliabilitySummary([
      { passed: true, score: 100 },
      { passed: false, score: 60 },
      { passed: true, score: 95 },
    ]);
    expect(s).toMatchObject({ trials: 3, passes: 2, pass_at_k: { 3: 1 }, pass_pow_k: { 3: 0 } });
    expect(s.pass_rate).toBeCloseTo(2 / 3, 12);
    // pass^2 = C(2,2)/C(3,2) = 1/3; pass@2 = 1 − C(1,2)/C(3,2) = 1.
    expect(s.pass_pow_k[2]).toBeCloseTo(1 / 3, 12);
    expect(s.pass_at_k[2]).toBe(1);
    expect(s.score?.mean).toBeCloseTo(85, 12);
  });
});
