import type { SysEvent } from '../evidence/types.js';

export type ScopedEvents = { events: SysEvent[]; rootPid: number | null; dropped: number };

/**
 * Keep only the agent's own process tree. The traced tree also holds the harness's launchers
 * (cgroup entry shell, bwrap, the proxy bridge), whose mounts and execs are setup, not behaviour.
 * The agent's root is the first successful exec of the agent's program with its arguments; its
 * descendants are found through fork events (and ppid for processes whose fork was not seen).
 */
export function scopeToAgent(events: readonly SysEvent[], agentArgv: readonly string[]): ScopedEvents {
  const scope = new AgentScope(agentArgv);
  const kept: SysEvent[] = [];
  for (const e of events) {
    const accepted = scope.accept(e);
    if (accepted) kept.push(accepted);
  }
  return { events: kept, rootPid: scope.rootPid, dropped: events.length - kept.length };
}

/** The same cut, one event at a time, for the live guard (events arrive in seq order). */
export class AgentScope {
  rootPid: number | null = null;
  private readonly inTree = new Set<number>();
  constructor(private readonly agentArgv: readonly string[]) {}

  accept(e: SysEvent): SysEvent | null {
    if (this.rootPid === null) {
      if (e.kind !== 'exec' || (e.result ?? 0) < 0 || !argvMatches(e.argv ?? [], this.agentArgv)) return null;
      this.rootPid = e.pid;
      this.inTree.add(e.pid);
    } else if (e.kind === 'fork' && this.inTree.has(e.ppid)) {
      this.inTree.add(e.pid);
    } else if (!this.inTree.has(e.pid) && this.inTree.has(e.ppid)) {
      this.inTree.add(e.pid);
    }
    if (!this.inTree.has(e.pid)) return null;
    return e.pid === this.rootPid ? { ...e, ppid: 0 } : e;
  }
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
