import { errorMessage } from '../errors.js';
import type { GroupSimilarity, Row } from '../reports/batch-types.js';
import { HEATMAP_RUN_LIMIT } from '../reports/html/heatmap.js';
import { compareRuns } from './compare.js';
import { groupKey } from './summary.js';

/**
 * Beyond this many runs in one cell the matrix is left out of summary.json (the mean and outlier
 * stay): n² numbers per cell would swamp the file and the page. Same bound as compare's heat maps.
 */
export const SIMILARITY_MATRIX_LIMIT = HEATMAP_RUN_LIMIT;

/** Similarity of each (agent, task) cell's runs from their star graphs; cells with < 2 runs have none. */
export function cellSimilarities(rows: readonly Row[]): Map<string, GroupSimilarity> {
  const cells = new Map<string, string[]>();
  for (const r of [...rows].sort((a, b) => a.index - b.index)) {
    if (r.run_dir === null || r.result === 'ERROR') continue;
    const key = groupKey(r.agent, r.task);
    cells.set(key, [...(cells.get(key) ?? []), r.run_dir]);
  }
  const out = new Map<string, GroupSimilarity>();
  for (const [key, dirs] of cells) {
    if (dirs.length < 2) continue;
    try {
      const c = compareRuns(dirs);
      const m = c.similarity.overall;
      const pairs: number[] = [];
      for (let i = 0; i < m.length; i++)
        for (let j = i + 1; j < m.length; j++) {
          const v = m[i]?.[j];
          if (typeof v === 'number') pairs.push(v);
        }
      out.set(key, {
        runs: dirs.length,
        mean_similarity: pairs.length ? pairs.reduce((a, b) => a + b, 0) / pairs.length : 0,
        outlier_run_id: c.outlier.found ? c.outlier.run_id : null,
        run_ids: c.similarity.run_ids,
        matrix: m.length <= SIMILARITY_MATRIX_LIMIT ? m.map((row) => row.map(round3)) : [],
        // A mean over no pairs is not a similarity of 0: say that there was nothing to compare.
        ...(pairs.length === 0
          ? { note: 'nothing to compare: the runs recorded no commands, files or hosts (tracer off?)' }
          : {}),
      });
    } catch (err) {
      // A run folder that cannot be compared costs the cell its similarity, not the batch its summary.
      out.set(key, {
        runs: dirs.length,
        mean_similarity: 0,
        outlier_run_id: null,
        run_ids: [],
        matrix: [],
        note: errorMessage(err),
      });
    }
  }
  return out;
}

/** Three decimals: the page shows two, and summary.json stays stable and small. */
const round3 = (v: number | null) => (v === null ? null : Math.round(v * 1000) / 1000);
