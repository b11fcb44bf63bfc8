/** Hand-made star graphs for tests (imported only from tests, never from product code). */
import type { ActionKind, ResourceNode, ResourceType, StarEdge, StarGraph } from './types.js';

const ACTION: Record<ResourceType, ActionKind> = { command: 'exec', file: 'read', host: 'connect' };

export type HandResources = Partial<Record<ResourceType, Record<string, number>>>;

/**
 * A graph with the given resources and counts (one edge per node: exec, read or connect).
 * Names listed in `runtime` get `runtime: 'test'`; `actions` overrides the edges of a node by name.
 */
export function handGraph(
  runId: string,
  resources: HandResources,
  options: { runtime?: string[]; actions?: Record<string, Omit<StarEdge, 'to'>[]> } = {},
): StarGraph {
  const nodes: ResourceNode[] = [];
  const edges: StarEdge[] = [];
  for (const type of ['command', 'file', 'host'] as const) {
    for (const [name, count] of Object.entries(resources[type] ?? {})) {
      const id = `${type}:${name}`;
      const custom = options.actions?.[name];
      const nodeEdges = custom ?? [{ action: ACTION[type], count, failed: 0 }];
      const node: ResourceNode = { id, type, name, count: nodeEdges.reduce((n, e) => n + e.count, 0) };
      if (options.runtime?.includes(name)) node.runtime = 'test';
      nodes.push(node);
      for (const e of nodeEdges) edges.push({ to: id, ...e });
    }
  }
  return {
    schema_version: 1,
    run_id: runId,
    root: { id: 'root', label: 'agent' },
    nodes,
    edges,
    stats: { events: 0, used: 0, skipped: 0, path_probes: 0, network_records: 0, processes: 0, truncated: 0 },
  };
}
