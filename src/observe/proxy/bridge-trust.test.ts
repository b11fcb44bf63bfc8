import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readlinkSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clientLine, helloLine, keyFileFor, parsePreambleLine } from './bridge-protocol.js';
import { DnsResponder } from './dns-responder.js';
import { EgressProxy } from './egress-proxy.js';
import { processStart } from './socket-owner.js';

let dir: string;
let socketPath: string;
let proxy: EgressProxy;
const namespace = readlinkSync('/proc/self/ns/pid');
// A real connection of this process, standing for the client the bridge found.
let server: Server;
let held: Socket;
let me: { pid: number; port: number; start: number; exe: string };

beforeEach(async () => {
  server = createServer(() => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  held = connect(typeof address === 'object' && address !== null ? address.port : 0, '127.0.0.1');
  await new Promise((resolve) => held.once('connect', resolve));
  me = {
    pid: process.pid,
    port: held.localPort ?? 0,
    start: processStart(process.pid) ?? 0,
    exe: process.execPath,
  };
  dir = await mkdtemp(join(tmpdir(), 'agt-'));
  socketPath = join(dir, 'proxy.sock');
  proxy = new EgressProxy({ allow: ['ok.test'], unixPath: socketPath });
  await proxy.start();
});

afterEach(async () => {
  held.destroy();
  server.close();
  await proxy.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Writes `text` on a fresh connection and returns everything the other side answered. */
function exchange(path: string, text: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ path });
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
    socket.write(text);
  });
}

async function hello(path: string, key: string): Promise<string | undefined> {
  const answer = await exchange(path, helloLine(key, namespace));
  return /^OK ([0-9a-f]+)\n$/.exec(answer)?.[1];
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return typeof address === 'object' && address !== null ? address.port : 0;
}

const denied = 'GET http://evil.test/x HTTP/1.1\r\nHost: evil.test\r\nConnection: close\r\n\r\n';

