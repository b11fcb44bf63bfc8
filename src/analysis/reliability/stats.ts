/** Reliability statistics over repeated trials of one task. Pure arithmetic, no rounding. */

/** z for a two-sided 95% interval. */
const Z95 = 1.959963984540054;

export type Interval = { low: number; high: number };

/** Passes over trials; null for no trials. */
export function passRate(passes: number, trials: number): number | null {
  checkCounts(passes, trials);
  return trials === 0 ? null : passes / trials;
}

/**
 * Wilson score interval for a binomial proportion: unlike p ± z·√(p(1−p)/n) it stays inside [0, 1]
 * and is not of zero width at 0/n or n/n, which is where small trial counts usually land.
 */
export function wilsonInterval(passes: number, trials: number, z = Z95): Interval | null {
  checkCounts(passes, trials);
  if (trials === 0) return null;
  const p = passes / trials;
  const z2 = z * z;
  const denominator = 1 + z2 / trials;
  const centre = (p + z2 / (2 * trials)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))) / denominator;
  // Clamp only rounding dust: the exact bounds are within [0, 1].
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/**
 * pass@k: the chance that at least one of k trials drawn without replacement from n trials with c
 * passes passed, 1 − C(n−c, k) / C(n, k) (the unbiased estimator of Chen et al., 2021).
 * Null when k is outside 1..n.
 */
export function passAtK(passes: number, trials: number, k: number): number | null {
  checkCounts(passes, trials);
  if (!validK(k, trials)) return null;
  return 1 - chooseRatio(trials - passes, trials, k);
}

/** pass^k: the chance that all k drawn trials passed, C(c, k) / C(n, k). Null when k is outside 1..n. */
export function passPowerK(passes: number, trials: number, k: number): number | null {
  checkCounts(passes, trials);
  if (!validK(k, trials)) return null;
  return chooseRatio(passes, trials, k);
}

/** C(m, k) / C(n, k) = Π_{i<k} (m − i) / (n − i), which never builds a huge binomial. 0 when m < k. */
function chooseRatio(m: number, n: number, k: number): number {
  if (m < k) return 0;
  let ratio = 1;
  for (let i = 0; i < k; i++) ratio *= (m - i) / (n - i);
  return ratio;
}

function validK(k: number, trials: number): boolean {
  return Number.isInteger(k) && k >= 1 && k <= trials;
}

function checkCounts(passes: number, trials: number): void {
  if (!Number.isInteger(passes) || !Number.isInteger(trials) || passes < 0 || trials < 0 || passes > trials) {
    throw new RangeError(`pass counts must be integers with 0 <= passes <= trials (got ${passes}/${trials})`);
  }
}

export type ScoreSpread = { n: number; mean: number; min: number; max: number; stddev: number };

/** Mean, range and sample standard deviation (n − 1; 0 for a single score). Null for no scores. */
export function scoreSpread(scores: readonly number[]): ScoreSpread | null {
  const n = scores.length;
  if (n === 0) return null;
  const mean = scores.reduce((a, b) => a + b, 0) / n;
  const squares = scores.reduce((a, s) => a + (s - mean) ** 2, 0);
  return {
    n,
    mean,
    min: Math.min(...scores),
    max: Math.max(...scores),
    stddev: n === 1 ? 0 : Math.sqrt(squares / (n - 1)),
  };
}

export type ReliabilitySummary = {
  trials: number;
  passes: number;
  pass_rate: number | null;
  wilson_95: Interval | null;
  /** pass@k and pass^k for every k from 1 to the number of trials. */
  pass_at_k: Record<string, number>;
  pass_pow_k: Record<string, number>;
  score: ScoreSpread | null;
};

/** Everything above for one task's trials: each trial's verdict and score. */
export function reliabilitySummary(
  trials: readonly { passed: boolean; score: number }[],
): ReliabilitySummary {
  const n = trials.length;
  const c = trials.filter((t) => t.passed).length;
  const passAt: Record<string, number> = {};
  const passPow: Record<string, number> = {};
  for (let k = 1; k <= n; k++) {
    passAt[k] = passAtK(c, n, k) as number;
    passPow[k] = passPowerK(c, n, k) as number;
  }
  return {
    trials: n,
    passes: c,
    pass_rate: passRate(c, n),
    wilson_95: wilsonInterval(c, n),
    pass_at_k: passAt,
    pass_pow_k: passPow,
    score: scoreSpread(trials.map((t) => t.score)),
  };
}
