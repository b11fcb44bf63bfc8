import { resourceCounts } from './graph-view.js';
import { type GraphView, RESOURCE_TYPES, type ResourceType, type StarGraph } from './types.js';

/**
 * Weighted-Jaccard similarity of runs (AgentSpy §3.4.2). Per resource type, each run's counts
 * become proportions p(r) = count(r) / total, and the score is Σ min(pa, pb) / Σ max(pa, pb):
 * 1 for the same resources in the same proportions, 0 for no shared resource.
 */
export type SimilarityOptions = {
  /** Default `behaviour`: runtime start-up files say which interpreter ran, not what the agent did. */
  view?: GraphView;
  /** Default all three: command, file, host. */
  types?: readonly ResourceType[];
};

export type PairSimilarity = {
  /** Mean of `by_type` over the types not excluded; null when every type was excluded. */
  overall: number | null;
  /** Null for a type neither run has a resource of (and one run alone having none scores 0). */
  by_type: Record<ResourceType, number | null>;
  /** Types left out of `overall` because neither run had a resource of that type. */
  excluded: ResourceType[];
};

/** Resource proportions of one run under a view, computed once and reused for every pair. */
export type Profile = { run_id: string; proportions: Record<ResourceType, Map<string, number>> };

export function profile(graph: StarGraph, view: GraphView = 'behaviour'): Profile {
  const counts = resourceCounts(graph, view);
  const proportions = {} as Record<ResourceType, Map<string, number>>;
  for (const type of RESOURCE_TYPES) proportions[type] = toProportions(counts[type]);
  return { run_id: graph.run_id, proportions };
}

export function toProportions(counts: ReadonlyMap<string, number>): Map<string, number> {
  let total = 0;
  for (const count of counts.values()) total += count;
  const out = new Map<string, number>();
  if (total > 0) for (const [name, count] of counts) if (count > 0) out.set(name, count / total);
  return out;
}

/** Σ min / Σ max of two proportion maps; null when both are empty, 0 when only one is. */
export function weightedJaccard(
  a: ReadonlyMap<string, number>,
  b: ReadonlyMap<string, number>,
): number | null {
  if (a.size === 0 && b.size === 0) return null;
  let min = 0;
  let max = 0;
  for (const [name, pa] of a) {
    const pb = b.get(name) ?? 0;
    if (pa < pb) {
      min += pa;
      max += pb;
    } else {
      min += pb;
      max += pa;
    }
  }
  for (const [name, pb] of b) if (!a.has(name)) max += pb;
  return max === 0 ? null : min / max;
}

export function profileSimilarity(
  a: Profile,
  b: Profile,
  types: readonly ResourceType[] = RESOURCE_TYPES,
): PairSimilarity {
  const byType = { command: null, file: null, host: null } as Record<ResourceType, number | null>;
  const excluded: ResourceType[] = [];
  let sum = 0;
  let compared = 0;
  for (const type of RESOURCE_TYPES) {
    if (!types.includes(type)) continue;
    const value = weightedJaccard(a.proportions[type], b.proportions[type]);
    byType[type] = value;
    if (value === null) excluded.push(type);
    else {
      sum += value;
      compared++;
    }
  }
  return { overall: compared === 0 ? null : sum / compared, by_type: byType, excluded };
}

export function graphSimilarity(a: StarGraph, b: StarGraph, options: SimilarityOptions = {}): PairSimilarity {
  const view = options.view ?? 'behaviour';
  return profileSimilarity(profile(a, view), profile(b, view), options.types);
}

export type Matrix = (number | null)[][];

export type SimilarityMatrix = {
  run_ids: string[];
  view: GraphView;
  types: ResourceType[];
  /** overall[i][j]: mean over compared types for runs i and j (symmetric; diagonal included). */
  overall: Matrix;
  by_type: Record<ResourceType, Matrix>;
};

export function similarityMatrix(
  graphs: readonly StarGraph[],
  options: SimilarityOptions = {},
): SimilarityMatrix {
  const view = options.view ?? 'behaviour';
  const types = RESOURCE_TYPES.filter((t) => (options.types ?? RESOURCE_TYPES).includes(t));
  const profiles = graphs.map((g) => profile(g, view));
  const n = graphs.length;
  const square = (): Matrix => Array.from({ length: n }, () => new Array<number | null>(n).fill(null));
  const overall = square();
  const byType = { command: square(), file: square(), host: square() };
  for (let i = 0; i < n; i++) {
    for (let j = i; j < n; j++) {
      const pair = profileSimilarity(profiles[i] as Profile, profiles[j] as Profile, types);
      setBoth(overall, i, j, pair.overall);
      for (const type of RESOURCE_TYPES) setBoth(byType[type], i, j, pair.by_type[type]);
    }
  }
  return { run_ids: graphs.map((g) => g.run_id), view, types, overall, by_type: byType };
}

function setBoth(m: Matrix, i: number, j: number, value: number | null): void {
  (m[i] as (number | null)[])[j] = value;
  (m[j] as (number | null)[])[i] = value;
}

/** Mean similarity over the pairs of a set of run indices; pairs with nothing comparable are skipped. */
export function meanPairwise(matrix: Matrix, indices: readonly number[]): number | null {
  let sum = 0;
  let pairs = 0;
  for (let x = 0; x < indices.length; x++) {
    for (let y = x + 1; y < indices.length; y++) {
      const value = matrix[indices[x] as number]?.[indices[y] as number];
      if (value === null || value === undefined) continue;
      sum += value;
      pairs++;
    }
  }
  return pairs === 0 ? null : sum / pairs;
}

/** The mean pairwise similarity of a set of runs (AgentSpy: averaged over types and run pairs). */
export function setSimilarity(graphs: readonly StarGraph[], options: SimilarityOptions = {}): number | null {
  const matrix = similarityMatrix(graphs, options);
  return meanPairwise(
    matrix.overall,
    graphs.map((_, i) => i),
  );
}
