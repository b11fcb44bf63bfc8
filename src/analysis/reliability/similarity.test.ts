import { describe, expect, it } from 'vitest';
import {
  graphSimilarity,
  meanPairwise,
  setSimilarity,
  similarityMatrix,
  toProportions,
  weightedJaccard,
} from './similarity.js';
import { handGraph } from './test-graphs.js';

const props = (counts: Record<string, number>) => toProportions(new Map(Object.entries(counts)));

describe('weightedJaccard', () => {
  it('is 1 for the same resources in the same proportions, whatever the counts', () => {
    // {x:1, y:3} and {x:2, y:6} are both {x:.25, y:.75}: Σmin = Σmax = 1.
    expect(weightedJaccard(props({ x: 1, y: 3 }), props({ x: 2, y: 6 }))).toBe(1);
  });

  it('is 0 when nothing is shared', () => {
    expect(weightedJaccard(props({ a: 5 }), props({ b: 1, c: 1 }))).toBe(0);
  });

  it('matches a hand computation for a partial overlap', () => {
    // A {x:2, y:2} → {x:.5, y:.5}; B {x:1, y:3} → {x:.25, y:.75}.
    // Σmin = .25 + .5 = .75; Σmax = .5 + .75 = 1.25; .75 / 1.25 = 0.6.
    expect(weightedJaccard(props({ x: 2, y: 2 }), props({ x: 1, y: 3 }))).toBeCloseTo(0.6, 12);
    expect(weightedJaccard(props({ x: 1, y: 3 }), props({ x: 2, y: 2 }))).toBeCloseTo(0.6, 12);
  });

  it('is 0 when only one side has resources, null when neither has', () => {
    expect(weightedJaccard(props({ a: 1 }), props({}))).toBe(0);
    expect(weightedJaccard(props({}), props({}))).toBeNull();
  });
});

describe('graphSimilarity', () => {
  it('averages the types both runs have, and says which it left out', () => {
    const a = handGraph('a', { command: { 'git status': 2, 'npm test': 1 }, file: { '$WORKSPACE/a.js': 3 } });
    const b = handGraph('b', { command: { 'git status': 4, 'npm test': 2 }, file: { '$WORKSPACE/a.js': 1 } });
    expect(graphSimilarity(a, b)).toEqual({
      overall: 1,
      by_type: { command: 1, file: 1, host: null },
      excluded: ['host'],
    });
  });

  it('counts a type only one run has as 0 in the average', () => {
    const a = handGraph('a', {
      command: { x: 2, y: 2 },
      file: { a: 1, b: 1 },
      host: { 'example.com': 1 },
    });
    const b = handGraph('b', { command: { x: 1, y: 3 }, file: { a: 1, c: 3 } });
    // command: 0.6 (as above).
    // file: A {a:.5, b:.5}, B {a:.25, c:.75}: Σmin = .25; Σmax = .5 + .5 + .75 = 1.75; 1/7.
    // host: A has one, B none: 0.  overall = (0.6 + 1/7 + 0) / 3 = 0.247619…
    const s = graphSimilarity(a, b);
    expect(s.by_type.command).toBeCloseTo(0.6, 12);
    expect(s.by_type.file).toBeCloseTo(1 / 7, 12);
    expect(s.by_type.host).toBe(0);
    expect(s.excluded).toEqual([]);
    expect(s.overall).toBeCloseTo(0.247619, 6);
  });

  it('is 0 for runs with disjoint resources of every type', () => {
    const a = handGraph('a', { command: { ls: 1 }, file: { a: 1 }, host: { 'a.com': 1 } });
    const b = handGraph('b', { command: { cat: 1 }, file: { b: 1 }, host: { 'b.com': 1 } });
    expect(graphSimilarity(a, b).overall).toBe(0);
  });

  it('is null with every type excluded when neither run has any resource', () => {
    expect(graphSimilarity(handGraph('a', {}), handGraph('b', {}))).toEqual({
      overall: null,
      by_type: { command: null, file: null, host: null },
      excluded: ['command', 'file', 'host'],
    });
  });

  it('ignores runtime nodes in the behaviour view (the default) and counts them in the all view', () => {
    const a = handGraph('a', { file: { src: 1, 'libc.so': 9 } }, { runtime: ['libc.so'] });
    const b = handGraph('b', { file: { src: 1, 'libm.so': 1 } }, { runtime: ['libm.so'] });
    expect(graphSimilarity(a, b).by_type.file).toBe(1);
    // all: A {src:.1, libc:.9}, B {src:.5, libm:.5}: Σmin = .1; Σmax = .5 + .9 + .5 = 1.9; 1/19.
    expect(graphSimilarity(a, b, { view: 'all' }).by_type.file).toBeCloseTo(1 / 19, 12);
  });

  it('restricts the average to the requested types', () => {
    const a = handGraph('a', { command: { x: 1 }, file: { a: 1 } });
    const b = handGraph('b', { command: { x: 1 }, file: { b: 1 } });
    expect(graphSimilarity(a, b, { types: ['command'] })).toEqual({
      overall: 1,
      by_type: { command: 1, file: null, host: null },
      excluded: [],
    });
  });
});

describe('similarityMatrix and set similarity', () => {
  const r1 = handGraph('r1', { command: { x: 2, y: 2 } });
  const r2 = handGraph('r2', { command: { x: 1, y: 3 } });
  const r3 = handGraph('r3', { command: { z: 1 } });
  const empty = handGraph('r4', {});

  it('is symmetric with the hand-computed pairs', () => {
    const m = similarityMatrix([r1, r2, r3, empty]);
    expect(m.run_ids).toEqual(['r1', 'r2', 'r3', 'r4']);
    expect(m.overall[0]?.[0]).toBe(1);
    expect(m.overall[0]?.[1]).toBeCloseTo(0.6, 12);
    expect(m.overall[1]?.[0]).toBe(m.overall[0]?.[1]);
    expect(m.overall[0]?.[2]).toBe(0);
    // r4 has nothing: against r1 commands score 0 (one side only); against itself nothing compares.
    expect(m.overall[0]?.[3]).toBe(0);
    expect(m.overall[3]?.[3]).toBeNull();
    expect(m.by_type.file[0]?.[1]).toBeNull();
  });

  it('averages over run pairs, skipping pairs with nothing to compare', () => {
    // Pairs: (r1,r2) .6, (r1,r3) 0, (r2,r3) 0 → .2.
    expect(setSimilarity([r1, r2, r3])).toBeCloseTo(0.2, 12);
    const m = [
      [1, null, 0.5],
      [null, 1, null],
      [0.5, null, 1],
    ];
    expect(meanPairwise(m, [0, 1, 2])).toBe(0.5);
    expect(meanPairwise(m, [0, 1])).toBeNull();
    expect(meanPairwise(m, [0])).toBeNull();
  });
});
