import { posix } from 'node:path';
import type { EvidenceBundle } from '../analysis/evidence-bundle.js';
import type { NetworkRecord, SysEvent } from '../evidence/types.js';
import type { ActivityListName, ActivitySummary, FileActivity, HostActivity } from './types.js';

/** Entries kept per list; the rest are counted in `omitted`. */
export const ACTIVITY_LIST_LIMIT = 50;

// Files every dynamically linked program opens. Listing them would push the reads a reviewer cares
// about (~/.ssh, /etc/shadow, another project) out of the bounded list; the full record stays in
// evidence/syscalls.jsonl. /proc and /etc are deliberately not here.
const RUNTIME_PREFIXES = [
  '/lib/',
  '/lib64/',
  '/usr/lib/',
  '/usr/lib64/',
  '/usr/share/locale/',
  '/usr/share/zoneinfo/',
];
const RUNTIME_FILES = new Set([
  '/etc/ld.so.cache',
  '/etc/ld.so.preload',
  '/etc/localtime',
  '/dev/null',
  '/dev/zero',
  '/dev/tty',
  '/dev/urandom',
  '/dev/random',
]);

export function isRuntimeFile(path: string): boolean {
  return RUNTIME_FILES.has(path) || RUNTIME_PREFIXES.some((prefix) => path.startsWith(prefix));
}

/** Summarise syscall and proxy evidence. Pure: only the bundle is read. */
export function summariseActivity(bundle: EvidenceBundle): ActivitySummary {
  const syscallEvidence = bundle.observation.tracer.kind !== 'off';
  const events = syscallEvidence ? bundle.syscalls : [];
  const workspace = posix.resolve(bundle.workspace.repo_dir);

  const pids = new Set<number>();
  const execs = new Map<string, number>();
  const readsOutside = new Map<string, number>();
  const writesOutside = new Map<string, number>();
  const writesInside = new Map<string, number>();
  let runtimeFiles = 0;

  const touch = (rawPath: string, cwd: string | undefined, write: boolean): void => {
    const path = absolutePath(rawPath, cwd);
    const inside = path !== undefined ? relativeInside(workspace, path) : undefined;
    if (inside !== undefined) {
      if (write) bump(writesInside, inside);
      return;
    }
    const shown = path ?? rawPath;
    if (path !== undefined && isRuntimeFile(path)) {
      runtimeFiles += 1;
      return;
    }
    bump(write ? writesOutside : readsOutside, shown);
  };

  for (const event of events) {
    pids.add(event.pid);
    if (failed(event)) continue;
    if (event.kind === 'exec') {
      bump(execs, commandName(event));
    } else if (event.kind === 'open' && event.path !== undefined) {
      touch(event.path, event.cwd, event.access === 'write' || event.access === 'create');
    } else if (event.kind === 'write-meta') {
      if (event.path !== undefined) touch(event.path, event.cwd, true);
      if (event.path2 !== undefined) touch(event.path2, event.cwd, true);
    }
  }

  const hosts = countHosts(bundle.network, events);
  const omitted: Record<ActivityListName, number> = {
    execs: 0,
    files_read_outside_workspace: 0,
    files_written_outside_workspace: 0,
    files_written_inside_workspace: 0,
    hosts: 0,
  };
  const bounded = <T>(name: ActivityListName, items: T[]): T[] => {
    omitted[name] = Math.max(0, items.length - ACTIVITY_LIST_LIMIT);
    return items.slice(0, ACTIVITY_LIST_LIMIT);
  };

  return {
    syscall_evidence: syscallEvidence,
    processes: pids.size,
    execs: bounded(
      'execs',
      ranked(execs).map(([command, count]) => ({ command, count })),
    ),
    files_read_outside_workspace: bounded('files_read_outside_workspace', fileList(readsOutside)),
    files_written_outside_workspace: bounded('files_written_outside_workspace', fileList(writesOutside)),
    files_written_inside_workspace: bounded('files_written_inside_workspace', fileList(writesInside)),
    runtime_files: runtimeFiles,
    hosts: bounded('hosts', hosts),
    omitted,
  };
}

// Failed calls are mostly the loader and PATH lookups probing for files; the security rules, not
// this summary, judge attempts.
function failed(event: SysEvent): boolean {
  return event.result !== undefined && event.result < 0;
}

function commandName(event: SysEvent): string {
  const program = event.path ?? event.argv?.[0] ?? event.exe;
  return posix.basename(program) || program;
}

function absolutePath(path: string, cwd: string | undefined): string | undefined {
  if (path.startsWith('/')) return posix.resolve(path);
  if (cwd?.startsWith('/')) return posix.resolve(cwd, path);
  // A relative path with no known cwd cannot be placed; it is listed as outside, as it was seen.
  return undefined;
}

function relativeInside(workspace: string, path: string): string | undefined {
  if (path === workspace) return '.';
  return path.startsWith(`${workspace}/`) ? path.slice(workspace.length + 1) : undefined;
}

function bump(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

/** Most frequent first, then by name, so the order never depends on event order. */
function ranked(counts: Map<string, number>): [string, number][] {
  return [...counts].sort(([a, ca], [b, cb]) => cb - ca || compareText(a, b));
}

function fileList(counts: Map<string, number>): FileActivity[] {
  return ranked(counts).map(([path, count]) => ({ path, count }));
}

function compareText(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

function countHosts(network: NetworkRecord[], events: SysEvent[]): HostActivity[] {
  const byKey = new Map<string, HostActivity>();
  const add = (entry: Omit<HostActivity, 'count'>): void => {
    const key = JSON.stringify([entry.source, entry.host, entry.port, entry.decision]);
    const existing = byKey.get(key);
    if (existing) existing.count += 1;
    else
      byKey.set(key, {
        host: entry.host,
        port: entry.port,
        count: 1,
        decision: entry.decision,
        source: entry.source,
      });
  };
  for (const record of network) {
    add({ host: record.host, port: record.port, decision: record.decision, source: 'proxy' });
  }
  for (const event of events) {
    const addr = event.addr;
    if (event.kind !== 'connect' || addr === undefined || addr.family === 'unix') continue;
    const host = addr.host ?? addr.ip;
    if (host === undefined) continue;
    add({ host, port: addr.port ?? null, decision: 'observed', source: 'connect' });
  }
  const decisionRank = { denied: 0, allowed: 1, observed: 2 } as const;
  return [...byKey.values()].sort(
    (a, b) =>
      decisionRank[a.decision] - decisionRank[b.decision] ||
      b.count - a.count ||
      compareText(a.host, b.host) ||
      (a.port ?? -1) - (b.port ?? -1),
  );
}
