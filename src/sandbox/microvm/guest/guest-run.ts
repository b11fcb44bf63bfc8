/**
 * Runs INSIDE the microVM as PID 1 after init.sh: finds its virtio-serial ports, says it is up,
 * takes the command from the harness, sets the guest clock from the harness's, serves the harness's
 * proxy and DNS sockets in GUEST_NET_DIR (each connection one stream of the net port's mux), runs
 * the command — in a pids-limited cgroup, traced by the compiled collector (or strace, its
 * step-down) when the harness asks, with its output on the stdout/stderr ports — and reports how it
 * ended, with how the trace ended, and powers the VM off. A stop request on the control port ends
 * the command early but still drains the trace. Node built-ins and its
 * sibling modules only: it runs from dist/ on the host root, mounted read-only.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { GuestTraceEnd } from '../../../observe/guest-trace-end.js';
import { Mux } from '../channel-mux.js';
import {
  GUEST_NET_DIR,
  type GuestCommand,
  type GuestExit,
  type GuestStop,
  PORTS,
} from '../guest-protocol.js';
import { type GuestCollector, startGuestCollector } from './guest-collector.js';

const POWEROFF = ['/bin/busybox', '/usr/bin/busybox'];

function portPaths(): Record<string, string> {
  const found: Record<string, string> = {};
  const base = '/sys/class/virtio-ports';
  for (const dev of existsSync(base) ? readdirSync(base) : []) {
    try {
      found[readFileSync(join(base, dev, 'name'), 'utf8').trim()] = `/dev/${dev}`;
    } catch {
      // a port without a name is not one of ours
    }
  }
  return found;
}

function powerOff(): never {
  for (const bb of POWEROFF) if (existsSync(bb)) spawnSync(bb, ['poweroff', '-f']);
  // Without busybox, PID 1 exiting panics the kernel, which (panic=-1, -no-reboot) also ends QEMU.
  process.exit(1);
}

function main(): void {
  const ports = portPaths();
  const controlPath = ports[PORTS.control];
  if (!controlPath) {
    console.error(`agentguard-guest: no ${PORTS.control} port (found: ${Object.keys(ports).join(', ')})`);
    powerOff();
  }
  // A virtio port opens once (a second open is EBUSY): one descriptor for both directions.
  const controlFd = openSync(controlPath, 'r+');
  const control = createWriteStream('', { fd: controlFd, autoClose: false });
  const report = (msg: GuestExit, then?: () => void) => control.write(`${JSON.stringify(msg)}\n`, then);
  control.write(
    `${JSON.stringify({ ready: true, uptime_s: Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]) })}\n`,
  );
  let buffered = '';
  let running: Running | null = null;
  // A stop can come while the tracer is still starting (its probes load for a minute under TCG on
  // a busy host): kept, and carried out as soon as the command exists, so the trace still drains.
  let stopAsked = false;
  const input = createReadStream('', { fd: controlFd, autoClose: false });
  input.on('data', (chunk) => {
    buffered += chunk.toString();
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (running) {
        // After the command, the harness says only one thing: stop early.
        try {
          if ((JSON.parse(line) as Partial<GuestStop>).stop) {
            stopAsked = true;
            running.stop();
          }
        } catch {
          // not a stop request: nothing else is meant for a running command
        }
        continue;
      }
      let cmd: GuestCommand;
      try {
        cmd = JSON.parse(line) as GuestCommand;
      } catch (err) {
        report({ error: `bad command line from the harness: ${String(err)}` }, powerOff);
        return;
      }
      running = { stop: () => undefined };
      run(cmd, ports, report).then(
        (r) => {
          running = r;
          if (stopAsked) r.stop();
        },
        (err: unknown) =>
          report({ error: `the guest could not start the command: ${String(err)}` }, powerOff),
      );
    }
  });
}

type Running = { stop(): void };

function setClock(nowMs: number): void {
  // GNU date takes fractions of a second; the tracer's -ttt timestamps then line up with the harness's.
  spawnSync('date', ['-u', '-s', `@${(nowMs / 1000).toFixed(6)}`], { stdio: 'ignore' });
}

function serveSockets(cmd: GuestCommand, netPath: string | undefined): void {
  if (!cmd.sockets) return;
  // The folder exists even when the harness's sockets are gone (the tests run after the agent's
  // proxy stopped): the inner bwrap binds it either way.
  mkdirSync(GUEST_NET_DIR, { recursive: true, mode: 0o755 });
  if (cmd.resolv !== undefined)
    writeFileSync(join(GUEST_NET_DIR, 'resolv.conf'), cmd.resolv, { mode: 0o444 });
  if (cmd.sockets.length === 0 || !netPath) return;
  const fd = openSync(netPath, 'r+');
  const mux = new Mux(
    createReadStream('', { fd, autoClose: false }),
    createWriteStream('', { fd, autoClose: false }),
  );
  let next = 1;
  for (const socket of cmd.sockets) {
    const keyFile = join(GUEST_NET_DIR, `${socket.name}.key`);
    if (socket.key !== undefined) writeFileSync(keyFile, socket.key, { mode: 0o600 });
    const server = createServer({ allowHalfOpen: true }, (conn) => {
      // The bridge trades the key first, before the agent starts: nothing after it may read it.
      rmSync(keyFile, { force: true });
      mux.attach(next++, conn, socket.name);
    });
    server.listen(join(GUEST_NET_DIR, socket.name));
  }
}

const CGROUP = '/sys/fs/cgroup/agentguard';

/**
 * The command's cgroup: its pids.max stops a fork bomb before it takes the guest, no child cgroups
 * (nothing inside can leave the collector's filter), and its id is what the collector watches.
 * Null when the guest has no cgroup v2 (the command then runs without the limit).
 */
