import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { noteCgroup } from '../exec/owner-registry.js';
import type { SpawnSpec } from '../exec/types.js';

/** A cgroup capping the number of processes of a run, so a fork bomb stays a finding, not an outage. */
export type PidsLimit = { dir: string; max: number };

/**
 * The cgroup-v1 `pids` hierarchy, where one is mounted (hybrid hosts such as these). On a pure
 * cgroup-v2 host the run's process cgroup belongs to the eBPF tracer, so no second one is made;
 * the caller records that no limit applies.
 */
function pidsHierarchy(): string | null {
  try {
    for (const line of readFileSync('/proc/mounts', 'utf8').split('\n')) {
      const [, mountPoint, type, options] = line.split(' ');
      if (type === 'cgroup' && options?.split(',').includes('pids') && mountPoint) return mountPoint;
    }
  } catch {
    // no /proc: no limit
  }
  return null;
}

export function createPidsLimit(runId: string, max: number): PidsLimit | { error: string } {
  const root = pidsHierarchy();
  if (!root) return { error: 'no cgroup-v1 pids hierarchy is mounted' };
  const dir = path.join(root, 'agentguard', runId);
  try {
    mkdirSync(dir, { recursive: true });
    noteCgroup(runId);
    writeFileSync(path.join(dir, 'pids.max'), String(max));
    return { dir, max };
  } catch (err) {
    return { error: `cannot create ${dir}: ${(err as NodeJS.ErrnoException).code ?? String(err)}` };
  }
}

/** Join the limit's cgroup before exec'ing the command, so every descendant is counted. */
export function wrapInPidsLimit(spec: SpawnSpec, limit: PidsLimit): SpawnSpec {
  const script = 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"';
  return { ...spec, argv: ['/bin/sh', '-c', script, 'agentguard-pids', limit.dir, ...spec.argv] };
}

/** Kill whatever is left in the cgroup and remove it. */
export async function removePidsLimit(limit: PidsLimit): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const pids = readPids(limit.dir);
    if (pids.length === 0) break;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      if (existsSync(limit.dir)) rmdirSync(limit.dir);
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  try {
    rmdirSync(path.dirname(limit.dir));
  } catch {
    // other runs still use the parent
  }
}

export function readPids(dir: string): number[] {
  try {
    return readFileSync(path.join(dir, 'cgroup.procs'), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map(Number);
  } catch {
    return [];
  }
}
