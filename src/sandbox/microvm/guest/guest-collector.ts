/**
 * The compiled eBPF collector inside the microVM (guest side): started on the guest's own kernel,
 * it watches the command's cgroup and writes its records straight to the trace port, which the
 * host keeps as the run's raw eBPF file. Node built-ins only (this runs from dist/ on the host root).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import type { GuestTraceEnd } from '../../../observe/guest-trace-end.js';
import { lineQueue } from '../line-queue.js';

const SOCKET = '/dev/agentguard-collector.sock';
const TRACEFS = '/sys/kernel/tracing';
/**
 * Loading and attaching every probe under software emulation takes seconds, and on a busy host (a
 * verifier retry without the exec-environment scan, two test workers on two cores) over a minute.
 */
const START_TIMEOUT_MS = 120_000;
/** How long the collector may take to drain once stopped: the launcher's drain deadline follows it. */
export const STOP_TIMEOUT_MS = 20_000;

export type GuestCollector = {
  version: string;
  missing: string[];
  /** Ends the watch: the collector drains its ring buffer into the port, then answers. */
  stop(): Promise<GuestTraceEnd>;
};

/** Syscall tracepoints are found through tracefs, which the guest's init does not mount. */
function mountTracefs(): void {
  if (existsSync(`${TRACEFS}/events`) && readdirSync(`${TRACEFS}/events`).length > 0) return;
  spawnSync('mount', ['-t', 'tracefs', 'nodev', TRACEFS], { stdio: 'ignore' });
}

function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} took over ${ms / 1000} s`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Starts the collector and has it watch `cgroupDir`, writing to `port`. Throws one sentence (with
 * the collector's own stderr) when it cannot: the caller then steps down to strace.
 */
export async function startGuestCollector(
  binary: string,
  cgroupDir: string,
  port: string,
): Promise<GuestCollector> {
  mountTracefs();
  const child: ChildProcess = spawn(binary, ['--socket', SOCKET, '--idle-exit', '86400'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    if (stderr.length < 2000) stderr += d.toString();
  });
  const exited = new Promise<string>((resolve) => {
    child.once('error', (e) => resolve(e.message));
    child.once('exit', (code, signal) => resolve(`exit ${code ?? signal}`));
  });
  const fail = async (why: string): Promise<never> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    // Its last stderr lines say why it could not load; they arrive as it exits.
    await within(2_000, 'the collector exiting', exited).catch(() => undefined);
    throw new Error(`${why}${stderr.trim() ? `: ${stderr.trim().split('\n').slice(-3).join(' | ')}` : ''}`);
  };
  const stdout = lineQueue(child.stdout as NodeJS.ReadableStream);
  const first = await within(
    START_TIMEOUT_MS,
    'the collector loading its probes',
    Promise.race([stdout.next(), exited.then(() => null)]),
  ).catch((e: Error) => fail(e.message));
  if (!first?.startsWith('READY ')) return fail(`the collector did not start (${first ?? 'it exited'})`);

  const conn: Socket = createConnection(SOCKET);
  await within(
    5_000,
    'connecting to the collector',
    new Promise<void>((resolve, reject) => {
      conn.once('connect', resolve);
      conn.once('error', reject);
    }),
  ).catch((e: Error) => fail(`cannot connect to the collector: ${e.message}`));
  const answers = lineQueue(conn);
  conn.write(`WATCH ${statSync(cgroupDir).ino} ${port}\n`);
  const ok = await within(10_000, 'the collector taking the cgroup', answers.next()).catch((e: Error) =>
    fail(e.message),
  );
  const parsed = ok ? /^OK (.+) (\S+)$/.exec(ok) : null;
  if (!parsed) return fail(`the collector refused the watch (${ok ?? 'no answer'})`);
  const version = parsed[1] as string;
  const missing = parsed[2] === '-' ? [] : (parsed[2] as string).split(',').filter(Boolean);

  return {
    version,
    missing,
    async stop() {
      try {
        conn.write('STOP\n');
        const done = await within(STOP_TIMEOUT_MS, 'the collector draining', answers.next());
        const lost = done ? /^DONE (\d+)$/.exec(done) : null;
        if (!lost) return { error: `the collector did not finish the trace (${done ?? 'it went away'})` };
        return { engine: 'collector', version, missing, lost: Number(lost[1]) };
      } catch (e) {
        return { error: (e as Error).message };
      } finally {
        conn.destroy();
        child.kill('SIGTERM');
      }
    },
  };
}
