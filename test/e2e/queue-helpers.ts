import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PASSWORD_ENV } from '../../src/queue/redis-url.js';
import { loadOrCreateWorkerKey, type WorkerKey } from '../../src/queue/worker-key.js';
import { CLI } from './exec-cli.js';

/*
 * What the queue e2e files share: a password-protected queue (the password in a 0600 file for
 * workers and in the environment for coordinators, never in argv), worker keys registered in a
 * folder, and worker processes whose log can be waited for.
 */

export const QUEUE_PASSWORD = 'q-pass-7d1f0c';

export type QueueSetup = {
  /** The folder of registered public keys (--worker-keys). */
  keysDir: string;
  passwordFile: string;
  /** The environment a coordinator gets the password from. */
  env: Record<string, string>;
  /** A worker key made under the work folder, registered unless `register` is false. */
  key: (name: string, register?: boolean) => { file: string; key: WorkerKey };
};

export function queueSetup(work: string): QueueSetup {
  const keysDir = path.join(work, 'registered-keys');
  mkdirSync(keysDir, { recursive: true });
  const passwordFile = path.join(work, 'queue-password');
  writeFileSync(passwordFile, `${QUEUE_PASSWORD}\n`, { mode: 0o600 });
  return {
    keysDir,
    passwordFile,
    env: { [PASSWORD_ENV]: QUEUE_PASSWORD },
    key: (name, register = true) => {
      const file = path.join(work, 'keys', `${name}.pem`);
      const key = loadOrCreateWorkerKey(file);
      if (register) writeFileSync(path.join(keysDir, `${name}.pub`), key.publicPem);
      return { file, key };
    },
  };
}

export type WorkerProcess = {
  child: ChildProcess;
  log: () => string;
  waitFor: (re: RegExp) => Promise<RegExpMatchArray>;
};

/** A real `agentguard worker` with its own registered key; its stderr lines kept and waited for. */
export function startWorker(
  q: QueueSetup,
  url: string,
  out: string,
  opts: {
    cwd: string;
    name: string;
    extra?: string[];
    passwordFromEnv?: boolean;
    /** More of the worker's environment (what a job might try to hand its agent). */
    env?: Record<string, string>;
  },
): WorkerProcess {
  const { file } = q.key(opts.name);
  const password = opts.passwordFromEnv ? [] : ['--queue-password-file', q.passwordFile];
  const args = ['worker', '--queue', url, ...password, '--key', file];
  const child = spawn(process.execPath, [CLI, ...args, '--output-dir', out, ...(opts.extra ?? [])], {
    cwd: opts.cwd,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: opts.cwd,
      NO_COLOR: '1',
      ...(opts.passwordFromEnv ? q.env : {}),
      ...opts.env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  const waiters: { re: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  child.stderr?.on('data', (c) => {
    log += c;
    for (const w of [...waiters]) {
      const m = log.match(w.re);
      if (m) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  });
  return {
    child,
    log: () => log,
    waitFor: (re) =>
      new Promise((resolve) => {
        const m = log.match(re);
        if (m) resolve(m);
        else waiters.push({ re, resolve });
      }),
  };
}

/** The command lines of every process on the host that shows `secret` in its argv. */
export function argvHolding(secret: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    if (cmdline.includes(secret)) found.push(`${pid}: ${cmdline.replaceAll('\0', ' ')}`);
  }
  return found;
}
