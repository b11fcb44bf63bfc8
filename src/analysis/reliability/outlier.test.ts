import { describe, expect, it } from 'vitest';
import { findOutlier } from './outlier.js';
import { similarityMatrix } from './similarity.js';
import { handGraph } from './test-graphs.js';
import type { StarGraph } from './types.js';

const outlierOf = (graphs: StarGraph[]) => findOutlier(graphs, similarityMatrix(graphs).overall);

describe('findOutlier', () => {
  it('names the least similar run and the resources that set it apart', () => {
    const usual = (id: string) =>
      handGraph(id, {
        command: { 'npm test': 2, 'git diff': 1 },
        file: { '$WORKSPACE/src/a.js': 3, '$WORKSPACE/README.md': 1 },
      });
    const odd = handGraph(
      'r3',
      {
        command: { 'npm test': 1, curl: 2 },
        file: { '$WORKSPACE/src/a.js': 1, '$HOME/.ssh/id_rsa': 1, '/usr/lib/libc.so.6': 5 },
        host: { 'paste.example': 1 },
      },
      { runtime: ['/usr/lib/libc.so.6'] },
    );
    const result = outlierOf([usual('r1'), usual('r2'), odd]);
    expect(result.found).toBe(true);
    if (!result.found) return;
    expect(result.run_id).toBe('r3');
    expect(result.index).toBe(2);
    // r1 ~ r2: 1 each type → overall 1 (hosts excluded). r3 vs r1:
    // command: {npm test: 2/3, git diff: 1/3} vs {npm test: 1/3, curl: 2/3}: Σmin 1/3, Σmax 2/3+1/3+2/3 = 5/3 → .2
    // file (behaviour view): {a: .75, README: .25} vs {a: .5, id_rsa: .5}: Σmin .5, Σmax .75+.25+.5 = 1.5 → 1/3
    // host: 0 (only r3). overall (.2 + 1/3 + 0) / 3 = .17778.
    expect(result.mean_similarity).toBeCloseTo(0.177778, 5);
    // r1's mean: (1 + .17778) / 2.
    expect(result.means[0]).toBeCloseTo((1 + 0.177778) / 2, 5);
    expect(result.only_in_outlier).toEqual([
      { type: 'command', name: 'curl', count: 2 },
      { type: 'file', name: '$HOME/.ssh/id_rsa', count: 1 },
      { type: 'host', name: 'paste.example', count: 1 },
    ]);
    expect(result.missing_from_outlier).toEqual([
      { type: 'command', name: 'git diff', count: 2 },
      { type: 'file', name: '$WORKSPACE/README.md', count: 2 },
    ]);
    expect(result.only_total).toBe(3);
  });

  it('lists only resources all the others used as missing', () => {
    const a = handGraph('a', { command: { x: 1, y: 1 } });
    const b = handGraph('b', { command: { x: 1 } });
    const c = handGraph('c', { command: { z: 1 } });
    const result = outlierOf([a, b, c]);
    expect(result.found && result.run_id).toBe('c');
    expect(result.found && result.missing_from_outlier).toEqual([{ type: 'command', name: 'x', count: 2 }]);
  });

  it('finds none with fewer than three runs, or when all runs are alike', () => {
    const g = (id: string) => handGraph(id, { command: { x: 1 } });
    expect(outlierOf([g('a'), handGraph('b', { command: { y: 1 } })])).toEqual({
      found: false,
      reason: 'an outlier needs at least three runs',
    });
    expect(outlierOf([g('a'), g('b'), g('c')])).toEqual({
      found: false,
      reason: 'every run is equally similar to the others',
    });
    expect(outlierOf([handGraph('a', {}), handGraph('b', {}), handGraph('c', {})])).toMatchObject({
      found: false,
    });
  });
});
