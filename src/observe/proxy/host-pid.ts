import { readFileSync, readlinkSync } from 'node:fs';
import { processStart, procPids } from './socket-owner.js';

/**
 * The host pid of process `nsPid` of the PID namespace `pidNamespace` (as `readlink
 * /proc/PID/ns/pid` prints it, e.g. `pid:[4026532290]`; namespace ids are the same seen from
 * inside and out). The tracer records host pids, the bridge sees sandbox pids: this joins them.
 * `start` (clock ticks after boot, not namespaced) makes sure a pid reused since is not taken for
 * the process the bridge saw. Reads one link per host process, status files only of the sandbox's.
 * Synchronous on purpose: a few hundred tiny /proc reads take well under a millisecond in one go,
 * but several milliseconds as as many thread-pool round trips.
 */
export function hostPidOf(
  pidNamespace: string,
  nsPid: number,
  start: number | undefined,
  proc = '/proc',
): number | undefined {
  // A bridge in the harness's own PID namespace (outside the sandbox's, as without root) names host pids.
  if (isOwnNamespace(pidNamespace, proc))
    return start === undefined || processStart(nsPid, proc) === start ? nsPid : undefined;
  for (const pid of procPids(proc)) {
    try {
      if (readlinkSync(`${proc}/${pid}/ns/pid`) !== pidNamespace) continue;
      const status = readFileSync(`${proc}/${pid}/status`, 'utf8');
      // NSpid lists the pid in each namespace from the host's down to the process's own.
      const nspids = /^NSpid:\s*(.*)$/m.exec(status)?.[1]?.trim().split(/\s+/);
      if (Number(nspids?.at(-1)) !== nsPid) continue;
      if (start !== undefined && processStart(pid, proc) !== start) continue;
      return pid;
    } catch {
      // exited or unreadable: not the one
    }
  }
  return undefined;
}

/**
 * The host pids of the sandbox's processes (those in PID namespace `pidNamespace`), newest first as
 * `procPids` lists them.
 */
export function sandboxHostPids(pidNamespace: string, proc = '/proc'): number[] {
  const pids: number[] = [];
  for (const pid of procPids(proc)) {
    try {
      if (readlinkSync(`${proc}/${pid}/ns/pid`) === pidNamespace) pids.push(pid);
    } catch {
      // exited or unreadable: not one of them
    }
  }
  return pids;
}

/** Whether `pidNamespace` is the PID namespace this process (the harness) lives in. */
export function isOwnNamespace(pidNamespace: string, proc = '/proc'): boolean {
  try {
    return readlinkSync(`${proc}/self/ns/pid`) === pidNamespace;
  } catch {
    return false;
  }
}
