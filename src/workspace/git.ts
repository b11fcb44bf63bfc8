import { spawnSync } from 'node:child_process';
import { SetupError } from '../errors.js';

/**
 * Run git with no user or system config and no hooks, so that nothing in the task repository or
 * on the host changes what the harness sees. The harness only ever uses its own git directory
 * (outside the agent's reach); it never reads the workspace's `.git`, which the agent controls.
 */
export function git(
  args: string[],
  opts: { gitDir: string; workTree: string; indexFile?: string; maxBuffer?: number },
): { stdout: Buffer; truncated: boolean } {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    GIT_DIR: opts.gitDir,
    GIT_WORK_TREE: opts.workTree,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: 'agentguard',
    GIT_AUTHOR_EMAIL: 'agentguard@localhost',
    GIT_COMMITTER_NAME: 'agentguard',
    GIT_COMMITTER_EMAIL: 'agentguard@localhost',
    GIT_AUTHOR_DATE: '2000-01-01T00:00:00Z',
    GIT_COMMITTER_DATE: '2000-01-01T00:00:00Z',
    LC_ALL: 'C',
  };
  if (opts.indexFile) env.GIT_INDEX_FILE = opts.indexFile;
  const r = spawnSync(
    'git',
    ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', '-c', 'core.quotePath=false', ...args],
    { env, maxBuffer: opts.maxBuffer ?? 512 * 1024 * 1024, cwd: opts.workTree },
  );
  if (r.error) {
    const code = (r.error as NodeJS.ErrnoException).code;
    // Output over maxBuffer: the caller asked for a bounded read and gets what fitted.
    if (code === 'ENOBUFS') return { stdout: r.stdout, truncated: true };
    if (code === 'ENOENT') throw new SetupError('git is not installed. Fix: apt-get install -y git.');
    throw new SetupError(`git ${args[0]} could not run: ${r.error.message}`);
  }
  if (r.status !== 0) {
    const stderr = r.stderr.toString('utf8').trim().split('\n').slice(-3).join(' ');
    throw new SetupError(`git ${args.join(' ').slice(0, 80)} failed: ${stderr}`);
  }
  return { stdout: r.stdout, truncated: false };
}
