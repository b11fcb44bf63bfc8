import { spawnSync } from 'node:child_process';
import { SetupError } from '../errors.js';

export type GitReply = { ok: boolean; stdout: Buffer; stderr: string };

/**
 * Run git read-only against the user's checkout: no hooks, no fsmonitor, no optional locks (so
 * not even `git status` refreshes the index), paths printed raw. The user's own repository config
 * still applies (it is their checkout), but nothing here writes to it.
 */
export function userGit(
  repo: string,
  args: string[],
  opts: { input?: Buffer | string; maxBuffer?: number } = {},
): GitReply {
  const r = spawnSync(
    'git',
    ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', '-c', 'core.quotePath=false', ...args],
    {
      cwd: repo,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? '/',
        GIT_OPTIONAL_LOCKS: '0',
        GIT_TERMINAL_PROMPT: '0',
        LC_ALL: 'C',
      },
      maxBuffer: opts.maxBuffer ?? 512 * 1024 * 1024,
      ...(opts.input !== undefined ? { input: opts.input } : {}),
    },
  );
  if (r.error) {
    if ((r.error as NodeJS.ErrnoException).code === 'ENOENT')
      throw new SetupError('git is not installed. Fix: apt-get install -y git.');
    throw new SetupError(`git ${args[0]} could not run in ${repo}: ${r.error.message}`);
  }
  return { ok: r.status === 0, stdout: r.stdout, stderr: r.stderr.toString('utf8').trim() };
}

export function firstLine(buf: Buffer): string {
  return buf.toString('utf8').split('\n')[0]?.trim() ?? '';
}
