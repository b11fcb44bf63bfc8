import { type Matrix, meanPairwise } from './similarity.js';
import { compareText } from './star-graph.js';

/** Which task each matrix row belongs to (labels[i] ↔ row i). */
export type RunLabel = { run_id: string; task: string };

export type TaskComparison = {
  task: string;
  run_ids: string[];
  /** Mean pairwise similarity of the task's own runs. */
  homogeneous: number | null;
  /** Mean over this task's mixed sets of their mean pairwise similarity. */
  mixed_mean: number | null;
  /** homogeneous − mixed_mean: positive when the task's runs resemble each other more than others. */
  margin: number | null;
  comparisons: number;
  wins: number;
  ties: number;
  /** Mixed sets whose similarity was undefined (nothing comparable); not counted in `comparisons`. */
  incomparable: number;
  wins_share: number | null;
};

export type HomogeneousMixedResult = {
  tasks: TaskComparison[];
  /** Tasks left out, and why (fewer than two runs). */
  skipped: { task: string; reason: string }[];
  comparisons: number;
  wins: number;
  ties: number;
  /** Share of comparisons where the homogeneous set was strictly more similar (0..1); null if none. */
  homogeneous_wins_share: number | null;
};

/**
 * The homogeneous-versus-mixed comparison of AgentSpy §4.1. For every task with at least two runs,
 * the homogeneous set is its runs; each mixed set replaces one of them by one run of another task.
 * Enumeration is deterministic: tasks in code-unit order of their names; within a task, the
 * replaced run in input order; then the replacing run in input order. One comparison per mixed
 * set: the homogeneous mean pairwise similarity against the mixed set's. A tie is not a win.
 * n runs of a task among N runs give n × (N − n) comparisons.
 */
export function homogeneousVsMixed(labels: readonly RunLabel[], matrix: Matrix): HomogeneousMixedResult {
  const byTask = new Map<string, number[]>();
  labels.forEach((label, index) => {
    const list = byTask.get(label.task) ?? [];
    list.push(index);
    byTask.set(label.task, list);
  });
  const tasks: TaskComparison[] = [];
  const skipped: HomogeneousMixedResult['skipped'] = [];
  for (const task of [...byTask.keys()].sort(compareText)) {
    const own = byTask.get(task) as number[];
    if (own.length < 2) {
      skipped.push({ task, reason: 'fewer than two runs' });
      continue;
    }
    tasks.push(compareTask(task, own, labels, matrix));
  }
  const comparisons = sum(tasks.map((t) => t.comparisons));
  const wins = sum(tasks.map((t) => t.wins));
  return {
    tasks,
    skipped,
    comparisons,
    wins,
    ties: sum(tasks.map((t) => t.ties)),
    homogeneous_wins_share: comparisons === 0 ? null : wins / comparisons,
  };
}

function compareTask(
  task: string,
  own: number[],
  labels: readonly RunLabel[],
  matrix: Matrix,
): TaskComparison {
  const homogeneous = meanPairwise(matrix, own);
  let comparisons = 0;
  let wins = 0;
  let ties = 0;
  let incomparable = 0;
  let mixedSum = 0;
  for (let replaced = 0; replaced < own.length; replaced++) {
    const kept = own.filter((_, index) => index !== replaced);
    labels.forEach((label, other) => {
      if (label.task === task) return;
      const mixed = meanPairwise(matrix, [...kept, other]);
      if (mixed === null || homogeneous === null) {
        incomparable++;
        return;
      }
      comparisons++;
      mixedSum += mixed;
      if (homogeneous > mixed) wins++;
      else if (homogeneous === mixed) ties++;
    });
  }
  const mixedMean = comparisons === 0 ? null : mixedSum / comparisons;
  return {
    task,
    run_ids: own.map((i) => (labels[i] as RunLabel).run_id),
    homogeneous,
    mixed_mean: mixedMean,
    margin: homogeneous === null || mixedMean === null ? null : homogeneous - mixedMean,
    comparisons,
    wins,
    ties,
    incomparable,
    wins_share: comparisons === 0 ? null : wins / comparisons,
  };
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
