import { closeSync, openSync, readSync } from 'node:fs';
import type { StartProof } from '../exec/types.js';

/**
 * bwrap writes JSON lines to this descriptor (--json-status-fd): `child-pid` once it has cloned the
 * sandbox's first process, and `exit-code` when that process exits, but only if the sandbox was set
 * up and the command was executed. A setup failure (a mount, a missing program, an exec refused)
 * leaves no `exit-code`. The descriptor is bwrap's own: the command inside never inherits it.
 */
export const STATUS_FD = 8;

/** The status is a few short lines; anything beyond this is not bwrap's. */
const MAX_STATUS_BYTES = 64 * 1024;

/**
 * Why the sandbox never started a command that failed, or null when it did (or the command
 * succeeded). Proven by the status file, never by what the command printed: a command that writes
 * "bwrap: …" and exits non-zero has an `exit-code` line and stays the command's own failure.
 */
export function neverStarted(proof: StartProof, exitCode: number | null, stderr: string): string | null {
  if (exitCode === 0) return null;
  const status = readStatus(proof.statusFile);
  if (status !== null && /"exit-code"\s*:/.test(status)) return null;
  const said = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const own = said.filter((l) => l.startsWith(`${proof.sandbox}:`));
  const cause = own.at(-1) ?? said.at(-1);
  const how =
    status === null
      ? `the launcher before ${proof.sandbox} failed`
      : status.includes('child-pid')
        ? `${proof.sandbox} could not set up the sandbox or start the command`
        : `${proof.sandbox} failed before creating the sandbox`;
  return cause === undefined ? `${how} (exit ${exitCode ?? 'by signal'})` : `${how}: ${clip(cause)}`;
}

function readStatus(file: string): string | null {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    const buf = Buffer.alloc(MAX_STATUS_BYTES);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

function clip(line: string): string {
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
