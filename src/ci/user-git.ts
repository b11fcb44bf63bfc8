import { spawnSync } from 'node:child_process';
import { SetupError } from '../errors.js';

export type GitReply = { ok: boolean; stdout: Buffer; stderr: string };

/** Commands that may run a filter, diff or merge driver on the checkout's files (a racily clean file is re-hashed through its clean filter by `status`). */
const DRIVER_COMMANDS = new Set([
  'status',
  'diff',
  'diff-files',
  'diff-index',
  'add',
  'checkout',
  'stash',
  'merge',
  'log',
  'show',
]);

/**
 * Run git read-only against the user's checkout: no hooks, no fsmonitor, no optional locks (so
 * not even `git status` refreshes the index), paths printed raw. The user's own repository config
 * still applies (it is their checkout), but nothing here writes to it, and no driver the checkout's
 * attributes select ever runs: the checkout is the pull request's, and its `.gitattributes` may
 * name any filter, diff or merge driver the runner's config defines (git-lfs's, or any other).
 */
export function userGit(
  repo: string,
  args: string[],
  opts: { input?: Buffer | string; maxBuffer?: number } = {},
): GitReply {
  const neutral = DRIVER_COMMANDS.has(args[0] ?? '') ? neutralDrivers(repo) : {};
  return rawGit(repo, args, opts, neutral);
}

function rawGit(
  repo: string,
  args: string[],
  opts: { input?: Buffer | string; maxBuffer?: number },
  config: Record<string, string> = {},
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
        ...config,
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

/**
 * Settings (as GIT_CONFIG_KEY_n/VALUE_n, so no name is ever parsed as `key=value`) that empty every driver the checkout's attributes select for any of its files
 * (tracked or not; `.gitattributes` files, macros and the user's attributes file as git reads them):
 * a driver whose commands are empty runs nothing. Names are read with `check-attr`, which runs none.
 */
function neutralDrivers(repo: string): Record<string, string> {
  const files = rawGit(repo, ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {});
  if (!files.ok || files.stdout.length === 0) return {};
  const attrs = rawGit(repo, ['check-attr', '-z', '--stdin', 'filter', 'diff', 'merge'], {
    input: files.stdout,
  });
  if (!attrs.ok) throw new SetupError(`git check-attr failed in ${repo}: ${attrs.stderr}`);
  const names = { filter: new Set<string>(), diff: new Set<string>(), merge: new Set<string>() };
  const parts = attrs.stdout.toString('utf8').split('\0');
  for (let i = 0; i + 2 < parts.length; i += 3) {
    const attr = parts[i + 1] as keyof typeof names;
    const value = parts[i + 2] ?? '';
    if (attr in names && !['unspecified', 'set', 'unset', ''].includes(value)) names[attr].add(value);
  }
  const keys: [string, string][] = [];
  for (const n of names.filter) {
    for (const k of ['process', 'clean', 'smudge']) keys.push([`filter.${n}.${k}`, '']);
    keys.push([`filter.${n}.required`, 'false']);
  }
  for (const n of names.diff) for (const k of ['command', 'textconv']) keys.push([`diff.${n}.${k}`, '']);
  for (const n of names.merge) keys.push([`merge.${n}.driver`, '']);
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(keys.length) };
  keys.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}

export function firstLine(buf: Buffer): string {
  return buf.toString('utf8').split('\n')[0]?.trim() ?? '';
}
