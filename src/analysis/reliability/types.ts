/**
 * The star graph of one run (AgentSpy §3.4.1): an execution root linked to the resources the agent
 * and its subprocesses touched — commands, files and hosts — with one edge per action kind and a
 * count. Process ids are gone and names are normalised, so graphs of different runs compare.
 * Written as `graph.json` in the run directory.
 */

export const STAR_GRAPH_SCHEMA_VERSION = 1;

export const RESOURCE_TYPES = ['command', 'file', 'host'] as const;
export type ResourceType = (typeof RESOURCE_TYPES)[number];

export type ActionKind = 'exec' | 'read' | 'write' | 'create' | 'delete' | 'connect';

/** One edge root → resource: how often the run did `action` to it, and how many of those failed. */
export type StarEdge = {
  /** The resource node's id. */
  to: string;
  action: ActionKind;
  count: number;
  /** Attempts that failed (negative syscall result, proxy denial). Included in `count`. */
  failed: number;
};

export type ResourceNode = {
  /** `${type}:${name}`, unique within a graph and equal across runs for the same resource. */
  id: string;
  type: ResourceType;
  /** Normalised name: a command signature, a path with placeholders, or a host name. */
  name: string;
  /** Sum of the counts of the node's edges: the resource's weight in similarity. */
  count: number;
  /** Program start-up noise (dynamic libraries, locale data, /proc/self…): the rule that said so. */
  runtime?: string;
  /** A planted canary credential (its name is kept so a read of it is visible across runs). */
  canary?: boolean;
  /** Commands: the normalised executable paths seen for this signature (sorted, at most a few). */
  exes?: string[];
  /** Hosts: the destination ports seen (sorted). */
  ports?: number[];
};

export type StarGraphStats = {
  /** Syscall events read. */
  events: number;
  /** Events that became an edge count. */
  used: number;
  /** Events with no resource (exit, fork, privilege calls) or dropped as harness plumbing. */
  skipped: number;
  /** Failed execs dropped as PATH-search probes (a later exec of the same program by the same pid worked). */
  path_probes: number;
  /** Network records (egress proxy log) read. */
  network_records: number;
  /** Distinct process ids seen; only this count survives, not the ids. */
  processes: number;
  /** Events whose strings the tracer cut. */
  truncated: number;
};

export type StarGraph = {
  schema_version: typeof STAR_GRAPH_SCHEMA_VERSION;
  run_id: string;
  root: { id: 'root'; label: string };
  /** Sorted by type, then name. */
  nodes: ResourceNode[];
  /** Sorted by node id, then action. */
  edges: StarEdge[];
  stats: StarGraphStats;
};

/**
 * Which nodes an analysis looks at. `all` is the whole graph; `behaviour` leaves out nodes marked
 * `runtime`, whose presence says which interpreter ran, not what the agent did with it.
 */
export type GraphView = 'all' | 'behaviour';
