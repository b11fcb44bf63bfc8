/**
 * Runs INSIDE the microVM as PID 1 after init.sh: finds its virtio-serial ports, says it is up,
 * takes the command from the harness, sets the guest clock from the harness's, serves the harness's
 * proxy and DNS sockets in GUEST_NET_DIR (each connection one stream of the net port's mux), runs
 * the command — under the tracer when there is one, in a pids-limited cgroup, with its output on
 * the stdout/stderr ports — reports how it ended and powers the VM off. Node built-ins and its
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
import { Mux } from '../channel-mux.js';
import { GUEST_NET_DIR, type GuestCommand, type GuestExit, PORTS } from '../guest-protocol.js';

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
  const input = createReadStream('', { fd: controlFd, autoClose: false });
  input.on('data', (chunk) => {
    buffered += chunk.toString();
    const nl = buffered.indexOf('\n');
    if (nl < 0) return;
    input.pause();
    let cmd: GuestCommand;
    try {
      cmd = JSON.parse(buffered.slice(0, nl)) as GuestCommand;
    } catch (err) {
      report({ error: `bad command line from the harness: ${String(err)}` }, powerOff);
      return;
    }
    try {
      run(cmd, ports, report);
    } catch (err) {
      report({ error: `the guest could not start the command: ${String(err)}` }, powerOff);
    }
  });
}

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

/** The command inside a cgroup whose pids.max stops a fork bomb before it takes the guest. */
function limited(argv: string[], pidsMax: number): string[] {
  const cg = '/sys/fs/cgroup/agentguard';
  try {
    writeFileSync('/sys/fs/cgroup/cgroup.subtree_control', '+pids');
    mkdirSync(cg, { recursive: true });
    writeFileSync(join(cg, 'pids.max'), String(pidsMax));
  } catch {
    return argv;
  }
  return ['/bin/sh', '-c', `echo $$ > ${cg}/cgroup.procs && exec "$@"`, 'agentguard-pids', ...argv];
}

function run(
  cmd: GuestCommand,
  ports: Record<string, string>,
  report: (m: GuestExit, then?: () => void) => void,
): void {
  setClock(cmd.now_ms);
  serveSockets(cmd, ports[PORTS.net]);
  let argv = cmd.argv;
  if (cmd.trace) {
    const tracePort = ports[PORTS.trace];
    if (!tracePort) throw new Error(`no ${PORTS.trace} port`);
    argv = [...cmd.trace, '-o', tracePort, '--', ...argv];
  }
  argv = limited(argv, cmd.pids_max);
  const out = ports[PORTS.stdout] ? openSync(ports[PORTS.stdout] as string, 'w') : 'ignore';
  const err = ports[PORTS.stderr] ? openSync(ports[PORTS.stderr] as string, 'w') : 'ignore';
  const child = spawn(argv[0] as string, argv.slice(1), {
    cwd: cmd.cwd,
    env: cmd.env,
    stdio: ['ignore', out, err],
  });
  child.on('error', (e) => report({ error: `cannot start ${argv[0]}: ${e.message}` }, powerOff));
  child.on('exit', (code, signal) => {
    report(signal ? { exit: null, signal } : { exit: code ?? 1, signal: null }, powerOff);
  });
}

main();
