import { spawnSync } from 'node:child_process';
import { SetupError } from '../errors.js';

/** Without a work tree git runs bare: nothing in the workspace (.gitattributes included) is read. */
export type GitTarget = {
  gitDir: string;
  workTree?: string;
  indexFile?: string;
  /** Another object folder read beside the repository's own (GIT_ALTERNATE_OBJECT_DIRECTORIES). */
  alternates?: string;
};

/**
 * Environment for every git the harness runs: no user or system config, fixed identity and dates
 * (so baselines are reproducible), and glibc told not to hand memory back after each object —
 * on these VMs git spent most of its time in brk() otherwise.
 */
export function gitEnv(target: GitTarget): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    GIT_DIR: target.gitDir,
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
    MALLOC_TRIM_THRESHOLD_: String(256 * 1024 * 1024),
    MALLOC_TOP_PAD_: String(64 * 1024 * 1024),
  };
  if (target.workTree) env.GIT_WORK_TREE = target.workTree;
  if (target.indexFile) env.GIT_INDEX_FILE = target.indexFile;
  if (target.alternates) env.GIT_ALTERNATE_OBJECT_DIRECTORIES = target.alternates;
  return env;
}

/**
 * Run git with no hooks and no fsmonitor, so that nothing in the task repository or on the host
 * changes what the harness sees. The harness only ever uses its own git directory (outside the
 * agent's reach); it never reads the workspace's `.git`, which the agent controls.
 */
export function git(
  args: string[],
  opts: GitTarget & { maxBuffer?: number; timeoutMs?: number; input?: Buffer },
): { stdout: Buffer; truncated: boolean } {
  const bare = opts.workTree ? [] : ['-c', 'core.bare=true'];
  const r = spawnSync(
    'git',
    [
      '-c',
      'core.hooksPath=/dev/null',
      '-c',
      'core.fsmonitor=false',
      '-c',
      'core.quotePath=false',
      ...bare,
      ...args,
    ],
    {
      env: gitEnv(opts),
      maxBuffer: opts.maxBuffer ?? 512 * 1024 * 1024,
      cwd: opts.workTree ?? opts.gitDir,
      ...(opts.input ? { input: opts.input } : {}),
      ...(opts.timeoutMs ? { timeout: opts.timeoutMs, killSignal: 'SIGKILL' as const } : {}),
    },
  );
  if (r.error) {
    const code = (r.error as NodeJS.ErrnoException).code;
    // Output over maxBuffer: the caller asked for a bounded read and gets what fitted.
    if (code === 'ENOBUFS') return { stdout: r.stdout, truncated: true };
    if (code === 'ETIMEDOUT') {
      throw new SetupError(
        `git ${args[0]} did not finish within ${Math.round((opts.timeoutMs ?? 0) / 1000)} s`,
      );
    }
    if (code === 'ENOENT') throw new SetupError('git is not installed. Fix: apt-get install -y git.');
    throw new SetupError(`git ${args[0]} could not run: ${r.error.message}`);
  }
  if (r.status !== 0) {
    const stderr = r.stderr.toString('utf8').trim().split('\n').slice(-3).join(' ');
    throw new SetupError(`git ${args.join(' ').slice(0, 80)} failed: ${stderr}`);
  }
  return { stdout: r.stdout, truncated: false };
}
