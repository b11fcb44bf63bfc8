import { spawn } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hostPidOf } from './host-pid.js';
import {
  findSocketInode,
  findSocketOwner,
  holdsSocketOnPort,
  identifyClient,
  inodeInTable,
  processStart,
} from './socket-owner.js';

const linux = process.platform === 'linux';

let server: Server;
let serverPort: number;
const accepted: Socket[] = [];

beforeEach(async () => {
  server = createServer((socket) => accepted.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  serverPort = typeof address === 'object' && address !== null ? address.port : 0;
});

afterEach(async () => {
  for (const socket of accepted.splice(0)) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
});

function nextAccepted(): Promise<Socket> {
  return new Promise((resolve) => server.once('connection', resolve));
}

describe('inodeInTable', () => {
  const table = [
    '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
    '   0: 0100007F:0C38 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1111 1 0 100 0 0 10 0',
    '   1: 0100007F:0C38 0100007F:B26E 01 00000000:00000000 00:00000000 00000000     0        0 2222 1 0 20 4 30 10 -1',
    '   2: 0100007F:B26E 0100007F:0C38 01 00000000:00000000 00:00000000 00000000     0        0 3333 1 0 20 4 30 10 -1',
    '   3: 0100007F:B270 0100007F:0C38 06 00000000:00000000 03:00001770 00000000     0        0 0 3 0',
  ].join('\n');

  it('finds the client side of a loopback connection by its local and remote ports', () => {
    // 0x0C38 = 3128 (the bridge), 0xB26E = 45678 (the client's ephemeral port).
    expect(inodeInTable(table, 45678, 3128)).toBe(3333);
    expect(inodeInTable(table, 3128, 45678)).toBe(2222);
    expect(inodeInTable(table, 3128)).toBe(1111);
  });

  it('never matches a socket without an owner (TIME_WAIT has inode 0) or a port not there', () => {
    expect(inodeInTable(table, 0xb270, 3128)).toBeUndefined();
    expect(inodeInTable(table, 1, 3128)).toBeUndefined();
    expect(inodeInTable('', 1)).toBeUndefined();
  });
});

describe.skipIf(!linux)('the owner of a real local socket, from /proc', () => {
  it('finds this process holding the client end of a TCP connection', async () => {
    const serving = nextAccepted();
    const { connect } = await import('node:net');
    const client = connect(serverPort, '127.0.0.1');
    await new Promise((resolve) => client.once('connect', resolve));
    const peer = await serving;
    expect(peer.remotePort).toBe(client.localPort);
    const inode = findSocketInode('tcp', peer.remotePort ?? 0, serverPort);
    expect(inode).toBeGreaterThan(0);
    expect(
      readlinkSync(`/proc/self/fd/${(client as unknown as { _handle: { fd: number } })._handle.fd}`),
    ).toBe(`socket:[${inode}]`);
    // The caller is skipped by default (the bridge is never its own client).
    expect(findSocketOwner(inode ?? 0, '/proc', -1)).toBe(process.pid);
    expect(findSocketOwner(inode ?? 0)).toBeUndefined();
    client.destroy();
  });

  it('names another process that connected, with its exe and start time, and maps it to a host pid', async () => {
    const serving = nextAccepted();
    const child = spawn(
      process.execPath,
      ['-e', `require('net').connect(${serverPort}, '127.0.0.1'); setTimeout(() => {}, 10000)`],
      { stdio: 'ignore' },
    );
    try {
      const peer = await serving;
      const identity = identifyClient('tcp', peer.remotePort ?? 0, serverPort);
      expect(identity).toEqual({
        pid: child.pid,
        port: peer.remotePort,
        start: processStart(child.pid ?? 0),
        exe: readlinkSync(`/proc/${child.pid}/exe`),
      });
      // Checked from outside through /proc/PID/net: the child holds that port, not the server's.
      expect(holdsSocketOnPort(child.pid ?? 0, peer.remotePort ?? 0)).toBe(true);
      expect(holdsSocketOnPort(child.pid ?? 0, serverPort)).toBe(false);
      // Here the "sandbox" namespace is the host's own, so the host pid is the pid itself.
      const namespace = readlinkSync('/proc/self/ns/pid');
      expect(hostPidOf(namespace, child.pid ?? 0, processStart(child.pid ?? 0))).toBe(child.pid);
      // A pid reused by another process (other start time) is not taken for it.
      expect(
        await hostPidOf(namespace, child.pid ?? 0, (processStart(child.pid ?? 0) ?? 0) + 1),
      ).toBeUndefined();
      expect(hostPidOf('pid:[1]', child.pid ?? 0, undefined)).toBeUndefined();
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('says so, naming no one, when the client is already gone', async () => {
    const child = spawn(
      process.execPath,
      [
        '-e',
        `const s = require('net').connect(${serverPort}, '127.0.0.1', () => { console.log(s.localPort); process.exit(0); })`,
      ],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    await new Promise((resolve) => child.once('exit', resolve));
    const port = Number(out.trim());
    expect(port).toBeGreaterThan(0);
    const identity = identifyClient('tcp', port, serverPort);
    expect(identity).toEqual({ pid: null, port, reason: expect.stringMatching(/any more$/) });
  });

  it('says so when the client port is not known at all', () => {
    expect(identifyClient('tcp', 0, serverPort)).toEqual({
      pid: null,
      port: 0,
      reason: 'the client had closed the connection before it was accepted',
    });
  });

  it('finds the sender of a UDP datagram by its source port', async () => {
    const { createSocket } = await import('node:dgram');
    const receiver = createSocket('udp4');
    await new Promise<void>((resolve) => receiver.bind(0, '127.0.0.1', resolve));
    const child = spawn(
      process.execPath,
      [
        '-e',
        `require('dgram').createSocket('udp4').send('q', ${receiver.address().port}, '127.0.0.1'); setTimeout(() => {}, 10000)`,
      ],
      { stdio: 'ignore' },
    );
    try {
      const remote = await new Promise<{ port: number }>((resolve) =>
        receiver.once('message', (_message, info) => resolve(info)),
      );
      const identity = identifyClient('udp', remote.port);
      expect(identity.pid).toBe(child.pid);
    } finally {
      child.kill('SIGKILL');
      receiver.close();
    }
  });
});
