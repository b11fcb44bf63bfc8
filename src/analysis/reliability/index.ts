/** Reliability analysis (issue 6): star graphs, similarity, trial statistics, obligations. */
export { parseStarGraph } from './graph-schema.js';
export { resourceCounts, viewNodes } from './graph-view.js';
export { type HomogeneousMixedResult, homogeneousVsMixed, type RunLabel } from './homogeneous-mixed.js';
export { normalisePath, type PathContext } from './normalise-path.js';
export {
  gradingFilesRead,
  type ObligationId,
  type ObligationResult,
  skillCoverage,
  unrelatedActivity,
} from './obligations.js';
export { findOutlier, type Outlier } from './outlier.js';
export { RUNTIME_RULES, runtimeRule } from './runtime-files.js';
export {
  graphSimilarity,
  meanPairwise,
  type PairSimilarity,
  type SimilarityMatrix,
  type SimilarityOptions,
  setSimilarity,
  similarityMatrix,
  weightedJaccard,
} from './similarity.js';
export { buildStarGraph, type StarGraphInput } from './star-graph.js';
export * from './stats.js';
export * from './types.js';
