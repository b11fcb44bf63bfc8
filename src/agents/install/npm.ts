import { spawn } from 'node:child_process';

export type NpmRun =
  | { status: 'exited'; code: number; stderr: string }
  | { status: 'missing' }
  | { status: 'timeout'; stderr: string };

const KEEP_BYTES = 64 * 1024;

/** Run npm with stdin closed, its output bounded, and a hard timeout on its whole process group. */
export function runNpm(
  npm: string,
  args: readonly string[],
  opts: { env: Readonly<Record<string, string | undefined>>; timeoutMs: number; cwd: string },
): Promise<NpmRun> {
  return new Promise((resolve) => {
    const child = spawn(npm, args, {
      cwd: opts.cwd,
      env: opts.env,
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    let stderr = '';
    let timedOut = false;
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-KEEP_BYTES);
    });
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }, opts.timeoutMs);
    child.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve(
        err.code === 'ENOENT' ? { status: 'missing' } : { status: 'exited', code: 127, stderr: err.message },
      );
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(timedOut ? { status: 'timeout', stderr } : { status: 'exited', code: code ?? 1, stderr });
    });
  });
}

const NETWORK =
  /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ECONNRESET|EHOSTUNREACH|ENETUNREACH|ERR_SOCKET_TIMEOUT)\b/;

/** Why an `npm install` failed, as one sentence and a fix. */
export function explainNpmFailure(stderr: string, spec: string): { message: string; fix: string } {
  const network = NETWORK.exec(stderr);
  if (network || /\bnetwork\b/i.test(stderr)) {
    const registry = /request to (https?:\/\/[^/\s]+)/.exec(stderr)?.[1];
    return {
      message: `the npm registry${registry ? ` ${registry}` : ''} could not be reached (${network?.[1] ?? 'network error'})`,
      fix: "check the network and npm's registry setting ('npm config get registry'), then install again",
    };
  }
  if (/\b(E404|ETARGET)\b|No matching version/.test(stderr)) {
    return {
      message: `${spec} is not in the npm registry`,
      fix: 'correct package.name and package.version in the agent profile',
    };
  }
  if (/\b(EACCES|EPERM|EROFS)\b/.test(stderr)) {
    return {
      message: 'npm could not write the agent cache',
      fix: 'make the cache folder writable or point AGENTGUARD_AGENT_CACHE at one that is',
    };
  }
  const last =
    stderr
      .split('\n')
      .map((l) => l.replace(/^npm (error|ERR!)\s*/, '').trim())
      .filter((l) => l && !/^(A complete log|code\s)/.test(l))
      .at(-1) ?? 'no message';
  return {
    message: `npm install failed: ${last}`,
    fix: "see npm's message; run the install again once it is solved",
  };
}
