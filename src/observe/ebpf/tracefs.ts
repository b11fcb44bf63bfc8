import { execFile } from 'node:child_process';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { errorMessage } from '../../errors.js';
import { mountPoints, readMounts } from './mounts.js';

const run = promisify(execFile);

export const TRACEFS_DIR = '/sys/kernel/tracing';
export const MOUNT_TRACEFS = `mount -t tracefs nodev ${TRACEFS_DIR}`;

export type TracefsState =
  | { state: 'ready'; dir: string }
  /** Not mounted, but it can be: start() mounts it. */
  | { state: 'mountable' }
  | { state: 'no-syscalls'; dir: string }
  | { state: 'unsupported' };

/** Whether syscall tracepoints can be used (bpftrace lists `tracepoint:syscalls:*` only from tracefs). */
export async function tracefsState(): Promise<TracefsState> {
  for (const dir of mountPoints(await readMounts(), 'tracefs')) {
    if (await isDir(join(dir, 'events', 'syscalls'))) return { state: 'ready', dir };
  }
  const mounted = mountPoints(await readMounts(), 'tracefs')[0];
  if (mounted) return { state: 'no-syscalls', dir: mounted };
  const filesystems = await readFile('/proc/filesystems', 'utf8').catch(() => '');
  const known = filesystems.split('\n').some((line) => line.trim().split(/\s+/).includes('tracefs'));
  return known && (await isDir(TRACEFS_DIR)) ? { state: 'mountable' } : { state: 'unsupported' };
}

type Ensured = { ok: true; dir: string } | { ok: false; reason: string };

/** Runs of one process (the demo's two at a time) mount one after the other, never both at once. */
let mounting: Promise<Ensured> | null = null;

/**
 * Mounts tracefs when it is missing; returns its directory, or the reason it cannot be used.
 * Idempotent and safe under concurrency: runs in this process share one attempt, and a mount that
 * fails because another process mounted it first ("already mounted", EBUSY) counts as success once
 * a re-check finds the syscall tracepoints.
 */
export function ensureTracefs(): Promise<Ensured> {
  const attempt = (mounting ?? Promise.resolve(null)).then(mountOnce, mountOnce);
  mounting = attempt;
  return attempt;
}

async function mountOnce(): Promise<Ensured> {
  const before = await settledState();
  if (before.state === 'ready') return { ok: true, dir: before.dir };
  if (before.state !== 'mountable') return { ok: false, reason: describe(before) };
  let failure: string | null = null;
  try {
    await run('mount', ['-t', 'tracefs', 'nodev', TRACEFS_DIR], { timeout: 10_000 });
  } catch (err) {
    failure = `\`${MOUNT_TRACEFS}\` failed: ${errorMessage(err).trim()}`;
  }
  const after = await settledState();
  if (after.state === 'ready') return { ok: true, dir: after.dir };
  return { ok: false, reason: failure ?? describe(after) };
}

/** How long a tracefs another process is mounting may take to show its syscall events. */
const SETTLE_MS = 1000;
const SETTLE_STEP_MS = 50;

/**
 * The state, looked at again for a moment while tracefs is mounted but shows no syscall events: a
 * mount another process is making is listed before its `events` folder is filled in, and reading it
 * then as "the kernel has no syscall tracepoints" failed a run that raced another's mount.
 */
async function settledState(): Promise<TracefsState> {
  let state = await tracefsState();
  for (let waited = 0; state.state === 'no-syscalls' && waited < SETTLE_MS; waited += SETTLE_STEP_MS) {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_STEP_MS));
    state = await tracefsState();
  }
  return state;
}

export function describe(state: TracefsState): string {
  switch (state.state) {
    case 'ready':
      return `tracefs is mounted at ${state.dir}`;
    case 'mountable':
      return `tracefs is not mounted at ${TRACEFS_DIR}`;
    case 'no-syscalls':
      return `${state.dir}/events has no syscalls directory: the kernel was built without CONFIG_FTRACE_SYSCALLS`;
    case 'unsupported':
      return `the kernel offers no tracefs (${TRACEFS_DIR} is missing)`;
  }
}

/** Names in `events/syscalls`, e.g. `sys_enter_openat`. */
export async function syscallTracepoints(dir: string): Promise<Set<string>> {
  return new Set(await readdir(join(dir, 'events', 'syscalls')));
}

/** Whether sched_process_exit says which thread's exit ends the process (`group_dead`, newer kernels). */
export async function exitHasGroupDead(dir: string): Promise<boolean> {
  const format = await readFile(join(dir, 'events', 'sched', 'sched_process_exit', 'format'), 'utf8').catch(
    () => '',
  );
  return /\bgroup_dead;/.test(format);
}

async function isDir(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isDirectory(),
    () => false,
  );
}
