import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { errorMessage, SetupError } from '../../../errors.js';
import { OWNER_ENV } from '../../../exec/owner-registry.js';
import { CollectorConnection } from './connection.js';
import {
  buildCollectorCommand,
  COLLECTOR_DIR,
  COLLECTOR_IDLE_EXIT_S,
  COLLECTOR_LOCK,
  COLLECTOR_LOG,
  COLLECTOR_SOCKET,
  collectorBinary,
  isExecutable,
} from './paths.js';

/** Loading the CO-RE object takes well under a second; allow for a loaded host. */
const START_TIMEOUT_MS = 30_000;
const LOCK_TIMEOUT_MS = 45_000;

export type Paths = { socket: string; lock: string; log: string; binary: string; idleExitS: number };

export function defaultPaths(): Paths {
  return {
    socket: COLLECTOR_SOCKET,
    lock: COLLECTOR_LOCK,
    log: COLLECTOR_LOG,
    binary: collectorBinary(),
    idleExitS: COLLECTOR_IDLE_EXIT_S,
  };
}

/**
 * A connection to the host's collector, starting one when none listens. Runs that start together
 * take a lock file first, so that exactly one of them starts it and the others connect to it; a
 * lock left by a process that died is taken over.
 */
export async function connectToCollector(paths: Paths = defaultPaths()): Promise<CollectorConnection> {
  const first = await tryConnect(paths.socket);
  if (first.connection) return first.connection;
  mkdirSync(COLLECTOR_DIR, { recursive: true, mode: 0o700 });
  await takeLock(paths.lock);
  try {
    // Another run may have started it while this one waited for the lock.
    const again = await tryConnect(paths.socket);
    if (again.connection) return again.connection;
    await startCollector(paths);
    const started = await tryConnect(paths.socket);
    if (started.connection) return started.connection;
    throw new SetupError(`the collector started but ${paths.socket} refuses connections (${started.error})`);
  } finally {
    releaseLock(paths.lock);
  }
}

async function tryConnect(
  socket: string,
): Promise<{ connection: CollectorConnection; error?: never } | { connection?: never; error: string }> {
  try {
    return { connection: await CollectorConnection.connect(socket) };
  } catch (err) {
    return { error: (err as NodeJS.ErrnoException).code ?? errorMessage(err) };
  }
}

/**
 * Starts the collector detached (it serves later runs too) and waits until its socket answers. A
 * collector that exits 3 found another one holding the socket's lock: usually one still dying
 * (detaching its programs takes a few seconds after a kill -9), so it is started again until that
 * one is gone or a live one answers.
 */
async function startCollector(paths: Paths): Promise<void> {
  if (!isExecutable(paths.binary)) {
    throw new SetupError(
      `the compiled collector is not built (${paths.binary} is missing). Fix: ${buildCollectorCommand()}`,
    );
  }
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const child = spawnCollector(paths);
    for (;;) {
      const probe = await tryConnect(paths.socket);
      if (probe.connection) {
        probe.connection.close();
        return;
      }
      const ended = child.ended();
      if (ended && ended.code !== 3) {
        const why = ended.error ?? lastLines(paths.log) ?? describeEnd(ended);
        throw new SetupError(`the compiled collector did not start: ${why}`);
      }
      if (Date.now() > deadline) {
        throw new SetupError(
          `the compiled collector did not open ${paths.socket} within ${START_TIMEOUT_MS / 1000} s: ${lastLines(paths.log) ?? 'no output'}`,
        );
      }
      await sleep(ended ? 100 : 10);
      if (ended) break;
    }
  }
}

type Ended = { code: number | null; signal: NodeJS.Signals | null; error?: string };

function spawnCollector(paths: Paths): { ended: () => Ended | null } {
  const log = openSync(paths.log, 'w', 0o600);
  // Not one run's helper: the startup sweep must not take it for a dead run's leftover.
  const env = { ...process.env };
  delete env[OWNER_ENV];
  let ended: Ended | null = null;
  try {
    const child = spawn(paths.binary, ['--socket', paths.socket, '--idle-exit', String(paths.idleExitS)], {
      detached: true,
      stdio: ['ignore', log, log],
      env,
    });
    child.once('error', (err) => {
      ended = { code: null, signal: null, error: err.message };
    });
    child.once('exit', (code, signal) => {
      ended ??= { code, signal };
    });
    child.unref();
  } finally {
    closeSync(log);
  }
  return { ended: () => ended };
}

function describeEnd(ended: Ended): string {
  return ended.signal ? `signal ${ended.signal}` : `exit code ${ended.code}`;
}

function lastLines(file: string): string | null {
  try {
    const text = readFileSync(file, 'utf8').trim();
    return text === '' ? null : text.split('\n').slice(-3).join(' | ').slice(0, 600);
  } catch {
    return null;
  }
}

/** An exclusive lock file holding its owner's pid; a dead owner's lock is taken over. */
async function takeLock(lock: string): Promise<void> {
  const deadline = Date.now() + LOCK_TIMEOUT_MS;
  for (;;) {
    try {
      const fd = openSync(lock, 'wx', 0o600);
      writeFileSync(fd, String(process.pid));
      closeSync(fd);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const text = readSafe(lock);
    const owner = Number(text);
    // A lock whose owner died is taken over. (Two takers racing here may both start a collector;
    // the second finds the socket taken and exits 3, so the lock only saves work, not safety.)
    if (text !== '' && !(Number.isInteger(owner) && owner > 0 && alive(owner))) {
      try {
        unlinkSync(lock);
      } catch {}
      continue;
    }
    if (Date.now() > deadline)
      throw new SetupError(`the collector's start lock ${lock} is held by pid ${owner} for too long`);
    await sleep(25);
  }
}

function releaseLock(lock: string): void {
  try {
    if (readSafe(lock) === String(process.pid)) unlinkSync(lock);
  } catch {}
}

function readSafe(file: string): string | null {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export type CollectorStatus =
  | { running: true; pid: number | null; socket: string }
  | { running: false; socket: string; last: string | null };

/** Whether a collector answers on the socket, and its pid (from the READY line it logged). */
export async function collectorStatus(paths: Paths = defaultPaths()): Promise<CollectorStatus> {
  const probe = await tryConnect(paths.socket);
  if (!probe.connection) return { running: false, socket: paths.socket, last: lastLines(paths.log) };
  probe.connection.close();
  const pid = Number(/^READY (\d+)$/m.exec(readSafe(paths.log) ?? '')?.[1]);
  const serving = Number.isInteger(pid) && pid > 0 && cmdlineHas(pid, paths.socket);
  return { running: true, pid: serving ? pid : null, socket: paths.socket };
}

/** Starts the collector unless one answers; its status afterwards. */
export async function ensureCollector(paths: Paths = defaultPaths()): Promise<CollectorStatus> {
  (await connectToCollector(paths)).close();
  return collectorStatus(paths);
}

function cmdlineHas(pid: number, text: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(text);
  } catch {
    return false;
  }
}
