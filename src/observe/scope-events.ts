import type { SysEvent } from '../evidence/types.js';

export type ScopedEvents = { events: SysEvent[]; rootPid: number | null; dropped: number };

/**
 * Keep only the agent's own process tree. The traced tree also holds the harness's launchers
 * (cgroup entry shell, bwrap, the proxy bridge), whose mounts and execs are setup, not behaviour.
 * The agent's root is the first successful exec of the agent's program with its arguments; its
 * descendants are found through fork events (and ppid for processes whose fork was not seen).
 */
export function scopeToAgent(events: readonly SysEvent[], agentArgv: readonly string[]): ScopedEvents {
  const root = events.find(
    (e) => e.kind === 'exec' && (e.result ?? 0) >= 0 && argvMatches(e.argv ?? [], agentArgv),
  );
  if (!root) return { events: [], rootPid: null, dropped: events.length };
  const inTree = new Set<number>([root.pid]);
  const kept: SysEvent[] = [];
  for (const e of events) {
    if (e.seq < root.seq) continue;
    if (e.kind === 'fork' && inTree.has(e.ppid)) inTree.add(e.pid);
    else if (!inTree.has(e.pid) && inTree.has(e.ppid)) inTree.add(e.pid);
    if (inTree.has(e.pid)) kept.push(e.pid === root.pid ? { ...e, ppid: 0 } : e);
  }
  return { events: kept, rootPid: root.pid, dropped: events.length - kept.length };
}

/** Tracers cut long argv lists and strings: a recorded argv matches when every recorded item agrees. */
function argvMatches(recorded: readonly string[], wanted: readonly string[]): boolean {
  if (recorded.length === 0 || wanted.length === 0) return false;
  const n = Math.min(recorded.length, wanted.length);
  for (let i = 1; i < n; i++) {
    const r = recorded[i] as string;
    const w = wanted[i] as string;
    if (r !== w && !(w.startsWith(r) && r.length >= 64)) return false;
  }
  const prog = wanted[0] as string;
  const seen = recorded[0] as string;
  return (
    seen === prog ||
    seen.endsWith(`/${prog}`) ||
    prog.endsWith(`/${seen}`) ||
    baseName(seen) === baseName(prog)
  );
}

function baseName(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}
