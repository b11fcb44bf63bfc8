import { compareText } from '../../analysis/reliability/star-graph.js';
import {
  type GraphView,
  RESOURCE_TYPES,
  type ResourceNode,
  type ResourceType,
  type StarEdge,
  type StarGraph,
} from '../../analysis/reliability/types.js';

/** Resources drawn in one picture; the rest are counted in "and N more". */
export const GRAPH_NODE_LIMIT = 60;
/** Resources named on the picture (the most used); the others have their name in a tooltip only. */
export const GRAPH_LABEL_LIMIT = 30;

export type NodeFacts = {
  node: ResourceNode;
  /** "read ×3, write ×1 (1 failed)". */
  detail: string;
  allFailed: boolean;
};

export type Selection = {
  shown: NodeFacts[];
  /** Resources of the view left out by the bound. */
  more: number;
  /** Those left out, by type ("4,440 files, 40 commands"); empty when none. */
  omitted: string;
  /** Runtime (start-up noise) resources the view leaves out. */
  hidden: number;
};

/** Canary credentials first (a read of one must never be cut), then the most used. */
export function byImportance(a: ResourceNode, b: ResourceNode): number {
  return (
    Number(b.canary === true) - Number(a.canary === true) ||
    b.count - a.count ||
    RESOURCE_TYPES.indexOf(a.type) - RESOURCE_TYPES.indexOf(b.type) ||
    compareText(a.name, b.name)
  );
}

/** The edges of a graph grouped by target node id (one pass, for graphs of any size). */
export function edgesByNode(graph: StarGraph): Map<string, StarEdge[]> {
  const out = new Map<string, StarEdge[]>();
  for (const edge of graph.edges) {
    const list = out.get(edge.to);
    if (list === undefined) out.set(edge.to, [edge]);
    else list.push(edge);
  }
  return out;
}

export function describeEdges(edges: readonly StarEdge[]): { detail: string; allFailed: boolean } {
  const sorted = [...edges].sort((a, b) => compareText(a.action, b.action) || b.count - a.count);
  const parts = sorted.map(
    (e) =>
      `${e.action} ×${e.count}${e.failed > 0 ? ` (${e.failed === e.count ? 'all' : e.failed} failed)` : ''}`,
  );
  const total = edges.reduce((n, e) => n + e.count, 0);
  const failed = edges.reduce((n, e) => n + e.failed, 0);
  return { detail: parts.join(', ') || 'no actions', allFailed: total > 0 && failed === total };
}

/**
 * At most `limit` items, shared fairly between the resource types so that a flood of one type (five
 * thousand files) cannot push the few commands and hosts out of the picture: each type gets an equal
 * share, and what a type cannot use goes to the others. `ordered` is by priority; so is the result.
 */
export function pickByType<T>(ordered: readonly T[], typeOf: (item: T) => ResourceType, limit: number): T[] {
  const groups = RESOURCE_TYPES.map((type) => ordered.filter((item) => typeOf(item) === type));
  const taken = groups.map(() => 0);
  let remaining = limit;
  let open = groups.map((_, i) => i).filter((i) => (groups[i] as T[]).length > 0);
  while (open.length > 0 && remaining > 0) {
    const share = Math.max(1, Math.floor(remaining / open.length));
    for (const i of open) {
      const extra = Math.min(share, (groups[i] as T[]).length - (taken[i] as number), remaining);
      taken[i] = (taken[i] as number) + extra;
      remaining -= extra;
    }
    open = open.filter((i) => (taken[i] as number) < (groups[i] as T[]).length);
  }
  const chosen = new Set(groups.flatMap((group, i) => group.slice(0, taken[i])));
  return ordered.filter((item) => chosen.has(item));
}

/** "4,440 files, 40 commands" for the resources a picture left out. */
export function omittedText(left: readonly ResourceNode[]): string {
  const words: Record<ResourceType, [string, string]> = {
    command: ['command', 'commands'],
    file: ['file', 'files'],
    host: ['host', 'hosts'],
  };
  return RESOURCE_TYPES.map((type) => [type, left.filter((n) => n.type === type).length] as const)
    .filter(([, n]) => n > 0)
    .map(([type, n]) => `${n} ${words[type][n === 1 ? 0 : 1]}`)
    .join(', ');
}

/** The bounded set of resources one picture of `graph` shows under `view`. */
export function selectNodes(graph: StarGraph, view: GraphView, limit = GRAPH_NODE_LIMIT): Selection {
  const inView = view === 'all' ? graph.nodes : graph.nodes.filter((n) => n.runtime === undefined);
  const ordered = [...inView].sort(byImportance);
  const picked = pickByType(ordered, (n) => n.type, limit);
  const edges = edgesByNode(graph);
  const shown = picked.map((node) => ({ node, ...describeEdges(edges.get(node.id) ?? []) }));
  const kept = new Set(picked);
  return {
    shown,
    more: ordered.length - picked.length,
    omitted: omittedText(ordered.filter((n) => !kept.has(n))),
    hidden: graph.nodes.length - inView.length,
  };
}
