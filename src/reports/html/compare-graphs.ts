import { compareText } from '../../analysis/reliability/star-graph.js';
import { RESOURCE_TYPES, type ResourceNode, type StarGraph } from '../../analysis/reliability/types.js';
import { plural } from '../markdown-text.js';
import { esc } from './escape.js';
import { layoutStar } from './graph-layout.js';
import { describeEdges, edgesByNode, GRAPH_NODE_LIMIT, pickByType } from './graph-model.js';
import { htmlTable, moreNote } from './page.js';
import {
  type DrawnNode,
  LEGEND_DIFFERS,
  LEGEND_GHOST,
  legendHtml,
  renderStarSvg,
  shortLabel,
} from './star-svg.js';

/** Runs drawn side by side; more would make each picture too small to read. */
export const MULTIPLES_LIMIT = 24;
/** Of the resources drawn, at most this many are chosen first for differing between runs. */
const DIFFERING_FIRST = 20;
const PRESENCE_ROWS = 50;

export type MultipleRun = { label: string; title: string; graph: StarGraph | undefined; outlier: boolean };

type UnionNode = { node: ResourceNode; total: number; runs: number };

/** Behaviour-view resources of every run, keyed by id, with their total count and how many runs used them. */
function unionOf(graphs: readonly StarGraph[]): Map<string, UnionNode> {
  const union = new Map<string, UnionNode>();
  for (const graph of graphs) {
    for (const node of graph.nodes) {
      if (node.runtime !== undefined) continue;
      const seen = union.get(node.id);
      if (seen === undefined) union.set(node.id, { node, total: node.count, runs: 1 });
      else {
        seen.total += node.count;
        seen.runs += 1;
        if (node.canary) seen.node = node;
      }
    }
  }
  return union;
}

const byWeight = (a: UnionNode, b: UnionNode) =>
  Number(b.node.canary === true) - Number(a.node.canary === true) ||
  b.total - a.total ||
  RESOURCE_TYPES.indexOf(a.node.type) - RESOURCE_TYPES.indexOf(b.node.type) ||
  compareText(a.node.name, b.node.name);

/**
 * The runs' star graphs as small multiples on one shared layout: a resource sits in the same place
 * in every picture, drawn where the run used it and as a faint outline where it did not; a resource
 * not every run used is ringed. Below, a table of those differing resources run by run.
 */
export function multiplesSection(runs: readonly MultipleRun[]): string {
  const drawn = runs.slice(0, MULTIPLES_LIMIT);
  const graphs = drawn.map((r) => r.graph).filter((g): g is StarGraph => g !== undefined);
  const union = unionOf(graphs);
  const all = [...union.values()].sort(byWeight);
  const differing = all.filter((u) => u.runs < graphs.length);
  const first = differing.slice(0, DIFFERING_FIRST);
  const chosen = new Set(first);
  const selected = pickByType(
    [...first, ...all.filter((u) => !chosen.has(u))],
    (u) => u.node.type,
    GRAPH_NODE_LIMIT,
  );
  const layout = layoutStar(
    selected.map((u) => u.node),
    14,
  );
  const maxCount = Math.max(1, ...graphs.flatMap((g) => g.nodes.map((n) => n.count)));
  const lines = [
    '<h2 id="graphs">Star graphs side by side</h2>',
    `<p>Behaviour view (runtime start-up noise left out), ${plural(union.size, 'resource')} across the runs. Each resource has the same place in every picture; hover over a node for its name and actions.${all.length > selected.length ? ` The ${selected.length} drawn are those that differ and the most used, and ${all.length - selected.length} more are not drawn.` : ''}</p>`,
    legendHtml([LEGEND_DIFFERS, LEGEND_GHOST]),
    '<div class="multiples">',
    ...drawn.map((run) => multiple(run, selected, layout, maxCount, graphs.length)),
    '</div>',
    moreNote(runs.length - drawn.length, 'runs not drawn'),
    presenceTable(drawn, differing, graphs.length),
  ];
  return lines.join('\n');
}

function multiple(
  run: MultipleRun,
  selected: readonly UnionNode[],
  layout: ReturnType<typeof layoutStar>,
  maxCount: number,
  runCount: number,
): string {
  const heading = `<h3 title="${esc(run.title)}">${esc(run.label)}${run.outlier ? ' <span class="sev-error">outlier</span>' : ''}</h3>`;
  const cls = `multiple${run.outlier ? ' outlier' : ''}`;
  if (run.graph === undefined)
    return `<div class="${cls}">${heading}<p class="muted">No graph for this run.</p></div>`;
  const graph = run.graph;
  const own = new Map(graph.nodes.map((n) => [n.id, n]));
  const edges = edgesByNode(graph);
  const nodes: DrawnNode[] = selected.map((u) => {
    const mine = own.get(u.node.id);
    const facts = mine === undefined ? null : describeEdges(edges.get(mine.id) ?? []);
    return {
      id: u.node.id,
      type: u.node.type,
      name: u.node.name,
      count: mine?.count ?? 0,
      detail:
        facts === null
          ? `not used by this run (${u.runs} of ${runCount} runs used it)`
          : `${facts.detail} (${u.runs} of ${runCount} runs used it)`,
      allFailed: facts?.allFailed ?? false,
      canary: mine?.canary === true,
      runtime: false,
      state: mine === undefined ? 'ghost' : u.runs < runCount ? 'differs' : 'normal',
      label: false,
    };
  });
  const behaviour = graph.nodes.filter((n) => n.runtime === undefined).length;
  const svg = renderStarSvg(layout, nodes, {
    title: `Star graph of ${run.title}`,
    rootLabel: run.label,
    maxCount,
    className: 'star star-multiple',
  });
  return `<div class="${cls}">${heading}<p class="muted">${plural(behaviour, 'resource')}, ${graph.nodes.length - behaviour} runtime hidden</p>${svg}</div>`;
}

function presenceTable(
  runs: readonly MultipleRun[],
  differing: readonly UnionNode[],
  runCount: number,
): string {
  if (runCount < 2) return '';
  if (differing.length === 0) return '<p>Every run used the same resources (behaviour view).</p>';
  const shown = differing.slice(0, PRESENCE_ROWS);
  const owned = runs.map((r) => new Map((r.graph?.nodes ?? []).map((n) => [n.id, n.count])));
  const rows = shown.map((u) => [
    u.node.type,
    `<code title="${esc(u.node.name)}">${esc(shortLabel(u.node.type, u.node.name, 60))}</code>`,
    ...owned.map((counts) => {
      const count = counts.get(u.node.id);
      return count === undefined
        ? '<span class="absent">–</span>'
        : `<span class="present">✓ ×${count}</span>`;
    }),
  ]);
  return [
    '<h3>Resources not every run used</h3>',
    htmlTable(['Type', 'Resource', ...runs.map((r) => esc(r.label))], rows, { className: 'presence' }),
    moreNote(differing.length - shown.length, 'differing resources'),
  ].join('\n');
}
