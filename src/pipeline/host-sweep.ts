import { existsSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { OWNER_ENV, ownersDir, processStart } from '../exec/owner-registry.js';
import { findCgroup2Mount, readMounts } from '../observe/ebpf/mounts.js';
import { CGROUP_PARENT, killCgroup, removeCgroup } from '../observe/ebpf/run-cgroup.js';
import { RUN_USERS_DIR, sweepDeadLeases } from '../sandbox/run-user.js';

export type SweepResult = { processes: number; cgroups: number; owners: number; leases: number };

type DeadOwner = { file: string; runs: Set<string>; groups: { pgid: number; start: string }[] };

/**
 * What agentguard processes that died without cleaning up (SIGKILL, a crash, a power cut of the
 * host's session) left behind: their process groups (agent, tests, strace), helpers that carry
 * their owner mark (bpftrace), their runs' cgroups and run-user leases. Live owners — another run going on at the
 * same time — are never touched. Cheap when there is nothing to do.
 */
export async function sweepStale(dir = ownersDir(), leasesDir = RUN_USERS_DIR): Promise<SweepResult> {
  const dead = deadOwners(dir);
  const result: SweepResult = { processes: 0, cgroups: 0, owners: dead.length, leases: 0 };
  for (const owner of dead) {
    for (const { pgid, start } of owner.groups) {
      // The leader still running with the same start time, or gone while its group lives on.
      const now = processStart(pgid);
      if (now !== null && now !== start) continue;
      try {
        process.kill(-pgid, 'SIGKILL');
        result.processes++;
      } catch {
        // the group is gone
      }
    }
  }
  result.processes += killOrphanedHelpers();
  const runs = new Set(dead.flatMap((o) => [...o.runs]));
  if (runs.size > 0) {
    for (const root of await cgroupRoots()) {
      const parent = path.join(root, CGROUP_PARENT);
      let names: string[] = [];
      try {
        names = readdirSync(parent);
      } catch {
        continue;
      }
      for (const name of names) {
        if (!ownedBy(name, runs)) continue;
        const dir = path.join(parent, name);
        if (!existsSync(path.join(dir, 'cgroup.procs'))) continue;
        const { killed } = await killCgroup(dir);
        result.processes += killed.length;
        await removeCgroup({ dir, parent, id: 0n, path: `/${CGROUP_PARENT}/${name}` }).catch(() => undefined);
        if (!existsSync(dir)) result.cgroups++;
      }
    }
  }
  // After the processes: a lease is given back only once nothing of its dead holder runs as its uid.
  result.leases = sweepDeadLeases(leasesDir);
  for (const owner of dead) {
    try {
      unlinkSync(owner.file);
    } catch {
      // another sweep got there first
    }
  }
  return result;
}

/** One line for the user, or null when there was nothing to clean. */
export function describeSweep(r: SweepResult): string | null {
  if (r.processes === 0 && r.cgroups === 0 && r.leases === 0) return null;
  return (
    `agentguard: cleaned up after ${r.owners || 'an'} earlier agentguard process(es) that ended without cleaning up: ` +
    `killed ${r.processes} leftover process(es), removed ${r.cgroups} cgroup(s), freed ${r.leases} run user(s)`
  );
}

/**
 * A run's cgroups are named after its id (the ebpf tracer adds `-N` when the name is taken; the
 * sandbox session of setup's installs adds `-setup`).
 */
function ownedBy(name: string, runs: Set<string>): boolean {
  if (runs.has(name)) return true;
  const m = /^(.*)-(\d+|setup)$/.exec(name);
  return m !== null && runs.has(m[1] as string);
}

function deadOwners(dir: string): DeadOwner[] {
  let files: string[] = [];
  try {
    files = readdirSync(dir).filter((f) => /^\d+-\d+\.jsonl$/.test(f));
  } catch {
    return [];
  }
  const dead: DeadOwner[] = [];
  for (const f of files) {
    const [pid, start] = f.replace('.jsonl', '').split('-');
    if (Number(pid) === process.pid || processStart(Number(pid)) === start) continue;
    const owner: DeadOwner = { file: path.join(dir, f), runs: new Set(), groups: [] };
    let text = '';
    try {
      text = readFileSync(owner.file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n')) {
      try {
        const entry = JSON.parse(line) as { run?: unknown; group?: unknown; start?: unknown };
        if (typeof entry.run === 'string') owner.runs.add(entry.run);
        if (typeof entry.group === 'number' && typeof entry.start === 'string')
          owner.groups.push({ pgid: entry.group, start: entry.start });
      } catch {
        // a line cut short by the kill
      }
    }
    dead.push(owner);
  }
  return dead;
}

/** Helpers (bpftrace) whose AGENTGUARD_OWNER names a process that no longer exists. */
function killOrphanedHelpers(): number {
  let killed = 0;
  const mark = `${OWNER_ENV}=`;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${entry}/environ`, 'latin1');
    } catch {
      continue;
    }
    const at = environ.indexOf(mark);
    if (at < 0 || (at > 0 && environ[at - 1] !== '\0')) continue;
    const value = environ.slice(at + mark.length, environ.indexOf('\0', at) >>> 0);
    const [owner, start] = value.split(':');
    if (!owner || !start || processStart(Number(owner)) === start) continue;
    try {
      process.kill(Number(entry), 'SIGKILL');
      killed++;
    } catch {
      // gone
    }
  }
  return killed;
}

async function cgroupRoots(): Promise<string[]> {
  const roots: string[] = [];
  const v2 = await findCgroup2Mount().catch(() => undefined);
  if (v2) roots.push(v2);
  const mounts = await readMounts().catch(() => '');
  for (const line of mounts.split('\n')) {
    const [, point, type, options] = line.split(' ');
    if (type === 'cgroup' && options?.split(',').includes('pids') && point) roots.push(point);
  }
  return roots;
}