describe('the bridge introduction and its client headers', () => {
  it('trades the key file for a secret once, deletes the key, and believes headers with that secret', async () => {
    const keyFile = keyFileFor(socketPath);
    const key = readFileSync(keyFile, 'utf8');
    const secret = await hello(socketPath, key);
    expect(secret).toMatch(/^[0-9a-f]{48}$/);
    expect(existsSync(keyFile)).toBe(false);
    const answer = await exchange(socketPath, clientLine(secret ?? '', me) + denied);
    expect(answer).toMatch(/^HTTP\/1.1 403 /);
    const [record] = await proxy.stop();
    expect(record).toMatchObject({ host: 'evil.test', decision: 'denied' });
    // Here the "sandbox" is the host's own namespace, so the host pid is the pid itself.
    expect(record?.client).toEqual({
      pid: process.pid,
      ns_pid: process.pid,
      port: me.port,
      exe: process.execPath,
    });
  });

  it('names no one for a connection without a header, or with a forged secret, or a vanished client', async () => {
    const secret = await hello(socketPath, readFileSync(keyFileFor(socketPath), 'utf8'));
    await exchange(socketPath, denied);
    await exchange(socketPath, clientLine('0'.repeat(48), me) + denied);
    await exchange(socketPath, clientLine(secret ?? '', { pid: null, port: 5, reason: 'gone' }) + denied);
    // A pid whose start time does not match is another process now (the one named has exited):
    // the request goes to the sandbox process that holds the socket, as the kernel says.
    await exchange(socketPath, clientLine(secret ?? '', { ...me, start: me.start + 1 }) + denied);
    // ... and to no one when no process holds a socket on that port any more.
    const free = await freePort();
    await exchange(socketPath, clientLine(secret ?? '', { ...me, start: me.start + 1, port: free }) + denied);
    // Even with the secret (read from the bridge's memory), a header cannot name a process that
    // holds no socket on the port it claims.
    await exchange(socketPath, clientLine(secret ?? '', { ...me, port: free }) + denied);
    const clients = (await proxy.stop()).map((r) => r.client);
    expect(clients).toEqual([
      { pid: null, reason: 'the connection did not come through the sandbox bridge' },
      { pid: null, reason: 'client header without the bridge secret (not from the bridge)' },
      { pid: null, reason: 'gone', port: 5 },
      { pid: process.pid, port: me.port, exe: process.execPath },
      {
        pid: null,
        reason: `sandbox process ${process.pid} exited before its host pid was read`,
        ns_pid: process.pid,
        port: free,
        exe: process.execPath,
      },
      {
        pid: null,
        reason: `the bridge header names process ${process.pid}, which holds no socket on port ${free}`,
        ns_pid: process.pid,
        port: free,
        exe: process.execPath,
      },
    ]);
  });

  it('names the process of the sandbox that does hold the socket when the one named let it go', async () => {
    const secret = await hello(socketPath, readFileSync(keyFileFor(socketPath), 'utf8'));
    // Another process of the same PID namespace holds a connection; the header names this process
    // (as when the bridge saw a child that inherited the socket and has exited since).
    const child = spawn(
      process.execPath,
      [
        '-e',
        "const n=require('net');const s=n.createServer(()=>{}).listen(0,'127.0.0.1',()=>{const c=n.connect(s.address().port,'127.0.0.1',()=>console.log(c.localPort))})",
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const port = Number(
        await new Promise<string>((resolve) => child.stdout.once('data', (d) => resolve(String(d)))),
      );
      await exchange(socketPath, clientLine(secret ?? '', { ...me, port }) + denied);
      const [record] = await proxy.stop();
      expect(record?.client).toEqual({ pid: child.pid, port, exe: process.execPath });
    } finally {
      child.kill();
    }
  });

  it("says the client is inside a VM when the bridge's pid namespace has no process on this host", async () => {
    // A microVM's bridge names its guest's namespace: no host process is in it.
    const key = readFileSync(keyFileFor(socketPath), 'utf8');
    const answer = await exchange(socketPath, helloLine(key, 'pid:[4026599999]'));
    const secret = /^OK ([0-9a-f]+)\n$/.exec(answer)?.[1];
    await exchange(socketPath, clientLine(secret ?? '', me) + denied);
    const [record] = await proxy.stop();
    expect(record?.client).toEqual({
      pid: null,
      reason: `the client runs on another kernel (inside a VM): its process ${process.pid} has no host pid to check`,
      ns_pid: process.pid,
      port: me.port,
      exe: process.execPath,
    });
  });

  it('trusts no header at all once the key has been used twice', async () => {
    const key = readFileSync(keyFileFor(socketPath), 'utf8');
    const first = await hello(socketPath, key);
    expect(first).toBeDefined();
    expect(await exchange(socketPath, helloLine(key, namespace))).toBe('REFUSED\n');
    await exchange(socketPath, clientLine(first ?? '', me) + denied);
    const [record] = await proxy.stop();
    expect(record?.client).toEqual({
      pid: null,
      reason: 'the bridge key was used twice (another process had read it); client headers are not trusted',
    });
  });

  it('keeps serving every protocol after a header: SOCKS5 too', async () => {
    const secret = await hello(socketPath, readFileSync(keyFileFor(socketPath), 'utf8'));
    const socks = Buffer.concat([
      Buffer.from(clientLine(secret ?? '', me)),
      Buffer.from([0x05, 0x01, 0x00]),
      Buffer.from([0x05, 0x01, 0x00, 0x03, 8, ...Buffer.from('evil.tst'), 0, 80]),
    ]);
    const answer = await exchange(socketPath, socks);
    expect([...Buffer.from(answer, 'latin1').subarray(0, 4)]).toEqual([0x05, 0x00, 0x05, 0x02]);
    const [record] = await proxy.stop();
    expect(record).toMatchObject({ protocol: 'socks', host: 'evil.tst', client: { pid: process.pid } });
  });

  it('names the client of a DNS query relayed over the stream socket', async () => {
    const dnsPath = join(dir, 'dns.sock');
    const dns = new DnsResponder({ unixPath: dnsPath });
    await dns.start();
    try {
      const secret = await hello(dnsPath, readFileSync(keyFileFor(dnsPath), 'utf8'));
      // One A query for x.evil, DNS-over-TCP framed.
      const query = Buffer.from([
        0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0x78, 4, 0x65, 0x76, 0x69, 0x6c, 0, 0, 1, 0, 1,
      ]);
      const frame = Buffer.alloc(2);
      frame.writeUInt16BE(query.length, 0);
      const socket = connect({ path: dnsPath });
      socket.write(Buffer.concat([Buffer.from(clientLine(secret ?? '', me)), frame, query]));
      await new Promise((resolve) => socket.once('data', resolve));
      socket.destroy();
    } finally {
      const [record] = await dns.stop();
      expect(record).toMatchObject({ host: 'x.evil', protocol: 'dns', client: { pid: process.pid } });
    }
  });
});

describe('parsePreambleLine', () => {
  it('refuses anything but the two header forms', () => {
    expect(parsePreambleLine('AGENTGUARD-HELLO/1 k pid:[4026531836]')).toEqual({
      kind: 'hello',
      key: 'k',
      pidNamespace: 'pid:[4026531836]',
    });
    expect(parsePreambleLine('AGENTGUARD-CLIENT/1 s {"pid":-1,"port":1}').kind).toBe('malformed');
    expect(parsePreambleLine('AGENTGUARD-CLIENT/1 s not-json').kind).toBe('malformed');
    expect(parsePreambleLine('AGENTGUARD-OTHER x y').kind).toBe('malformed');
  });
});
