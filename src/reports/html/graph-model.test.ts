import { describe, expect, it } from 'vitest';
import { handGraph } from '../../analysis/reliability/test-graphs.js';
import type { ResourceType } from '../../analysis/reliability/types.js';
import { describeEdges, pickByType, selectNodes } from './graph-model.js';

const items = (type: ResourceType, n: number) => Array.from({ length: n }, (_, i) => ({ type, i }));

describe('pickByType', () => {
  it('shares the bound between types and gives what a type cannot use to the others', () => {
    const ordered = [...items('file', 100), ...items('command', 3), ...items('host', 2)];
    const picked = pickByType(ordered, (x) => x.type, 60);
    const of = (type: ResourceType) => picked.filter((x) => x.type === type).length;
    expect([of('command'), of('file'), of('host')]).toEqual([3, 55, 2]);
    // Priority order inside a type is kept: the first 55 files.
    expect(picked.filter((x) => x.type === 'file').map((x) => x.i)).toEqual([...Array(55).keys()]);
  });

  it('takes everything under the bound, and nothing from nothing', () => {
    expect(pickByType(items('file', 3), (x) => x.type, 60)).toHaveLength(3);
    expect(pickByType([], (x: { type: ResourceType }) => x.type, 60)).toEqual([]);
    expect(pickByType(items('host', 5), (x) => x.type, 0)).toEqual([]);
  });
});

describe('selectNodes', () => {
  it('keeps canaries whatever their count, and counts what it hides', () => {
    const graph = handGraph(
      'r',
      {
        file: {
          ...Object.fromEntries(items('file', 80).map((x) => [`f${x.i}`, 5])),
          '$HOME/.ssh/id_rsa': 1,
          libc: 9,
        },
      },
      { runtime: ['libc'] },
    );
    for (const node of graph.nodes) if (node.name === '$HOME/.ssh/id_rsa') node.canary = true;
    const selection = selectNodes(graph, 'behaviour', 10);
    expect(selection.shown[0]?.node.name).toBe('$HOME/.ssh/id_rsa');
    expect(selection.shown).toHaveLength(10);
    expect(selection.more).toBe(71);
    expect(selection.omitted).toBe('71 files');
    expect(selection.hidden).toBe(1);
  });
});

describe('describeEdges', () => {
  it('lists actions in a fixed order and marks failures', () => {
    const edges = [
      { to: 'x', action: 'write' as const, count: 2, failed: 0 },
      { to: 'x', action: 'read' as const, count: 3, failed: 1 },
    ];
    expect(describeEdges(edges)).toEqual({ detail: 'read ×3 (1 failed), write ×2', allFailed: false });
    expect(describeEdges([{ to: 'x', action: 'connect', count: 2, failed: 2 }])).toEqual({
      detail: 'connect ×2 (all failed)',
      allFailed: true,
    });
  });
});
