import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { SetupError } from '../errors.js';
import { safeTimeout } from '../exec/safe-timer.js';

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
 * agent's reach); it never reads the workspace's `.git`, which the agent controls. Asynchronous, so
 * a run's git never stalls another run of the same process (the demo's two at a time): stdout is
 * kept up to `maxBuffer` bytes (then git is stopped and the reply is marked truncated), a run past
 * `timeoutMs` is killed, and the process has exited whenever the promise settles.
 */
export function git(
  args: string[],
  opts: GitTarget & { maxBuffer?: number; timeoutMs?: number; input?: Buffer },
): Promise<{ stdout: Buffer; truncated: boolean }> {
  const bare = opts.workTree ? [] : ['-c', 'core.bare=true'];
  const argv = [...SAFE_CONFIG, ...bare, ...args];
  const maxBuffer = opts.maxBuffer ?? 512 * 1024 * 1024;
  const cwd = opts.workTree ?? opts.gitDir;
  return new Promise((resolve, reject) => {
    const child = spawn('git', argv, {
      env: gitEnv(opts),
      cwd,
      stdio: [opts.input ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    let kept = 0;
    let truncated = false;
    let timedOut = false;
    let stderr = Buffer.alloc(0);
    child.stdout?.on('data', (chunk: Buffer) => {
      if (truncated) return;
      const room = maxBuffer - kept;
      if (chunk.length > room) {
        // The caller asked for a bounded read and gets what fitted; git has nothing more to say to us.
        out.push(chunk.subarray(0, room));
        kept = maxBuffer;
        truncated = true;
        child.kill('SIGKILL');
        return;
      }
      out.push(chunk);
      kept += chunk.length;
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = Buffer.concat([stderr, chunk]);
      if (stderr.length > STDERR_KEPT) stderr = stderr.subarray(stderr.length - STDERR_KEPT);
    });
    if (opts.input && child.stdin) {
      // git may exit before reading it all (a bad argument): its status says why, not EPIPE.
      child.stdin.on('error', () => {});
      child.stdin.end(opts.input);
    }
    const timer = opts.timeoutMs
      ? safeTimeout(() => {
          timedOut = true;
          child.kill('SIGKILL');
        }, opts.timeoutMs)
      : null;
    let spawnError: NodeJS.ErrnoException | null = null;
    child.on('error', (err: NodeJS.ErrnoException) => {
      spawnError = err;
    });
    child.on('close', (status) => {
      timer?.clear();
      const failed = spawnError as NodeJS.ErrnoException | null;
      if (failed) return reject(startFailure(failed, args, cwd));
      if (truncated) return resolve({ stdout: Buffer.concat(out), truncated: true });
      if (timedOut) {
        return reject(
          new SetupError(
            `git ${args[0]} did not finish within ${Math.round((opts.timeoutMs ?? 0) / 1000)} s`,
          ),
        );
      }
      if (status !== 0) {
        const said = stderr.toString('utf8').trim().split('\n').slice(-3).join(' ');
        return reject(new SetupError(`git ${args.join(' ').slice(0, 80)} failed: ${said}`));
      }
      resolve({ stdout: Buffer.concat(out), truncated: false });
    });
  });
}

/** Why git could not start (spawn says ENOENT for a missing working folder too). */
function startFailure(err: NodeJS.ErrnoException, args: string[], cwd: string): SetupError {
  if (err.code !== 'ENOENT') return new SetupError(`git ${args[0]} could not run: ${err.message}`);
  return new SetupError(
    existsSync(cwd)
      ? 'git is not installed. Fix: apt-get install -y git.'
      : `git ${args[0]} could not start: its folder ${cwd} does not exist`,
  );
}

/** What the harness's git is always run with: see `git`. */
const SAFE_CONFIG = [
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.quotePath=false',
];
/** The end of git's stderr kept for an error message (its last lines say why). */
const STDERR_KEPT = 16 * 1024;

/**
 * Wait for every promise to settle, then fail with the first failure: git processes started side
 * by side have all exited before the caller moves on (or cleans up what they read), whichever failed.
 */
export async function allSettled<T extends readonly unknown[]>(
  promises: readonly [...{ [K in keyof T]: Promise<T[K]> }],
): Promise<T> {
  const settled = await Promise.allSettled(promises);
  for (const s of settled) if (s.status === 'rejected') throw s.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as unknown as T;
}
