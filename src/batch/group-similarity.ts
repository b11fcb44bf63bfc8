import { errorMessage } from '../errors.js';
import { compareRuns } from './compare.js';
import { groupKey } from './summary.js';
import type { GroupSimilarity, Row } from './types.js';

/** Similarity of each (agent, task) cell's runs from their star graphs; cells with < 2 runs have none. */
export function cellSimilarities(rows: readonly Row[]): Map<string, GroupSimilarity> {
  const cells = new Map<string, string[]>();
  for (const r of rows) {
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
      });
    } catch (err) {
      // A run folder that cannot be compared costs the cell its similarity, not the batch its summary.
      out.set(key, { runs: dirs.length, mean_similarity: 0, outlier_run_id: null, note: errorMessage(err) });
    }
  }
  return out;
}
