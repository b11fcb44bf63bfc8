import { posix } from 'node:path';
import type { NetworkRecord, SysEvent } from '../../evidence/types.js';
import { commandSignature } from './command-signature.js';
import { hostFromAddress, hostFromRecord } from './host-name.js';
import { cleanPath, type PathContext, pathNormaliser } from './normalise-path.js';
import { runtimeRule } from './runtime-files.js';
import {
  type ActionKind,
  RESOURCE_TYPES,
  type ResourceNode,
  type ResourceType,
  STAR_GRAPH_SCHEMA_VERSION,
  type StarEdge,
  type StarGraph,
} from './types.js';

export type StarGraphInput = {
  runId: string;
  /** The agent-window events of the agent's process tree. */
  syscalls: readonly SysEvent[];
  /** Egress proxy and DNS records: the host names. */
  network?: readonly NetworkRecord[];
  workspaceDir: string;
  /** HOME as the agent saw it inside the sandbox (`/root`). */
  agentHome?: string;
  /** The host folder mounted as that HOME, in case a tracer reports host paths. */
  hostHome?: string;
  runDir?: string;
  /** Canary files, relative to HOME (as in canaries.json) or absolute. */
  canaryPaths?: readonly string[];
  /** Temp roots whose names are abstracted (default /tmp, /var/tmp, /dev/shm). */
  tempDirs?: readonly string[];
  /** Extra folders whose files count as runtime (the agent's own installation), absolute or normalised. */
  runtimeDirs?: readonly string[];
  /** `ip:port` connections that are harness plumbing (default 127.0.0.1:3128 and 127.0.0.1:53). */
  harnessEndpoints?: readonly string[];
  /** Label of the root node; defaults to the command signature of the first successful exec. */
  rootLabel?: string;
};

/** Per action (index in ACTION_ORDER): attempts and failures. Arrays, not maps: this is the hot loop. */
type Tally = { node: ResourceNode; counts: number[]; failed: number[] };
type PendingProbe = { program: string; signature: string };

const ACTION_ORDER: readonly ActionKind[] = ['exec', 'read', 'write', 'create', 'delete', 'connect'];
const ACTION_INDEX: Record<ActionKind, number> = {
  exec: 0,
  read: 1,
  write: 2,
  create: 3,
  delete: 4,
  connect: 5,
};
const MAX_EXES = 5;

