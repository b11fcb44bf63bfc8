/*
 * The statistics of overhead measurements, shared by `benchmark-overhead` (shipped) and `npm run bench`
 * (which is not shipped, so the statistics live here).
 */

/** The rotation of modes for repetition `rep`, so no mode always runs first (or right after another). */
export function rotation<M>(modes: readonly M[], rep: number): M[] {
  const shift = rep % modes.length;
  return [...modes.slice(shift), ...modes.slice(0, shift)];
}

/** The nearest-rank percentile `p` (0..100) of `values`. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] as number;
}

export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** `min..max`, rounded, for the spread of a set of figures. */
export function spread(values: number[], digits = 0): string {
  if (values.length === 0) return 'n/a';
  return `${round(Math.min(...values), digits)}..${round(Math.max(...values), digits)}`;
}

export function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** Overhead of `traced` over `base` in percent. */
export function overheadPct(traced: number, base: number): number {
  return round((traced / base - 1) * 100, 1);
}
