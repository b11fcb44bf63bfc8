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

/** What to do about the sandbox failures people meet, from the line the sandbox printed. */
const KNOWN_FIXES: { said: RegExp; fix: (m: RegExpMatchArray) => string }[] = [
  {
    said: /unshare user ns|new namespace|uid map|Operation not permitted/i,
    fix: () =>
      'run as root (sudo -E agentguard <the same arguments>), or allow unprivileged user namespaces ' +
      '(sysctl -w kernel.unprivileged_userns_clone=1; on Ubuntu also kernel.apparmor_restrict_unprivileged_userns=0)',
  },
  {
    said: /Can't find source path (\S+?):/,
    fix: (m) => `${m[1]} was removed while the run was starting: keep it in place for the whole run`,
  },
  {
    said: /execvp (\S+?):/,
    fix: (m) =>
      `${m[1]} is not in the sandbox: install it, or name its folder in sandbox.mounts or toolchains`,
  },
];

/** One sentence saying how to fix the failure `neverStarted` found. */
export function startFix(cause: string): string {
  for (const k of KNOWN_FIXES) {
    const m = cause.match(k.said);
    if (m) return k.fix(m);
  }
  return "correct the path or setting it names (sandbox.mounts, toolchains, the command), or run 'agentguard doctor' as the same user";
}
