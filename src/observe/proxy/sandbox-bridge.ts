/**
 * Runs INSIDE a network-isolated sandbox, before the agent: listens on the sandbox's own loopback
 * and forwards to Unix sockets bind-mounted from the host (the egress proxy, the DNS responder),
 * then starts the agent and exits as it exits. Each relayed stream starts with a header naming the
 * process that opened it (bridge-protocol.ts), found in /proc right at accept (socket-owner.ts).
 * Node built-ins and its two sibling modules only, so the compiled files run on their own from dist/.
 *
 *   node sandbox-bridge.js --tcp 3128:/run/agentguard/proxy.sock [--tcp PORT:SOCK ...]
 *                          [--dns /run/agentguard/dns.sock] [--dns-port 53] -- <agent argv...>
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createSocket, type RemoteInfo, type Socket as UdpSocket } from 'node:dgram';
import { readFileSync, readlinkSync, realpathSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { constants, networkInterfaces } from 'node:os';
import { pathToFileURL } from 'node:url';
import {
  BRIDGE_SETUP_FAILED,
  clientLine,
  helloLine,
  keyFileFor,
  SETUP_TOKEN_VARIABLE,
} from './bridge-protocol.js';
import { type ClientIdentity, identifyClient } from './socket-owner.js';
import { connectPath } from './unix-path.js';

export type BridgeArgs = {
  tcp: { port: number; socket: string }[];
  dns?: { socket: string; port: number };
  argv: string[];
};

export { BRIDGE_SETUP_FAILED };

const USAGE =
  'usage: sandbox-bridge --tcp PORT:SOCKET [--tcp ...] [--dns SOCKET] [--dns-port N] -- COMMAND [ARGS...]';

function parsePort(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d{1,5}$/.test(text)) return undefined;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : undefined;
}

export function parseBridgeArgs(args: readonly string[]): BridgeArgs | string {
  const parsed: BridgeArgs = { tcp: [], argv: [] };
  let dnsSocket: string | undefined;
  let dnsPort = 53;
  for (let i = 0; i < args.length; i += 1) {
    const flag = args[i];
    const value = args[i + 1];
    if (flag === '--') {
      parsed.argv = args.slice(i + 1);
      break;
    }
    if (value === undefined) return `${flag} needs a value; ${USAGE}`;
    i += 1;
    if (flag === '--tcp') {
      const at = value.indexOf(':');
      const port = parsePort(value.slice(0, at));
      if (at < 0 || port === undefined || at === value.length - 1)
        return `--tcp wants PORT:SOCKET, got '${value}'`;
      parsed.tcp.push({ port, socket: value.slice(at + 1) });
    } else if (flag === '--dns') dnsSocket = value;
    else if (flag === '--dns-port') {
      const port = parsePort(value);
      if (port === undefined) return `--dns-port wants a port, got '${value}'`;
      dnsPort = port;
    } else return `unknown option ${flag}; ${USAGE}`;
  }
  if (parsed.argv.length === 0) return `no command after --; ${USAGE}`;
  if (dnsSocket !== undefined) parsed.dns = { socket: dnsSocket, port: dnsPort };
  return parsed;
}

/** The session secret per harness socket; a socket without one gets no headers. */
type Sessions = Map<string, string>;

// One loopback connection ↔ one Unix-socket connection, half-closes passed through.
function forwardStream(client: Socket, socketPath: string, header: string | undefined): void {
  const upstream = createConnection({ path: connectPath(socketPath), allowHalfOpen: true });
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
  client.on('close', () => upstream.destroy());
  upstream.on('close', () => client.end());
  // Written before any piped byte: the harness reads it off the front of the stream.
  if (header !== undefined) upstream.write(header);
  client.pipe(upstream);
  upstream.pipe(client);
}

function headerFor(
  sessions: Sessions,
  socketPath: string,
  identify: () => ClientIdentity,
): string | undefined {
  const secret = sessions.get(socketPath);
  return secret === undefined ? undefined : clientLine(secret, identify());
}

