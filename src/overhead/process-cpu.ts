import { readdirSync, readFileSync } from 'node:fs';
import { collectorStatus } from '../observe/ebpf/collector/daemon.js';

/** USER_HZ: the unit of /proc/<pid>/stat times, 100 on every Linux architecture agentguard runs on. */
const USER_HZ = 100;

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces), from `state` on. */
function statFields(pid: number | 'self'): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

const ticksMs = (a: string | undefined, b: string | undefined) => ((Number(a) + Number(b)) * 1000) / USER_HZ;

/** CPU of this process's children that it has waited for (cutime + cstime). */
export function waitedChildrenCpuMs(): number {
  const f = statFields('self');
  return f ? ticksMs(f[13], f[14]) : 0;
}

/** The compiled collector daemon: its pid, its CPU so far, and whether this process started it. */
export type DaemonCpu = { pid: number; ms: number; ourChild: boolean };

/** The collector daemon's CPU now, or null when none runs (or its pid cannot be read). */
export async function collectorDaemonCpu(): Promise<DaemonCpu | null> {
  const status = await collectorStatus();
  if (!status.running || status.pid === null) return null;
  const f = statFields(status.pid);
  if (!f) return null;
  return { pid: status.pid, ms: ticksMs(f[11], f[12]), ourChild: Number(f[1]) === process.pid };
}

/**
 * Split a run's CPU between the run and the collector daemon. The daemon serves every run and
 * stays up between them; when it exits (idle) and this process reaps it, its whole CPU lands in
 * the waited-children figure of whichever run was going on. That share is taken out again, and the
 * daemon's CPU during the run is returned on its own.
 */
export function daemonShare(
  before: DaemonCpu | null,
  after: DaemonCpu | null,
): { daemonMs: number; reapedMs: number } {
  if (before && after && before.pid === after.pid) return { daemonMs: after.ms - before.ms, reapedMs: 0 };
  // Started during the run: all its CPU so far is this run's.
  const started = after && (!before || before.pid !== after.pid) ? after.ms : 0;
  // Gone during the run: if it was our child, its CPU (at least what we last saw) entered cutime.
  const reaped = before && (!after || after.pid !== before.pid) && before.ourChild ? before.ms : 0;
  return { daemonMs: started, reapedMs: reaped };
}

/** Pids of this process's children that have not been reaped yet (running or zombie). */
export function livingChildren(exclude: ReadonlySet<number>): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (exclude.has(pid)) continue;
    const f = statFields(pid);
    if (f && Number(f[1]) === process.pid) out.push(pid);
  }
  return out;
}

/**
 * Wait until every child this process started is reaped (the collector daemon aside), so its CPU
 * is in cutime before the run's figure is read. The pipeline does not wait for a killed bpftrace
 * (the kernel takes seconds to free its probes); without this its CPU landed in a later run's.
 */
export async function settleChildren(exclude: ReadonlySet<number>, timeoutMs = 60_000): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (livingChildren(exclude).length > 0) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}