/** Builds the star graph of one run. Pure: the same evidence gives the same graph, byte for byte. */
export function buildStarGraph(input: StarGraphInput): StarGraph {
  const ctx: PathContext = {
    workspaceDir: input.workspaceDir,
    homeDirs: [input.agentHome, input.hostHome].filter((d): d is string => Boolean(d)),
    runId: input.runId,
    ...(input.runDir ? { runDir: input.runDir } : {}),
    ...(input.tempDirs ? { tempDirs: input.tempDirs } : {}),
  };
  const normalise = pathNormaliser(ctx);
  const runtimeDirs = (input.runtimeDirs ?? []).map((d) => (d.startsWith('/') ? normalise(d) : cleanPath(d)));
  const canaries = new Set(
    (input.canaryPaths ?? []).map((p) =>
      p.startsWith('/') ? normalise(p) : `$HOME/${cleanPath(p).replace(/^\.\//, '')}`,
    ),
  );
  const tallies: Record<ResourceType, Map<string, Tally>> = {
    command: new Map(),
    file: new Map(),
    host: new Map(),
  };
  const add = (type: ResourceType, name: string, action: ActionKind, failed: boolean, exe?: string) => {
    let tally = tallies[type].get(name);
    if (!tally) {
      const node: ResourceNode = { id: `${type}:${name}`, type, name, count: 0 };
      if (type !== 'command') {
        const rule = runtimeRule(name, runtimeDirs);
        if (rule) node.runtime = rule;
      }
      if (type === 'file' && canaries.has(name)) node.canary = true;
      tally = { node, counts: [0, 0, 0, 0, 0, 0], failed: [0, 0, 0, 0, 0, 0] };
      tallies[type].set(name, tally);
    }
    const index = ACTION_INDEX[action];
    (tally.counts[index] as number)++;
    if (failed) (tally.failed[index] as number)++;
    tally.node.count++;
    if (exe !== undefined) {
      const exes = tally.node.exes ?? [];
      if (!exes.includes(exe) && exes.length < MAX_EXES) tally.node.exes = [...exes, exe].sort();
    }
    return tally.node;
  };

  const stats = {
    events: 0,
    used: 0,
    skipped: 0,
    path_probes: 0,
    network_records: 0,
    processes: 0,
    truncated: 0,
  };
  const pids = new Set<number>();
  const probes = new Map<number, PendingProbe[]>();
  let rootLabel = input.rootLabel;
  const file = (path: string | undefined, action: ActionKind, failed: boolean) => {
    if (!path) return false;
    add('file', normalise(path), action, failed);
    return true;
  };

  for (const e of input.syscalls) {
    stats.events++;
    pids.add(e.pid);
    if (e.truncated) stats.truncated++;
    const failed = (e.result ?? 0) < 0;
    let used = false;
    if (e.kind === 'exec') {
      const exe = e.path ?? e.argv?.[0] ?? '';
      const signature = commandSignature(exe, e.argv ?? [], e.cwd, normalise);
      const program = posix.basename(exe);
      if (failed) {
        // Kept aside: glibc's execvp tries every PATH folder in turn before the one that works.
        const list = probes.get(e.pid) ?? [];
        list.push({ program, signature });
        probes.set(e.pid, list);
      } else {
        const pending = probes.get(e.pid);
        if (pending) {
          const rest = pending.filter((p) => p.program !== program);
          stats.path_probes += pending.length - rest.length;
          probes.set(e.pid, rest);
        }
        add('command', signature, 'exec', false, exe.startsWith('/') ? normalise(exe) : exe);
        file(e.path, 'exec', false);
        rootLabel ??= signature;
      }
      used = true;
    } else if (e.kind === 'open') {
      used = file(e.path, e.access ?? 'read', failed);
    } else if (e.kind === 'write-meta') {
      used = metaActions(e)
        .map(([path, action]) => file(path, action, failed))
        .some(Boolean);
    } else if (e.kind === 'connect' && e.addr) {
      const host = hostFromAddress(e.addr, { normalise, harnessEndpoints: input.harnessEndpoints });
      if (host) {
        const node = add('host', host, 'connect', failed);
        if (e.addr.port !== undefined) addPort(node, e.addr.port);
        used = true;
      }
    }
    if (used) stats.used++;
    else stats.skipped++;
  }
  for (const pending of probes.values()) {
    for (const probe of pending) add('command', probe.signature, 'exec', true);
  }
  for (const record of input.network ?? []) {
    stats.network_records++;
    const host = hostFromRecord(record);
    if (!host) continue;
    addPort(add('host', host, 'connect', record.decision === 'denied'), record.port);
  }
  stats.processes = pids.size;
  return assemble(input.runId, rootLabel ?? 'agent', tallies, stats);
}

/** The paths a metadata call changes and how: a rename deletes its source and writes its target. */
function metaActions(e: SysEvent): [string | undefined, ActionKind][] {
  const call = e.syscall;
  if (call.startsWith('unlink') || call === 'rmdir') return [[e.path, 'delete']];
  if (call.startsWith('rename')) {
    return [
      [e.path, 'delete'],
      [e.path2, 'write'],
    ];
  }
  if (call.startsWith('mkdir') || call === 'mknod' || call === 'mknodat') return [[e.path, 'create']];
  // link/symlink: only the new name is a change; the target is not touched.
  if (call.startsWith('link') || call.startsWith('symlink')) return [[e.path2, 'create']];
  return [[e.path, 'write']];
}

function addPort(node: ResourceNode, port: number): void {
  const ports = node.ports ?? [];
  if (!ports.includes(port)) node.ports = [...ports, port].sort((a, b) => a - b);
}

function assemble(
  runId: string,
  label: string,
  tallies: Record<ResourceType, Map<string, Tally>>,
  stats: StarGraph['stats'],
): StarGraph {
  const ordered = RESOURCE_TYPES.flatMap((type) =>
    [...tallies[type].values()].sort((a, b) => compareText(a.node.name, b.node.name)),
  );
  const edges: StarEdge[] = [];
  for (const { node, counts, failed } of ordered) {
    ACTION_ORDER.forEach((action, index) => {
      const count = counts[index] as number;
      if (count > 0) edges.push({ to: node.id, action, count, failed: failed[index] as number });
    });
  }
  return {
    schema_version: STAR_GRAPH_SCHEMA_VERSION,
    run_id: runId,
    root: { id: 'root', label },
    nodes: ordered.map((t) => t.node),
    edges,
    stats,
  };
}

/** Code-unit order: the same in every locale, so graph.json is reproducible. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