function listenTcp(port: number, socketPath: string, sessions: Sessions): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer({ allowHalfOpen: true }, (client) => {
      // At accept, before anything else: a client that exits soon after must still be found.
      const header = headerFor(sessions, socketPath, () =>
        identifyClient('tcp', client.remotePort ?? 0, port),
      );
      forwardStream(client, socketPath, header);
    });
    server.once('error', reject);
    server.listen({ port, host: '127.0.0.1' }, () => resolve(server));
  });
}

/**
 * Trades the key the harness left beside its socket for a session secret, before the agent exists
 * (the harness deletes the key then). No key file: that harness does not attribute, no headers.
 */
async function introduce(socketPath: string): Promise<{ secret: string | undefined } | 'no key'> {
  let key: string;
  try {
    key = readFileSync(keyFileFor(socketPath), 'utf8').trim();
  } catch {
    return 'no key';
  }
  const pidNamespace = readlinkSync('/proc/self/ns/pid');
  return new Promise((resolve) => {
    const upstream = createConnection({ path: connectPath(socketPath) });
    let answer = '';
    const settle = (secret: string | undefined) => {
      upstream.destroy();
      resolve({ secret });
    };
    upstream.setTimeout(5_000, () => settle(undefined));
    upstream.on('error', () => settle(undefined));
    upstream.on('data', (chunk: Buffer) => {
      answer += chunk.toString('utf8');
      const line = answer.split('\n')[0] ?? '';
      if (answer.includes('\n')) settle(/^OK [0-9a-f]+$/.test(line) ? line.slice(3) : undefined);
    });
    upstream.on('end', () => settle(undefined));
    upstream.write(helloLine(key, pidNamespace));
  });
}

// A UDP query goes over its own short Unix connection with DNS-over-TCP framing; DNS is rare enough.
function relayDatagram(
  udp: UdpSocket,
  message: Buffer,
  remote: RemoteInfo,
  socketPath: string,
  header: string | undefined,
): void {
  const upstream = createConnection({ path: connectPath(socketPath) });
  if (header !== undefined) upstream.write(header);
  const frame = Buffer.alloc(2);
  frame.writeUInt16BE(message.length, 0);
  let pending = Buffer.alloc(0);
  upstream.setTimeout(5_000, () => upstream.destroy());
  upstream.on('error', () => upstream.destroy());
  upstream.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    if (pending.length < 2 || pending.length < 2 + pending.readUInt16BE(0)) return;
    udp.send(pending.subarray(2, 2 + pending.readUInt16BE(0)), remote.port, remote.address);
    upstream.end();
  });
  upstream.write(Buffer.concat([frame, message]));
}

function bindUdp(port: number, socketPath: string, sessions: Sessions): Promise<UdpSocket> {
  return new Promise((resolve, reject) => {
    const udp = createSocket('udp4');
    udp.once('error', reject);
    udp.on('message', (message, remote) => {
      const header = headerFor(sessions, socketPath, () => identifyClient('udp', remote.port));
      relayDatagram(udp, message, remote, socketPath, header);
    });
    udp.bind(port, '127.0.0.1', () => {
      udp.removeAllListeners('error');
      udp.on('error', () => {});
      resolve(udp);
    });
  });
}

const UNPRIVILEGED_PORT_START = '/proc/sys/net/ipv4/ip_unprivileged_port_start';

/**
 * Port 53 is privileged. Without CAP_NET_BIND_SERVICE, lower the threshold — but only when this is
 * plainly a private network namespace (loopback is the only interface), never on the host.
 */
function lowerPrivilegedPorts(port: number): boolean {
  const interfaces = Object.keys(networkInterfaces());
  if (interfaces.length !== 1 || interfaces[0] !== 'lo') return false;
  try {
    if (Number(readFileSync(UNPRIVILEGED_PORT_START, 'utf8')) <= port) return false;
    writeFileSync(UNPRIVILEGED_PORT_START, String(port));
    return true;
  } catch {
    return false;
  }
}

