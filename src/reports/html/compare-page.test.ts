import { describe, expect, it } from 'vitest';
import { handGraph } from '../../analysis/reliability/test-graphs.js';
import type { StarGraph } from '../../analysis/reliability/types.js';
import type { Comparison } from '../../batch/compare.js';
import { type CompareInput, renderCompareHtml } from './compare-page.js';
import { GRAPH_NODE_LIMIT } from './graph-model.js';
import { bigGraph, comparisonOf, HOSTILE, hostileGraph, selfContainedProblems } from './test-pages.js';

const usual = (id: string, extra: Record<string, number> = {}) =>
  handGraph(id, {
    command: { 'npm test': 2, 'git diff': 1 },
    file: { '$WORKSPACE/src/a.js': 3, '$WORKSPACE/README.md': 1, ...extra },
  });
const graphs: StarGraph[] = [
  usual('run-a'),
  usual('run-b', { '$WORKSPACE/notes.txt': 1 }),
  usual('run-c'),
  hostileGraph('run-<i>d</i>'),
];
const comparison = comparisonOf(graphs, ['slugify', 'slugify', 'slugify', 'inventory']);
const html = renderCompareHtml(comparison, graphs);
const count = (text: string, part: string) => text.split(part).length - 1;

/** Each small multiple's markup, in order. */
const multiples = (page: string) => page.split(/<div class="multiple(?: outlier)?">/).slice(1);

/** File nodes of one small multiple: name → "cx,cy". */
function filePositions(multiple: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of multiple.matchAll(/<g class="node t-file[^"]*"><title>file · ([^\n]*)\n[\s\S]*?<\/g>/g)) {
    const circles = [...(m[0].matchAll(/<circle cx="([^"]+)" cy="([^"]+)"/g) ?? [])];
    const last = circles.at(-1);
    if (last !== undefined) out.set(m[1] as string, `${last[1]},${last[2]}`);
  }
  return out;
}

describe('renderCompareHtml', () => {
  it('accepts what compareRuns returns', () => {
    // Compile-time: a Comparison is a CompareInput (reports do not import the batch layer at run time).
    const asInput = (c: Comparison): CompareInput => c;
    expect(typeof asInput).toBe('function');
  });

  it('is self-contained, under the CSP, with hostile names escaped', () => {
    expect(selfContainedProblems(html)).toEqual([]);
    expect(html).not.toMatch(/<script|<svg onload|<image|<i>d<\/i>/i);
    expect(html).toContain('run-&lt;i&gt;d&lt;/i&gt;');
  });

  it('draws one n × n heat map overall and one per type, each cell showing its value', () => {
    const n = graphs.length;
    expect(count(html, '<table class="heat">')).toBe(4);
    expect(count(html, '<td class="cell')).toBe(4 * n * n);
    expect(html).toContain('<caption>overall (mean over types)</caption>');
    for (const caption of ['commands', 'files', 'hosts'])
      expect(html).toContain(`<caption>${caption}</caption>`);
    const diagonal = comparison.similarity.overall[0]?.[0];
    expect(diagonal).toBe(1);
    expect(html).toMatch(
      /<td class="cell" style="background:#08306b;color:#ffffff" title="[^"]*">1\.00<\/td>/,
    );
    expect(html).toContain('<span class="swatch none">–</span> nothing to compare');
    expect(html).toContain('#4 · inventory');
  });

  it('names the outlier and the resources only it used', () => {
    expect(comparison.outlier.found && comparison.outlier.index).toBe(3);
    expect(html).toMatch(
      /Run <strong>#4<\/strong> \(<code>run-&lt;i&gt;d&lt;\/i&gt;<\/code>, inventory\) is least like/,
    );
    expect(html).toContain('<h3>Only the outlier used (');
    expect(html).toContain('<code>registry.npmjs.org</code>');
    expect(html).toContain('<div class="multiple outlier">');
  });

  it('summarises homogeneous against mixed sets when the runs cover several tasks', () => {
    const mixed = comparison.homogeneous_vs_mixed;
    expect(mixed).not.toBeNull();
    expect(html).toContain(`in <strong>${mixed?.wins} of ${mixed?.comparisons}</strong> comparisons`);
    expect(html).toContain('inventory: left out (fewer than two runs).');
    const single = renderCompareHtml(comparisonOf(graphs.slice(0, 3), ['t', 't', 't']), graphs.slice(0, 3));
    expect(single).not.toContain('Homogeneous vs mixed');
  });

  it('puts a resource in the same place in every run’s picture, outlined where the run did not use it', () => {
    const pictures = multiples(html);
    expect(pictures).toHaveLength(4);
    const positions = pictures.map(filePositions);
    const notes = '$WORKSPACE/notes.txt';
    expect(positions[1]?.get(notes)).toBeDefined();
    for (const p of positions) expect(p.get(notes)).toBe(positions[1]?.get(notes));
    expect(positions[0]?.get('$WORKSPACE/src/a.js')).toBe(positions[3]?.get('$WORKSPACE/src/a.js'));
    // In run a, notes.txt (used by run b only) is a ghost; in run b it is ringed as differing.
    expect(pictures[0]).toMatch(/<g class="node t-file ghost"><title>file · \$WORKSPACE\/notes\.txt/);
    expect(pictures[1]).toMatch(/<g class="node t-file differs"><title>file · \$WORKSPACE\/notes\.txt/);
    expect(html).toContain('<h3>Resources not every run used</h3>');
  });

  it('is deterministic', () => {
    const again = renderCompareHtml(
      comparisonOf(graphs, ['slugify', 'slugify', 'slugify', 'inventory']),
      graphs,
    );
    expect(again).toBe(html);
  });

  it('stays bounded for 5,000-node graphs', () => {
    const big = [bigGraph('b1', 5000), bigGraph('b2', 4900), bigGraph('b3', 5000, 50)];
    const page = renderCompareHtml(comparisonOf(big, ['t', 't', 't']), big);
    expect(page.length).toBeLessThan(300_000);
    for (const picture of multiples(page)) expect(count(picture, '<g class="node ')).toBe(GRAPH_NODE_LIMIT);
    expect(page).toMatch(/and \d+ more are not drawn/);
    expect(selfContainedProblems(page)).toEqual([]);
  });

  it('keeps the hostile note and task names as text', () => {
    expect(html).toContain(
      `runs of 2 different tasks: ${'&lt;/title&gt;&lt;script&gt;alert(2)&lt;/script&gt;'}`,
    );
    expect(html).not.toContain(HOSTILE.title);
  });
});
