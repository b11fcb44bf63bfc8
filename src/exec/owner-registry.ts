import { appendFileSync, mkdirSync, readFileSync, unlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * What each agentguard process started that could outlive it: process groups (the agent, the
 * tests, strace under them), run ids (whose cgroups carry the id as their name), and — through
 * the AGENTGUARD_OWNER variable every child of the harness inherits — helpers such as bpftrace.
 * A process killed with SIGKILL cannot clean up; the next run's sweep (`sweep.ts`) reads these
 * notes, sees the owner is gone and removes what it left.
 */
export const OWNER_ENV = 'AGENTGUARD_OWNER';

export type OwnerNote = { run: string } | { group: number; start: string };

let file: string | null = null;

/**
 * Names another folder for the notes: installations (or tests) that must not sweep up after each
 * other keep theirs apart.
 */
export const OWNERS_DIR_ENV = 'AGENTGUARD_OWNERS_DIR';

/** Where owners write their notes: /run/agentguard when root, else a per-user folder in /tmp. */
export function ownersDir(env: NodeJS.ProcessEnv = process.env): string {
  const chosen = env[OWNERS_DIR_ENV];
  if (chosen && path.isAbsolute(chosen)) return chosen;
  return process.getuid?.() === 0
    ? '/run/agentguard/owners'
    : path.join(os.tmpdir(), `agentguard-owners-${process.getuid?.() ?? 'user'}`);
}

/** Identity of a live process that survives pid reuse: pid plus its start time (clock ticks since boot). */
export function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/**
 * Turn the notes on for this process: the CLI does for `run` and `demo`, and any process does when it
 * makes a cgroup (`noteCgroup`); other tests leave them off.
 */
export function enableOwnerRegistry(dir = ownersDir()): void {
  if (file) return;
  const start = processStart(process.pid) ?? '0';
  mkdirSync(dir, { recursive: true });
  file = path.join(dir, `${process.pid}-${start}.jsonl`);
  appendFileSync(file, '');
  // Inherited by every helper the harness spawns with its own environment (bpftrace).
  process.env[OWNER_ENV] = `${process.pid}:${start}`;
  process.on('exit', () => {
    try {
      if (file) unlinkSync(file);
    } catch {
      // already swept
    }
  });
}

function note(entry: OwnerNote): void {
  if (!file) return;
  try {
    appendFileSync(file, `${JSON.stringify(entry)}\n`);
  } catch {
    // A note that cannot be written only makes a later sweep less thorough.
  }
}

export function noteRun(runId: string): void {
  note({ run: runId });
}

/**
 * A cgroup this process made under `agentguard/` (named `name`), noted whoever made it — a run, a
 * bench, a test — turning the notes on if nothing did yet, so that a sweep after this process is
 * killed removes the cgroup instead of leaving it on the host for good.
 */
export function noteCgroup(name: string): void {
  try {
    enableOwnerRegistry();
  } catch {
    // No folder for the notes (a read-only /run): the cgroup is still removed on every path but a kill.
    return;
  }
  note({ run: name });
}

export function noteGroup(pgid: number): void {
  if (!file) return;
  const start = processStart(pgid);
  if (start) note({ group: pgid, start });
}