async function withPrivilegedRetry<T>(port: number, bind: () => Promise<T>): Promise<T> {
  try {
    return await bind();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EACCES' || !lowerPrivilegedPorts(port)) throw err;
    return bind();
  }
}

/**
 * The harness's token for this bridge (`SETUP_TOKEN_VARIABLE`), taken out of the environment at
 * once so no child inherits it. A setup failure quotes it: a failure line carrying the token came
 * from the bridge, not from an agent printing the same words (the agent is never started then, and
 * as another uid it cannot read the bridge's environment).
 */
let setupToken: string | undefined;

function fail(message: string): never {
  const proof = setupToken === undefined ? '' : ` [setup ${setupToken}]`;
  process.stderr.write(`agentguard-bridge: ${message}${proof}\n`);
  process.exit(BRIDGE_SETUP_FAILED);
}

const FORWARDED_SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT'];

function dieBy(signal: NodeJS.Signals): void {
  // Die of the same signal so that the harness sees what the agent saw.
  for (const name of FORWARDED_SIGNALS) process.removeAllListeners(name);
  process.kill(process.pid, signal);
  setTimeout(() => process.exit(128 + (constants.signals[signal] ?? 15)), 1_000).unref();
}

async function main(): Promise<void> {
  setupToken = process.env[SETUP_TOKEN_VARIABLE];
  delete process.env[SETUP_TOKEN_VARIABLE];
  const args = parseBridgeArgs(process.argv.slice(2));
  if (typeof args === 'string') fail(args);
  // Handlers go in first: a signal that lands between spawn() and their registration would kill
  // the bridge alone and orphan the agent.
  let child: ChildProcess | undefined;
  let pending: NodeJS.Signals | undefined;
  for (const signal of FORWARDED_SIGNALS) {
    process.on(signal, () => {
      if (child === undefined) pending = signal;
      else child.kill(signal);
    });
  }
  // A listener of its own for SIGUSR1: Node would otherwise open its inspector on 127.0.0.1:9229,
  // and whoever could send the signal could run code in the harness's bridge.
  process.on('SIGUSR1', () => {});
  const servers: Server[] = [];
  let udp: UdpSocket | undefined;
  const sessions: Sessions = new Map();
  try {
    const sockets = new Set([...args.tcp.map((t) => t.socket), ...(args.dns ? [args.dns.socket] : [])]);
    for (const socket of sockets) {
      const introduced = await introduce(socket);
      if (introduced === 'no key') continue;
      if (introduced.secret !== undefined) sessions.set(socket, introduced.secret);
      else
        process.stderr.write(
          `agentguard-bridge: ${socket} refused the bridge; connections will not name their process\n`,
        );
    }
    for (const { port, socket } of args.tcp) servers.push(await listenTcp(port, socket, sessions));
    const dns = args.dns;
    if (dns !== undefined) {
      // DNS over TCP has the same framing as our Unix socket, so TCP 53 is a plain stream forward.
      servers.push(await withPrivilegedRetry(dns.port, () => listenTcp(dns.port, dns.socket, sessions)));
      udp = await bindUdp(dns.port, dns.socket, sessions);
    }
  } catch (err) {
    fail(`cannot listen inside the sandbox: ${(err as Error).message}`);
  }
  if (pending !== undefined) return dieBy(pending);
  const [command, ...rest] = args.argv;
  if (command === undefined) fail('no command');
  setupToken = undefined;
  child = spawn(command, rest, { stdio: 'inherit' });
  child.on('error', (err) => {
    process.stderr.write(`agentguard-bridge: cannot start ${command}: ${err.message}\n`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => {
    for (const server of servers) server.close();
    udp?.close();
    if (signal === null) process.exit(code ?? 1);
    dieBy(signal);
  });
}

function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(script)).href;
  } catch {
    return false;
  }
}

if (isEntryPoint()) void main();
