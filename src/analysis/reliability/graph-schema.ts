import { z } from 'zod';
import { RESOURCE_TYPES, STAR_GRAPH_SCHEMA_VERSION, type StarGraph } from './types.js';

const count = z.number().int().nonnegative();

const StarGraphSchema = z.object({
  schema_version: z.literal(STAR_GRAPH_SCHEMA_VERSION),
  run_id: z.string(),
  root: z.object({ id: z.literal('root'), label: z.string() }),
  nodes: z.array(
    z.object({
      id: z.string(),
      type: z.enum(RESOURCE_TYPES),
      name: z.string(),
      count,
      runtime: z.string().optional(),
      canary: z.boolean().optional(),
      exes: z.array(z.string()).optional(),
      ports: z.array(z.number().int()).optional(),
    }),
  ),
  edges: z.array(
    z.object({
      to: z.string(),
      action: z.enum(['exec', 'read', 'write', 'create', 'delete', 'connect']),
      count,
      failed: count,
    }),
  ),
  stats: z.object({
    events: count,
    used: count,
    skipped: count,
    path_probes: count,
    network_records: count,
    processes: count,
    truncated: count,
  }),
});

export type GraphParse = { ok: true; value: StarGraph } | { ok: false; issues: string[] };

/**
 * Checks a parsed `graph.json`. Issues name the field (`nodes.3.count: …`) so the caller can say
 * which file and what is wrong; edges must point at nodes of the graph.
 */
export function parseStarGraph(value: unknown): GraphParse {
  const parsed = StarGraphSchema.safeParse(value);
  if (!parsed.success) {
    return {
      ok: false,
      issues: parsed.error.issues.map((i) => `${i.path.join('.') || '(top level)'}: ${i.message}`),
    };
  }
  const graph = parsed.data as StarGraph;
  const ids = new Set(graph.nodes.map((n) => n.id));
  const dangling = graph.edges.filter((e) => !ids.has(e.to)).map((e) => `edges: '${e.to}' is not a node`);
  return dangling.length > 0 ? { ok: false, issues: dangling } : { ok: true, value: graph };
}
