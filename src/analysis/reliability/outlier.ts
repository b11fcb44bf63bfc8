import { type ResourceCounts, resourceCounts } from './graph-view.js';
import type { Matrix } from './similarity.js';
import { compareText } from './star-graph.js';
import { type GraphView, RESOURCE_TYPES, type ResourceType, type StarGraph } from './types.js';

export type OutlierResource = { type: ResourceType; name: string; count: number };

export type Outlier =
  | { found: false; reason: string }
  | {
      found: true;
      run_id: string;
      index: number;
      /** Its mean similarity to the other runs (the lowest of all runs). */
      mean_similarity: number;
      /** Every run's mean similarity to the others, in input order (null: nothing comparable). */
      means: (number | null)[];
      /** Resources only the outlier used (no other run did): by type, then most used first. */
      only_in_outlier: OutlierResource[];
      /** Resources every other run used and the outlier did not; `count` is the others' total. */
      missing_from_outlier: OutlierResource[];
      /** Both lists are cut at `limit`; these are the full lengths. */
      only_total: number;
      missing_total: number;
    };

export type OutlierOptions = { view?: GraphView; limit?: number };

/**
 * The run least like the others (lowest mean similarity to the rest), and what makes it differ.
 * Needs three runs: with two, each is as far from the other as the other is from it. When every
 * run's mean is the same there is no outlier either. A tie for lowest goes to the earlier run.
 */
export function findOutlier(
  graphs: readonly StarGraph[],
  matrix: Matrix,
  options: OutlierOptions = {},
): Outlier {
  if (graphs.length < 3) return { found: false, reason: 'an outlier needs at least three runs' };
  const means = graphs.map((_, i) => meanToOthers(matrix, i, graphs.length));
  const known = means.filter((m): m is number => m !== null);
  if (known.length === 0) return { found: false, reason: 'no two runs had anything to compare' };
  const lowest = Math.min(...known);
  if (known.length === means.length && lowest === Math.max(...known)) {
    return { found: false, reason: 'every run is equally similar to the others' };
  }
  const index = means.indexOf(lowest);
  const view = options.view ?? 'behaviour';
  const counts = graphs.map((g) => resourceCounts(g, view));
  const target = counts[index] as ResourceCounts;
  const others = counts.filter((_, i) => i !== index);
  const only: OutlierResource[] = [];
  const missing: OutlierResource[] = [];
  for (const type of RESOURCE_TYPES) {
    for (const [name, count] of target[type]) {
      if (!others.some((o) => o[type].has(name))) only.push({ type, name, count });
    }
    const first = others[0]?.[type] ?? new Map<string, number>();
    for (const name of first.keys()) {
      if (target[type].has(name) || !others.every((o) => o[type].has(name))) continue;
      missing.push({ type, name, count: others.reduce((n, o) => n + (o[type].get(name) ?? 0), 0) });
    }
  }
  const limit = options.limit ?? 50;
  return {
    found: true,
    run_id: (graphs[index] as StarGraph).run_id,
    index,
    mean_similarity: lowest,
    means,
    only_in_outlier: sortResources(only).slice(0, limit),
    missing_from_outlier: sortResources(missing).slice(0, limit),
    only_total: only.length,
    missing_total: missing.length,
  };
}

function meanToOthers(matrix: Matrix, i: number, n: number): number | null {
  let sum = 0;
  let count = 0;
  for (let j = 0; j < n; j++) {
    const value = matrix[i]?.[j];
    if (j === i || value === null || value === undefined) continue;
    sum += value;
    count++;
  }
  return count === 0 ? null : sum / count;
}

function sortResources(list: OutlierResource[]): OutlierResource[] {
  return list.sort(
    (a, b) =>
      RESOURCE_TYPES.indexOf(a.type) - RESOURCE_TYPES.indexOf(b.type) ||
      b.count - a.count ||
      compareText(a.name, b.name),
  );
}