function makeCgroup(pidsMax: number): string | null {
  try {
    writeFileSync('/sys/fs/cgroup/cgroup.subtree_control', '+pids');
    mkdirSync(CGROUP, { recursive: true });
    writeFileSync(join(CGROUP, 'pids.max'), String(pidsMax));
    writeFileSync(join(CGROUP, 'cgroup.max.descendants'), '0');
    return CGROUP;
  } catch {
    return null;
  }
}

function inCgroup(argv: string[], cgroup: string | null): string[] {
  if (!cgroup) return argv;
  return ['/bin/sh', '-c', `echo $$ > ${cgroup}/cgroup.procs && exec "$@"`, 'agentguard-cgroup', ...argv];
}

/** Every process left in the cgroup (a daemon the command left behind, or all of it on a stop). */
function killCgroup(cgroup: string | null): void {
  if (!cgroup) return;
  try {
    writeFileSync(join(cgroup, 'cgroup.kill'), '1');
  } catch {
    // a kernel without cgroup.kill: what is left dies with the VM
  }
}

type Tracing = { argv: string[]; collector: GuestCollector | null; stepDown: string | null };

/** The collector when asked for and it starts, else strace writing to the same port (the reason kept). */
async function startTracing(
  cmd: GuestCommand,
  port: string | undefined,
  cgroup: string | null,
  argv: string[],
): Promise<Tracing> {
  if (!cmd.trace && !cmd.collector) return { argv, collector: null, stepDown: null };
  if (!port) throw new Error(`no ${PORTS.trace} port`);
  let stepDown: string | null = null;
  if (cmd.collector) {
    if (!cgroup) stepDown = 'the guest has no cgroup v2 for the collector to watch';
    else {
      try {
        return { argv, collector: await startGuestCollector(cmd.collector, cgroup, port), stepDown: null };
      } catch (err) {
        stepDown = (err as Error).message;
      }
    }
  }
  if (!cmd.trace) throw new Error(`the collector could not trace the command (${stepDown})`);
  return { argv: [...cmd.trace, '-o', port, '--', ...argv], collector: null, stepDown };
}

async function run(
  cmd: GuestCommand,
  ports: Record<string, string>,
  report: (m: GuestExit, then?: () => void) => void,
): Promise<Running> {
  setClock(cmd.now_ms);
  serveSockets(cmd, ports[PORTS.net]);
  const cgroup = makeCgroup(cmd.pids_max);
  const tracing = await startTracing(cmd, ports[PORTS.trace], cgroup, cmd.argv);
  const argv = inCgroup(tracing.argv, cgroup);
  const out = ports[PORTS.stdout] ? openSync(ports[PORTS.stdout] as string, 'w') : 'ignore';
  const err = ports[PORTS.stderr] ? openSync(ports[PORTS.stderr] as string, 'w') : 'ignore';
  const finishTrace = async (): Promise<GuestTraceEnd | undefined> => {
    if (tracing.collector) return tracing.collector.stop();
    if (tracing.stepDown !== null) return { engine: 'strace', reason: tracing.stepDown };
    return undefined;
  };
  let ended = false;
  const end = (result: GuestExit) => {
    if (ended) return;
    ended = true;
    killCgroup(cgroup);
    finishTrace().then((trace) => report(trace ? { ...result, trace } : result, powerOff));
  };
  const child = spawn(argv[0] as string, argv.slice(1), {
    cwd: cmd.cwd,
    env: cmd.env,
    stdio: ['ignore', out, err],
  });
  child.on('error', (e) => end({ error: `cannot start ${argv[0]}: ${e.message}` }));
  child.on('exit', (code, signal) =>
    end(signal ? { exit: null, signal } : { exit: code ?? 1, signal: null }),
  );
  return {
    // The processes die; the exit above then drains the trace and reports.
    stop: () => killCgroup(cgroup),
  };
}

main();
