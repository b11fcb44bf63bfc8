import { describe, expect, it } from 'vitest';
import { homogeneousVsMixed, type RunLabel } from './homogeneous-mixed.js';
import { type Matrix, similarityMatrix } from './similarity.js';
import { handGraph } from './test-graphs.js';

/** Three tasks × three runs: A = rows 0-2, B = 3-5, C = 6-8. */
const labels: RunLabel[] = ['A', 'A', 'A', 'B', 'B', 'B', 'C', 'C', 'C'].map((task, i) => ({
  run_id: `${task}${i % 3}`,
  task,
}));

/**
 * Within A every pair .8; within B .6; within C (6,7) .9 and run 8 .3 to both others.
 * Across: A–B .2, A–C .1, B–C .5.
 */
function toyMatrix(): Matrix {
  const within: Record<string, number> = { A: 0.8, B: 0.6 };
  const across: Record<string, number> = { AB: 0.2, AC: 0.1, BC: 0.5 };
  return labels.map((a, i) =>
    labels.map((b, j) => {
      if (i === j) return 1;
      if (a.task !== b.task) return across[[a.task, b.task].sort().join('')] as number;
      if (a.task === 'C') return i === 8 || j === 8 ? 0.3 : 0.9;
      return within[a.task] as number;
    }),
  );
}

describe('homogeneousVsMixed', () => {
  it('matches the hand computation on a 3-task × 3-run set', () => {
    const r = homogeneousVsMixed(labels, toyMatrix());
    // Every task: 3 replaced runs × 6 runs of other tasks = 18 comparisons.
    // A: homogeneous .8; mixed = (.8 + x + x)/3 with x = .2 (B) → .4, x = .1 (C) → .333: 18 wins.
    // B: homogeneous .6; mixed with A (.6+.2+.2)/3 = .333, with C (.6+.5+.5)/3 = .533: 18 wins.
    // C: homogeneous (.9+.3+.3)/3 = .5. Replacing 6 or 7 keeps (7|6, 8) at .3: with A .167, with B
    //    .433 — 12 wins. Replacing 8 keeps (6,7) at .9: with A (.9+.1+.1)/3 = .367 wins, with B
    //    (.9+.5+.5)/3 = .633 loses — 3 wins, 3 losses. C: 15 of 18.
    // Share: (18 + 18 + 15) / 54 = 51/54.
    expect(r.comparisons).toBe(54);
    expect(r.wins).toBe(51);
    expect(r.ties).toBe(0);
    expect(r.homogeneous_wins_share).toBeCloseTo(51 / 54, 12);
    expect(r.skipped).toEqual([]);
    const [a, b, c] = r.tasks;
    expect(r.tasks.map((t) => [t.task, t.comparisons, t.wins])).toEqual([
      ['A', 18, 18],
      ['B', 18, 18],
      ['C', 18, 15],
    ]);
    expect(a?.run_ids).toEqual(['A0', 'A1', 'A2']);
    expect(a?.homogeneous).toBeCloseTo(0.8, 12);
    // A mixed mean: (9 × .4 + 9 × 1/3) / 18 = .36667; margin .43333.
    expect(a?.mixed_mean).toBeCloseTo(0.366667, 5);
    expect(a?.margin).toBeCloseTo(0.433333, 5);
    // B mixed mean: (9 × 1/3 + 9 × .53333) / 18 = .43333.
    expect(b?.mixed_mean).toBeCloseTo(0.433333, 5);
    // C mixed mean: (6 × .16667 + 6 × .43333 + 3 × .36667 + 3 × .63333) / 18 = 6.6 / 18.
    expect(c?.homogeneous).toBeCloseTo(0.5, 12);
    expect(c?.mixed_mean).toBeCloseTo(6.6 / 18, 12);
    expect(c?.wins_share).toBeCloseTo(15 / 18, 12);
  });

  it('does not depend on the order of the input runs', () => {
    const order = [8, 3, 0, 5, 7, 1, 4, 6, 2];
    const m = toyMatrix();
    const shuffled = order.map((i) => order.map((j) => m[i]?.[j] ?? null));
    const r = homogeneousVsMixed(
      order.map((i) => labels[i] as RunLabel),
      shuffled,
    );
    expect(r.wins).toBe(51);
    expect(r.tasks.map((t) => t.task)).toEqual(['A', 'B', 'C']);
  });

  it('works end to end from star graphs of distinct tasks', () => {
    const task = (name: string, cmds: Record<string, number>[]) =>
      cmds.map((command, i) => ({
        graph: handGraph(`${name}${i}`, { command }),
        label: { run_id: `${name}${i}`, task: name },
      }));
    const runs = [
      ...task('lint', [{ eslint: 3, git: 1 }, { eslint: 2, git: 1 }, { eslint: 4 }]),
      ...task('test', [
        { pytest: 2, git: 1 },
        { pytest: 3, git: 1 },
        { pytest: 1, pip: 1 },
      ]),
      ...task('build', [{ make: 2 }, { make: 3, gcc: 1 }, { make: 1, gcc: 1 }]),
    ];
    const matrix = similarityMatrix(runs.map((r) => r.graph));
    const r = homogeneousVsMixed(
      runs.map((run) => run.label),
      matrix.overall,
    );
    expect(r.comparisons).toBe(54);
    expect(r.homogeneous_wins_share).toBe(1);
  });

  it('counts ties as not winning, skips single-run tasks, and has no share without comparisons', () => {
    const flat: Matrix = [
      [1, 0.5, 0.5],
      [0.5, 1, 0.5],
      [0.5, 0.5, 1],
    ];
    const r = homogeneousVsMixed(
      [
        { run_id: 'a1', task: 'a' },
        { run_id: 'a2', task: 'a' },
        { run_id: 'b1', task: 'b' },
      ],
      flat,
    );
    // Task a: 2 replaced × 1 other run; each mixed pair (a_k, b1) = .5 = homogeneous.
    expect(r.tasks[0]).toMatchObject({ task: 'a', comparisons: 2, wins: 0, ties: 2, wins_share: 0 });
    expect(r.skipped).toEqual([{ task: 'b', reason: 'fewer than two runs' }]);
    expect(r.homogeneous_wins_share).toBe(0);

    const one = homogeneousVsMixed(
      [
        { run_id: 'a1', task: 'a' },
        { run_id: 'a2', task: 'a' },
      ],
      [
        [1, 0.9],
        [0.9, 1],
      ],
    );
    expect(one.comparisons).toBe(0);
    expect(one.homogeneous_wins_share).toBeNull();
  });

  it('leaves mixed sets with nothing comparable out of the comparisons', () => {
    const m: Matrix = [
      [1, 0.7, null],
      [0.7, 1, null],
      [null, null, null],
    ];
    const r = homogeneousVsMixed(
      [
        { run_id: 'a1', task: 'a' },
        { run_id: 'a2', task: 'a' },
        { run_id: 'e', task: 'empty' },
      ],
      m,
    );
    expect(r.tasks[0]).toMatchObject({ comparisons: 0, incomparable: 2, wins_share: null });
  });
});
