import {
  type GraphView,
  RESOURCE_TYPES,
  type ResourceNode,
  type ResourceType,
  type StarGraph,
} from './types.js';

/** The nodes an analysis sees under a view: `behaviour` drops runtime (start-up noise) nodes. */
export function viewNodes(graph: StarGraph, view: GraphView): ResourceNode[] {
  return view === 'all' ? graph.nodes : graph.nodes.filter((node) => node.runtime === undefined);
}

/** Per resource type, each resource's action count (its weight). */
export type ResourceCounts = Record<ResourceType, Map<string, number>>;

export function resourceCounts(graph: StarGraph, view: GraphView): ResourceCounts {
  const counts = emptyCounts();
  for (const node of viewNodes(graph, view)) counts[node.type].set(node.name, node.count);
  return counts;
}

export function emptyCounts(): ResourceCounts {
  return Object.fromEntries(
    RESOURCE_TYPES.map((type) => [type, new Map<string, number>()]),
  ) as ResourceCounts;
}
