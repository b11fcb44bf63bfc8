/**
 * The host side of one sandboxed command: `node launch.js PLAN.json`. What the microvm sandbox's
 * wrap() returns, so the runner spawns, times out and kills it like any wrapped command. It listens
 * on the Unix sockets QEMU's virtio-serial ports connect to, starts QEMU,
 * hands the guest its command once it
 * is up, relays the command's output, connects each guest stream on the net port to the harness's
 * proxy or DNS socket, and exits as the command did (128+N for a signal). QEMU runs in a process
 * group of its own with the kernel's parent-death signal set, so the runner's SIGTERM to the
 * launcher's group reaches only the launcher, which first asks the guest to stop the command and
 * drain its trace (the plan's `drainMs`, inside the grace the runner gives it), and QEMU still never outlives it: every
 * exit path kills QEMU, and a SIGKILLed launcher takes QEMU with it. How the trace ended goes beside
 * the trace file (`traceEndFile`). A guest that does not boot in time, or stops before the command
 * ends (crash, out of memory), is exit 125 with the console log's tail on stderr.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type GuestTraceEnd, traceEndFile } from '../../observe/guest-trace-end.js';
import { Mux } from './channel-mux.js';
import type { GuestCommand, GuestExit, GuestHello, GuestStop } from './guest-protocol.js';
import { lineQueue } from './line-queue.js';
import { type QemuPlan, qemuArgv } from './qemu-args.js';

/** What wrap() writes for one command (the launcher adds the sockets and the time). */
export type LaunchPlan = {
  qemu: Omit<QemuPlan, 'sockets'>;
  command: Omit<GuestCommand, 'now_ms'>;
  /** The harness's proxy folder: each guest stream named `proxy.sock`/`dns.sock` connects there. */
  proxyDir?: string;
  bootTimeoutMs: number;
  /** How long a stopped command's guest may take to kill it and drain the trace. */
  drainMs: number;
  /** One JSON line per command with boot, run and teardown times (facts and `npm run bench`). */
  timingFile: string;
};

export const LAUNCH_FAILED = 125;

function tail(file: string, lines = 30): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n').trim();
  } catch {
    return '(no console output)';
  }
}

function listen(path: string): Promise<{ server: Server; conn: Promise<Socket> }> {
  return new Promise((resolve, reject) => {
    let accept: (s: Socket) => void = () => {};
    const conn = new Promise<Socket>((r) => {
      accept = r;
    });
    const server = createServer({ allowHalfOpen: true }, (s) => accept(s));
    server.once('error', reject);
    server.listen(path, () => resolve({ server, conn }));
  });
}

