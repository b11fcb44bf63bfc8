import { constants } from 'node:fs';
import { access, mkdir, readdir, readFile, rmdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { noteCgroup } from '../../exec/owner-registry.js';
import { mountPoints, readMounts } from './mounts.js';

/** Where every run's cgroup lives, below the cgroup v2 mount. */
export const CGROUP_PARENT = 'agentguard';

/** `path`: the cgroup below the v2 mount (`/agentguard/<run>`), as an engine's `--cgroup-parent` names it. */
export type RunCgroup = { dir: string; parent: string; id: bigint; path: string };

/**
 * Creates `<mount>/agentguard/<run id>`. A tracer that follows the cgroup tree (the compiled
 * collector) lets the run make child cgroups, which stay the run's: a container engine puts its
 * payload in one. A tracer that matches the run's cgroup exactly (bpftrace's `cgroup == id`) gets
 * one with no room for child cgroups, so that no process can slip into a sub-cgroup it would not see.
 */
export async function createRunCgroup(
  mount: string,
  runId: string,
  opts: { children: boolean } = { children: false },
): Promise<RunCgroup> {
  const parent = join(mount, CGROUP_PARENT);
  await mkdir(parent, { recursive: true });
  const base = runId.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100) || 'run';
  for (let attempt = 0; ; attempt++) {
    const name = attempt === 0 ? base : `${base}-${attempt}`;
    const dir = join(parent, name);
    try {
      await mkdir(dir);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (attempt >= 100) throw err;
      // ENOENT: another run removed the shared parent between our two mkdirs.
      if (code === 'ENOENT') await mkdir(parent, { recursive: true });
      else if (code !== 'EEXIST') throw err;
      continue;
    }
    noteCgroup(name);
    if (!opts.children) await writeFile(join(dir, 'cgroup.max.descendants'), '0').catch(() => undefined);
    // On 64-bit kernels a cgroup's id is its directory's inode number.
    const id = BigInt((await stat(dir, { bigint: true })).ino);
    return { dir, parent, id, path: `/${CGROUP_PARENT}/${name}` };
  }
}

/** Pids in a cgroup and every cgroup below it. */
export async function cgroupPids(dir: string): Promise<number[]> {
  const pids: number[] = [];
  const text = await readFile(join(dir, 'cgroup.procs'), 'utf8').catch(() => '');
  for (const line of text.split('\n')) if (line.trim()) pids.push(Number(line));
  for (const child of await childCgroups(dir)) pids.push(...(await cgroupPids(child)));
  return pids;
}

/**
 * SIGKILLs everything in the cgroup (cgroup.kill kills forks in flight too; without it, each pid
 * in turn, repeated until none is left) and waits until it is empty. Returns the pids it found.
 */
export async function killCgroup(
  dir: string,
  timeoutMs = 5000,
): Promise<{ killed: number[]; remaining: number[] }> {
  const killed = new Set<number>();
  const hasKill = await access(join(dir, 'cgroup.kill'), constants.W_OK).then(
    () => true,
    () => false,
  );
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pids = await cgroupPids(dir);
    if (pids.length === 0) return { killed: [...killed], remaining: [] };
    if (Date.now() > deadline) return { killed: [...killed], remaining: pids };
    // A process already on its way out (zombie) still shows for a moment; it was not left running.
    for (const pid of pids) if (await isRunning(pid)) killed.add(pid);
    if (hasKill) await writeFile(join(dir, 'cgroup.kill'), '1').catch(() => undefined);
    else {
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
    }
    await sleep(20);
  }
}

async function isRunning(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  // The state follows the command name, which is in parentheses and may contain anything.
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state !== '' && state !== 'Z' && state !== 'X';
}

/** How long stop() lets the run's processes end on their own before killing them. */
const STOP_GRACE_MS = 300;

/**
 * Whatever still runs in the run's cgroup at stop (a daemon the agent left, or a hostile workload)
 * is killed, so that its exit is traced and nothing outlives the window. Returns what to warn about.
 */
export async function stopCgroup(dir: string): Promise<string[]> {
  // A sandbox's init process (bwrap's pid 1) exits a moment after the command it waited for:
  // give the cgroup that moment to empty, so that only what really stayed is killed and reported.
  const settle = Date.now() + STOP_GRACE_MS;
  while ((await cgroupPids(dir)).length > 0 && Date.now() < settle) await sleep(10);
  const { killed, remaining } = await killCgroup(dir);
  const warnings: string[] = [];
  if (killed.length > 0)
    warnings.push(`killed ${killed.length} process(es) still running at stop: ${killed.join(', ')}`);
  if (remaining.length > 0) warnings.push(`could not kill process(es) ${remaining.join(', ')} in ${dir}`);
  return warnings;
}

/**
 * Removes the cgroup (children first) and the shared parent when no other run uses it. On a hybrid
 * host a container engine also made the run's path in each cgroup v1 hierarchy (conmon's cgroup):
 * those go too.
 */
export async function removeCgroup(cgroup: RunCgroup): Promise<void> {
  await removeTree(cgroup.dir);
  await rmdir(cgroup.parent).catch(() => undefined);
  for (const hierarchy of await v1Hierarchies()) {
    const dir = join(hierarchy, cgroup.path);
    if (!(await stat(dir).catch(() => null))) continue;
    await removeTree(dir).catch(() => undefined);
    await rmdir(join(hierarchy, CGROUP_PARENT)).catch(() => undefined);
  }
}

async function v1Hierarchies(): Promise<string[]> {
  return mountPoints(await readMounts().catch(() => ''), 'cgroup');
}

async function removeTree(dir: string): Promise<void> {
  for (const child of await childCgroups(dir)) await removeTree(child);
  for (let attempt = 0; ; attempt++) {
    try {
      await rmdir(dir);
      return;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return;
      // EBUSY while the last killed task is still being torn down.
      if (code !== 'EBUSY' || attempt >= 50) throw err;
      await sleep(20);
    }
  }
}

async function childCgroups(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isDirectory()).map((entry) => join(dir, entry.name));
}
