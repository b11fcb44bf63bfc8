import type { GraphView, StarGraph } from '../../analysis/reliability/types.js';
import { plural } from '../markdown-text.js';
import { layoutStar } from './graph-layout.js';
import { GRAPH_LABEL_LIMIT, GRAPH_NODE_LIMIT, type Selection, selectNodes } from './graph-model.js';
import { type DrawnNode, LEGEND_RUNTIME, legendHtml, renderStarSvg } from './star-svg.js';

/**
 * The run's star graph (the body of its section): the behaviour view (runtime start-up noise left out) is shown; the whole
 * graph is one checkbox away, switched by CSS alone (the page runs no script).
 */
export function starGraphFigure(graph: StarGraph): string {
  const behaviour = selectNodes(graph, 'behaviour');
  const all = selectNodes(graph, 'all');
  const { stats } = graph;
  const lines = [
    `<p>What the agent and every process it started touched: the run's root in the centre, ${plural(
      graph.nodes.length,
      'resource',
    )} around it (from ${plural(stats.events, 'system-call event')}, ${plural(stats.network_records, 'network record')}, ${plural(stats.processes, 'process', 'processes')}). A thicker edge is a resource used more often; hover over a node for its full name and actions.</p>`,
    legendHtml(all.hidden > 0 ? [LEGEND_RUNTIME] : []),
  ];
  if (graph.nodes.length === 0) {
    lines.push('<p class="muted">No resources were recorded (was the tracer off?).</p>');
    return lines.join('\n');
  }
  if (behaviour.hidden > 0) {
    lines.push(
      '<input type="checkbox" id="show-runtime">',
      `<label class="toggle" for="show-runtime">Also show the ${plural(behaviour.hidden, 'runtime resource')} (shared libraries, locale data, /proc/self…) hidden as start-up noise</label>`,
    );
  }
  lines.push(
    '<div class="views">',
    view(graph, 'behaviour', behaviour),
    behaviour.hidden > 0 ? view(graph, 'all', all) : '',
    '</div>',
  );
  return lines.join('\n');
}

function view(graph: StarGraph, name: GraphView, selection: Selection): string {
  const notes: string[] = [];
  if (name === 'behaviour' && selection.hidden > 0)
    notes.push(`${plural(selection.hidden, 'runtime resource')} hidden (start-up noise).`);
  if (selection.more > 0)
    notes.push(
      `Showing ${GRAPH_NODE_LIMIT} resources (the most used of each type), and ${selection.more} more not drawn (${selection.omitted}).`,
    );
  if (selection.shown.length > GRAPH_LABEL_LIMIT)
    notes.push(
      `Commands, hosts and the ${GRAPH_LABEL_LIMIT} most used resources are named; hover for the others.`,
    );
  const body =
    selection.shown.length === 0
      ? '<p class="muted">Nothing but runtime start-up noise was recorded.</p>'
      : drawSelection(graph, name, selection);
  return [
    `<div class="graph-box view-${name}">`,
    `<p class="muted">${[`${name === 'behaviour' ? 'Behaviour view' : 'Whole graph'}: ${plural(selection.shown.length, 'resource')} drawn.`, ...notes].join(' ')}</p>`,
    body,
    '</div>',
  ].join('\n');
}

function drawSelection(graph: StarGraph, name: GraphView, selection: Selection): string {
  const layout = layoutStar(selection.shown.map(({ node }) => node));
  const nodes: DrawnNode[] = selection.shown.map(({ node, detail, allFailed }, index) => ({
    id: node.id,
    type: node.type,
    name: node.name,
    count: node.count,
    detail: node.runtime === undefined ? detail : `${detail}; runtime: ${node.runtime}`,
    allFailed,
    canary: node.canary === true,
    runtime: node.runtime !== undefined,
    state: 'normal',
    label: index < GRAPH_LABEL_LIMIT || node.canary === true || node.type !== 'file',
  }));
  const maxCount = Math.max(1, ...nodes.map((n) => n.count));
  return renderStarSvg(layout, nodes, {
    title: `Star graph of run ${graph.run_id} (${name === 'behaviour' ? 'behaviour view' : 'whole graph'})`,
    rootLabel: graph.root.label,
    maxCount,
    className: `star star-${name}`,
  });
}