async function main(planFile: string): Promise<number> {
  const plan = JSON.parse(readFileSync(planFile, 'utf8')) as LaunchPlan;
  const t0 = Date.now();
  // Short socket paths (108 bytes at most), private to this launch.
  const dir = mkdtempSync(join(tmpdir(), 'agentguard-vm-'));
  const sockets = {
    control: join(dir, 'c'),
    stdout: join(dir, 'o'),
    stderr: join(dir, 'e'),
    net: join(dir, 'n'),
  };
  const servers = await Promise.all(Object.values(sockets).map((p) => listen(p)));
  const [control, out, err, net] = servers.map((s) => s.conn) as [
    Promise<Socket>,
    Promise<Socket>,
    Promise<Socket>,
    Promise<Socket>,
  ];
  // setpriv: QEMU gets SIGKILL the moment the launcher dies, however it dies.
  const qemu: ChildProcess = spawn(
    'setpriv',
    ['--pdeathsig', 'KILL', '--', ...qemuArgv({ ...plan.qemu, sockets })],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    },
  );
  let qemuStderr = '';
  qemu.stderr?.on('data', (d: Buffer) => {
    if (qemuStderr.length < 4096) qemuStderr += d.toString();
  });
  const qemuExited = new Promise<void>((resolve) => {
    qemu.once('exit', () => resolve());
    qemu.once('error', (e) => {
      qemuStderr += e.message;
      resolve();
    });
  });
  const cleanup = () => {
    if (qemu.exitCode === null && qemu.signalCode === null) qemu.kill('SIGKILL');
    for (const s of servers) s.server.close();
    rmSync(dir, { recursive: true, force: true });
  };
  const writeTraceEnd = (end: GuestTraceEnd | undefined) => {
    if (!plan.qemu.traceFile || !end) return;
    try {
      writeFileSync(traceEndFile(plan.qemu.traceFile), `${JSON.stringify(end)}\n`, { mode: 0o600 });
    } catch {
      // the tracer then says the trace's end is unknown
    }
  };
  // Set once the guest has the command: a signal then asks it to stop and drain first.
  let stopGuest: (() => Promise<void>) | null = null;
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.once(sig, () => {
      const code = 128 + (constants.signals[sig] ?? 15);
      const drain = stopGuest ? stopGuest() : Promise.resolve();
      const deadline = new Promise<void>((r) => setTimeout(r, plan.drainMs));
      Promise.race([drain, deadline]).finally(() => {
        cleanup();
        process.exit(code);
      });
    });
  }
  // The harness killed with SIGKILL cannot kill the group; like bwrap's --die-with-parent, the
  // launcher notices it was orphaned and takes QEMU down.
  const parent = process.ppid;
  const orphanWatch = setInterval(() => {
    if (process.ppid !== parent) {
      cleanup();
      process.exit(LAUNCH_FAILED);
    }
  }, 500);
  orphanWatch.unref();
  const failed = (why: string): number => {
    cleanup();
    process.stderr.write(
      `agentguard: microvm: ${why}${qemuStderr ? `; qemu: ${qemuStderr.trim()}` : ''}; console log ${plan.qemu.consoleFile}:\n${tail(plan.qemu.consoleFile)}\n`,
    );
    return LAUNCH_FAILED;
  };

  out.then((s) => s.pipe(process.stdout, { end: false }));
  err.then((s) => s.pipe(process.stderr, { end: false }));
  net.then((s) => {
    const mux = new Mux(s, s, (_id, name) => {
      if (!plan.proxyDir || !/^[\w.-]+\.sock$/.test(name)) return null;
      return createConnection({ path: join(plan.proxyDir, name), allowHalfOpen: true });
    });
    s.on('close', () => mux.closeAll());
  });

  // Boot: the guest's first line on the control port.
  const ctl = await Promise.race([control, qemuExited.then(() => null)]);
  if (!ctl) return failed('QEMU exited before the guest connected');
  const lines = lineQueue(ctl);
  let timer: NodeJS.Timeout | undefined;
  const booted = await Promise.race([
    lines.next(),
    qemuExited.then(() => 'exited' as const),
    new Promise<'timeout'>((r) => {
      timer = setTimeout(() => r('timeout'), plan.bootTimeoutMs);
    }),
  ]);
  clearTimeout(timer);
  if (booted === 'timeout') return failed(`the guest did not boot within ${plan.bootTimeoutMs / 1000} s`);
  if (booted === 'exited' || booted === null) return failed('the guest stopped while booting');
  const bootMs = Date.now() - t0;
  // The guest's own uptime when its runner spoke: kernel, init and the runner's Node start.
  let guestUptimeMs: number | null = null;
  try {
    guestUptimeMs = Math.round((JSON.parse(booted) as GuestHello).uptime_s * 1000);
  } catch {
    guestUptimeMs = null;
  }
  const cmd: GuestCommand = { ...plan.command, now_ms: Date.now() };
  ctl.write(`${JSON.stringify(cmd)}\n`);
  const endedLine = Promise.race([lines.next(), qemuExited.then(() => null)]);
  stopGuest = async () => {
    const stop: GuestStop = { stop: true };
    ctl.write(`${JSON.stringify(stop)}\n`);
    const line = await endedLine;
    try {
      writeTraceEnd(line ? (JSON.parse(line) as GuestExit).trace : undefined);
    } catch {
      // an unreadable result: the trace's end stays unknown
    }
  };

  const ended = await endedLine;
  const runEnd = Date.now();
  if (ended === null)
    return failed('the guest stopped before the command finished (guest crash or out of memory)');
  let result: GuestExit;
  try {
    result = JSON.parse(ended) as GuestExit;
  } catch {
    return failed(`the guest sent an unreadable result: ${ended.slice(0, 200)}`);
  }
  // The guest powers off; its last output is flushed when QEMU exits.
  const grace = setTimeout(() => qemu.kill('SIGKILL'), 5_000);
  await qemuExited;
  clearTimeout(grace);
  await Promise.all([out, err].map((p) => p.then((s) => drained(s))));
  const teardownMs = Date.now() - runEnd;
  cleanup();
  try {
    appendFileSync(
      plan.timingFile,
      `${JSON.stringify({ boot_ms: bootMs, guest_uptime_at_ready_ms: guestUptimeMs, run_ms: runEnd - t0 - bootMs, teardown_ms: teardownMs })}\n`,
    );
  } catch {
    // timings are a convenience, never a reason to fail the command
  }
  writeTraceEnd(result.trace);
  if ('error' in result) return failed(result.error);
  if (result.signal !== null)
    return 128 + (constants.signals[result.signal as keyof typeof constants.signals] ?? 0);
  return result.exit;
}

/** Resolves when QEMU's end of an output socket has closed (it has then written everything), or after 2 s. */
function drained(socket: Socket): Promise<void> {
  if (socket.closed || socket.readableEnded) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 2_000);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    socket.once('end', done);
    socket.once('close', done);
  });
}

const planFile = process.argv[2];
if (!planFile) {
  process.stderr.write('usage: launch.js PLAN.json\n');
  process.exit(2);
}
main(planFile).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(
      `agentguard: microvm launcher failed: ${e instanceof Error ? e.message : String(e)}\n`,
    );
    process.exit(LAUNCH_FAILED);
  },
);
