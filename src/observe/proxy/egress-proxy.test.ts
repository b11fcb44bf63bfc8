import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import {
  createServer as createHttpServer,
  type Server as HttpServer,
  type IncomingMessage,
  request,
} from 'node:http';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { NetworkRecord } from '../../evidence/types.js';
import { EgressProxy, type EgressProxyOptions } from './egress-proxy.js';
import { MAX_USAGE_BODY } from './wire-usage.js';

const run = promisify(execFile);

type Seen = { url: string; host: string | undefined; body: string; headers: IncomingMessage['headers'] };

let web: HttpServer;
let webPort: number;
let echo: Server;
let echoPort: number;
let echo6: Server | undefined;
let echo6Port = 0;
let closedPort: number;
const seen: Seen[] = [];
const proxies: EgressProxy[] = [];

function listen(server: Server | HttpServer, host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    });
  });
}

function echoServer(): Server {
  return createServer({ allowHalfOpen: true }, (socket) => {
    socket.on('error', () => {});
    socket.pipe(socket);
  });
}

beforeAll(async () => {
  web = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      seen.push({ url: req.url ?? '', host: req.headers.host, body, headers: req.headers });
      if (req.url?.startsWith('/usage/')) {
        // A model answer; '/usage/big' pads it past what the proxy reads for usage.
        const pad = req.url === '/usage/big' ? 'x'.repeat(MAX_USAGE_BODY) : '';
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ pad, usage: { prompt_tokens: 7, completion_tokens: 3 } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`hello from fake host ${req.url}`);
    });
  });
  web.on('upgrade', (req, socket) => {
    seen.push({ url: req.url ?? '', host: req.headers.host, body: '', headers: req.headers });
    socket.write('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n');
    socket.pipe(socket);
  });
  webPort = await listen(web);
  echo = echoServer();
  echoPort = await listen(echo);
  const probe = echoServer();
  try {
    echo6Port = await listen(probe, '::1');
    echo6 = probe;
  } catch {
    echo6 = undefined;
  }
  const closed = createServer();
  closedPort = await listen(closed);
  await new Promise((resolve) => closed.close(resolve));
});

afterAll(async () => {
  for (const server of [web, echo, echo6]) server?.close();
});

afterEach(async () => {
  for (const proxy of proxies.splice(0)) await proxy.stop();
  seen.length = 0;
});

async function startProxy(options: Partial<EgressProxyOptions> = {}) {
  const live: NetworkRecord[] = [];
  const proxy = new EgressProxy({
    allow: ['api.allowed.test', '*.tunnel.test:443', '127.0.0.1', '::1'],
    hosts: {
      'api.allowed.test': `127.0.0.1:${webPort}`,
      'echo.tunnel.test': `127.0.0.1:${echoPort}`,
      'down.tunnel.test': `127.0.0.1:${closedPort}`,
      'evil.test': `127.0.0.1:${webPort}`,
    },
    tcpPort: 0,
    onRecord: (record) => live.push(record),
    ...options,
  });
  proxies.push(proxy);
  const address = await proxy.start();
  return { proxy, port: address.tcpPort ?? 0, live };
}

function proxiedGet(port: number, url: string, body?: string) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: body === undefined ? 'GET' : 'POST', path: url },
      (res) => {
        let text = '';
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Writes bytes, collects everything until the peer closes (or the deadline). */
function rawExchange(port: number, data: string | Buffer, ms = 3000): Promise<Buffer> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(data));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => {});
    const done = () => resolve(Buffer.concat(chunks));
    socket.on('close', done);
    setTimeout(() => {
      socket.destroy();
      done();
    }, ms);
  });
}

function readBytes(socket: Socket, n: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let got = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      got = Buffer.concat([got, chunk]);
      if (got.length >= n) {
        socket.off('data', onData);
        socket.pause();
        if (got.length > n) socket.unshift(got.subarray(n));
        resolve(got.subarray(0, n));
      }
    };
    socket.on('data', onData);
    socket.once('close', () => reject(new Error(`closed after ${got.length} of ${n} bytes`)));
    socket.resume();
  });
}

async function socks5(
  port: number,
  address: Buffer,
  targetPort: number,
): Promise<{ code: number; socket: Socket }> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(Buffer.from([0x05, 0x01, 0x00]));
  expect([...(await readBytes(socket, 2))]).toEqual([0x05, 0x00]);
  const portBytes = Buffer.alloc(2);
  portBytes.writeUInt16BE(targetPort, 0);
  socket.write(Buffer.concat([Buffer.from([0x05, 0x01, 0x00]), address, portBytes]));
  const reply = await readBytes(socket, 10);
  return { code: reply[1] ?? -1, socket };
}

const domain = (name: string) => Buffer.concat([Buffer.from([0x03, name.length]), Buffer.from(name)]);

async function echoThrough(socket: Socket, text: string): Promise<string> {
  socket.write(text);
  return (await readBytes(socket, Buffer.byteLength(text))).toString();
}

describe('EgressProxy over HTTP', () => {
  it('forwards an allowed GET to the hosts-map address, keeping the requested name', async () => {
    const { proxy, port, live } = await startProxy();
    const answer = await proxiedGet(port, 'http://api.allowed.test/hello?x=1');
    expect(answer).toEqual({ status: 200, body: 'hello from fake host /hello?x=1' });
    expect(seen[0]).toMatchObject({ url: '/hello?x=1', host: 'api.allowed.test' });
    expect(live).toEqual([
      expect.objectContaining({
        host: 'api.allowed.test',
        port: 80,
        protocol: 'http',
        decision: 'allowed',
        method: 'GET',
      }),
    ]);
    const [record] = await proxy.stop();
    expect(record).toMatchObject({
      reason: "allow list entry 'api.allowed.test'",
      bytes_up: 0,
      bytes_down: answer.body.length,
    });
    expect(record?.ts).toBeGreaterThanOrEqual(0);
  });

  it("reads the usage a provider's answer states onto its record, and passes a too-large answer on unread", async () => {
    const { proxy, port } = await startProxy();
    const small = await proxiedGet(port, 'http://api.allowed.test/usage/small');
    const big = await proxiedGet(port, 'http://api.allowed.test/usage/big');
    expect(JSON.parse(big.body).usage).toEqual({ prompt_tokens: 7, completion_tokens: 3 });
    const [first, second] = await proxy.stop();
    expect(first?.usage).toEqual({ api: 'openai-chat', input_tokens: 7, output_tokens: 3, cached_tokens: 0 });
    expect(first?.bytes_down).toBe(small.body.length);
    expect(second?.usage).toBeUndefined();
    expect(second?.bytes_down).toBe(big.body.length);
  });

  it('counts request body bytes and drops proxy headers', async () => {
    const { proxy, port } = await startProxy();
    const req = request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: 'http://api.allowed.test/upload',
      headers: { 'proxy-authorization': 'Basic c2VjcmV0', 'x-kept': 'yes' },
    });
    const status = await new Promise<number>((resolve) => {
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.end('0123456789');
    });
    expect(status).toBe(200);
    expect(seen[0]?.body).toBe('0123456789');
    expect(seen[0]?.headers['proxy-authorization']).toBeUndefined();
    expect(seen[0]?.headers['x-kept']).toBe('yes');
    const [record] = await proxy.stop();
    expect(record).toMatchObject({ method: 'POST', bytes_up: 10 });
  });

  it('refuses a host outside the allow list with 403 and a denied record', async () => {
    const { proxy, port, live } = await startProxy();
    const answer = await proxiedGet(port, 'http://evil.test/steal');
    expect(answer.status).toBe(403);
    expect(answer.body).toContain('agentguard');
    expect(answer.body).toContain('evil.test');
    expect(seen).toHaveLength(0);
    expect(live).toEqual([
      expect.objectContaining({ host: 'evil.test', decision: 'denied', reason: 'not in allow list' }),
    ]);
    expect(await proxy.stop()).toHaveLength(1);
  });

  it('judges the name, not where it points: an allowed local IP does not allow a name mapped to it', async () => {
    const { proxy, port } = await startProxy({ allow: ['127.0.0.1'] });
    expect((await proxiedGet(port, `http://127.0.0.1:${webPort}/direct`)).status).toBe(200);
    expect((await proxiedGet(port, 'http://api.allowed.test/')).status).toBe(403);
    expect((await proxy.stop()).map((r) => r.decision)).toEqual(['allowed', 'denied']);
  });

  it('records an upstream failure as allowed with the error, and answers 502', async () => {
    const { proxy, port } = await startProxy({ allow: ['down.tunnel.test'] });
    const answer = await proxiedGet(port, 'http://down.tunnel.test/');
    expect(answer.status).toBe(502);
    expect(await proxy.stop()).toEqual([
      expect.objectContaining({
        host: 'down.tunnel.test',
        decision: 'allowed',
        reason: 'upstream ECONNREFUSED',
      }),
    ]);
  });

  it('refuses an allowed name that resolves to this machine (only the hosts map reaches loopback)', async () => {
    const { proxy, port } = await startProxy({ allow: ['localhost'] });
    const answer = await proxiedGet(port, `http://localhost:${webPort}/`);
    expect(answer.status).toBe(403);
    const [record] = await proxy.stop();
    expect(record).toMatchObject({ host: 'localhost', decision: 'denied' });
    expect(record?.reason).toMatch(/^resolves to internal address 127.0.0.1 /);
    expect(seen).toHaveLength(0);
  });

  it('in observe mode lets everything through but still records why it would have been refused', async () => {
    const { proxy, port } = await startProxy({ mode: 'observe' });
    expect((await proxiedGet(port, 'http://evil.test/')).status).toBe(200);
    expect(await proxy.stop()).toEqual([
      expect.objectContaining({
        host: 'evil.test',
        decision: 'allowed',
        reason: 'observe mode (not in allow list)',
      }),
    ]);
  });

  it('answers malformed input with 400 and a record, and keeps serving', async () => {
    const { proxy, port } = await startProxy({ maxHeaderBytes: 1024 });
    expect((await rawExchange(port, 'garbage\r\n\r\n')).toString()).toMatch(/^HTTP\/1.1 400 /);
    expect((await rawExchange(port, 'GET / HTTP/1.1\r\nHost: x.test\r\n\r\n')).toString()).toMatch(
      /^HTTP\/1.1 400 /,
    );
    const huge = `GET http://api.allowed.test/ HTTP/1.1\r\nX-Big: ${'a'.repeat(4096)}\r\n\r\n`;
    expect((await rawExchange(port, huge)).toString()).toMatch(/^HTTP\/1.1 431 /);
    expect((await rawExchange(port, 'CONNECT nope HTTP/1.1\r\n\r\n')).toString()).toMatch(/^HTTP\/1.1 400 /);
    expect((await proxiedGet(port, 'http://api.allowed.test/')).status).toBe(200);
    const records = await proxy.stop();
    expect(records.map((r) => [r.decision, r.reason])).toEqual([
      ['denied', 'malformed HTTP request (HPE_INVALID_METHOD)'],
      ['denied', 'not a proxy request (origin-form target)'],
      ['denied', 'malformed HTTP request (HPE_HEADER_OVERFLOW)'],
      ['denied', "malformed CONNECT target 'nope'"],
      ['allowed', "allow list entry 'api.allowed.test'"],
    ]);
  });

  it('works for curl as a real client (HTTP proxy and SOCKS5 with remote DNS)', async (ctx) => {
    const curl = await run('curl', ['--version']).catch(() => undefined);
    if (curl === undefined) return ctx.skip('curl is not installed');
    const { proxy, port } = await startProxy();
    const viaHttp = await run('curl', ['-sS', '-x', `http://127.0.0.1:${port}`, 'http://api.allowed.test/c']);
    expect(viaHttp.stdout).toBe('hello from fake host /c');
    const viaSocks = await run('curl', [
      '-sS',
      '-x',
      `socks5h://127.0.0.1:${port}`,
      'http://api.allowed.test/s',
    ]);
    expect(viaSocks.stdout).toBe('hello from fake host /s');
    const denied = await run('curl', [
      '-s',
      '-o',
      '/dev/null',
      '-w',
      '%{http_code}',
      '-x',
      `http://127.0.0.1:${port}`,
      'http://evil.test/',
    ]);
    expect(denied.stdout).toBe('403');
    const records = await proxy.stop();
    expect(records.map((r) => `${r.protocol} ${r.host} ${r.decision}`)).toEqual([
      'http api.allowed.test allowed',
      'socks api.allowed.test allowed',
      'http evil.test denied',
    ]);
    // Each loopback client is named by the kernel's socket table: curl, not the last user.
    for (const r of records)
      expect(r.client).toMatchObject({ pid: expect.any(Number), exe: expect.stringMatching(/curl$/) });
    expect(new Set(records.map((r) => r.client?.pid)).size).toBe(3);
  });
});

describe('EgressProxy Upgrade', () => {
  it('passes an HTTP upgrade (WebSocket-style) end to end and then splices', async () => {
    const { proxy, port } = await startProxy();
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    socket.write(
      'GET http://api.allowed.test/ws HTTP/1.1\r\nHost: api.allowed.test\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n',
    );
    const head = 'HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n';
    expect((await readBytes(socket, head.length)).toString()).toBe(head);
    expect(await echoThrough(socket, 'frame')).toBe('frame');
    expect(seen[0]).toMatchObject({ url: '/ws', host: 'api.allowed.test' });
    socket.destroy();
    expect(await proxy.stop()).toEqual([
      expect.objectContaining({
        host: 'api.allowed.test',
        protocol: 'http',
        method: 'GET',
        decision: 'allowed',
        bytes_up: 5,
      }),
    ]);
  });
});

describe('EgressProxy CONNECT', () => {
  it('tunnels raw bytes to an allowed host and counts them', async () => {
    const { proxy, port } = await startProxy();
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    socket.write('CONNECT echo.tunnel.test:443 HTTP/1.1\r\nHost: echo.tunnel.test:443\r\n\r\n');
    const head = (await readBytes(socket, 39)).toString();
    expect(head).toBe('HTTP/1.1 200 Connection Established\r\n\r\n');
    expect(await echoThrough(socket, 'ping over tunnel')).toBe('ping over tunnel');
    socket.end();
    await new Promise((resolve) => socket.once('close', resolve));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await proxy.stop()).toEqual([
      expect.objectContaining({
        host: 'echo.tunnel.test',
        port: 443,
        protocol: 'connect',
        method: 'CONNECT',
        decision: 'allowed',
        bytes_up: 16,
        bytes_down: 16,
      }),
    ]);
  });

  it('refuses a CONNECT on a port the entry does not allow', async () => {
    const { proxy, port } = await startProxy();
    const answer = await rawExchange(port, 'CONNECT echo.tunnel.test:22 HTTP/1.1\r\n\r\n');
    expect(answer.toString()).toMatch(/^HTTP\/1.1 403 /);
    expect(await proxy.stop()).toEqual([
      expect.objectContaining({
        decision: 'denied',
        reason: "port 22 not allowed (allow list has '*.tunnel.test:443')",
      }),
    ]);
  });
});

describe('EgressProxy SOCKS5', () => {
  it('connects a domain-name request to an allowed host', async () => {
    const { proxy, port } = await startProxy();
    const { code, socket } = await socks5(port, domain('echo.tunnel.test'), 443);
    expect(code).toBe(0x00);
    expect(await echoThrough(socket, 'socks hello')).toBe('socks hello');
    socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await proxy.stop()).toEqual([
      expect.objectContaining({
        host: 'echo.tunnel.test',
        port: 443,
        protocol: 'socks',
        decision: 'allowed',
        bytes_up: 11,
      }),
    ]);
  });

  it('refuses a domain outside the allow list with reply 0x02', async () => {
    const { proxy, port } = await startProxy();
    const { code } = await socks5(port, domain('evil.test'), 80);
    expect(code).toBe(0x02);
    expect(await proxy.stop()).toEqual([
      expect.objectContaining({ host: 'evil.test', protocol: 'socks', decision: 'denied' }),
    ]);
  });

  it('accepts IPv4 and IPv6 address types', async (ctx) => {
    const { proxy, port } = await startProxy();
    const v4 = await socks5(port, Buffer.from([0x01, 127, 0, 0, 1]), echoPort);
    expect(v4.code).toBe(0x00);
    expect(await echoThrough(v4.socket, 'v4')).toBe('v4');
    v4.socket.destroy();
    const refused = await socks5(port, Buffer.from([0x01, 10, 9, 8, 7]), 80);
    expect(refused.code).toBe(0x02);
    if (echo6 === undefined) {
      await proxy.stop();
      return ctx.skip('no IPv6 loopback on this machine');
    }
    const v6 = await socks5(
      port,
      Buffer.concat([Buffer.from([0x04]), Buffer.alloc(15), Buffer.from([1])]),
      echo6Port,
    );
    expect(v6.code).toBe(0x00);
    expect(await echoThrough(v6.socket, 'v6')).toBe('v6');
    v6.socket.destroy();
    const records = await proxy.stop();
    expect(records.map((r) => `${r.host} ${r.decision}`)).toEqual([
      '127.0.0.1 allowed',
      '10.9.8.7 denied',
      '::1 allowed',
    ]);
  });

  it('records malformed handshakes and unsupported commands', async () => {
    const { proxy, port } = await startProxy();
    const noAuth = await rawExchange(port, Buffer.from([0x05, 0x01, 0x02]));
    expect([...noAuth]).toEqual([0x05, 0xff]);
    const udp = await rawExchange(
      port,
      Buffer.concat([Buffer.from([5, 1, 0, 5, 3, 0]), domain('dns.test'), Buffer.from([0, 53])]),
    );
    expect(udp[3]).toBe(0x07);
    const badType = await rawExchange(port, Buffer.from([5, 1, 0, 5, 1, 0, 9, 0, 0]));
    expect(badType[3]).toBe(0x08);
    expect((await proxy.stop()).map((r) => r.reason)).toEqual([
      'SOCKS5 client offered no "no auth" method',
      'SOCKS5 UDP ASSOCIATE not supported',
      'malformed SOCKS5: address type 9',
    ]);
  });
});

describe('EgressProxy lifecycle', () => {
  it('serves the Unix socket, closes open tunnels on stop and removes the socket file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ag-proxy-'));
    const unixPath = join(dir, 'proxy.sock');
    const { proxy } = await startProxy({ unixPath, tcpPort: undefined });
    const answer = await new Promise<string>((resolve, reject) => {
      const req = request({ socketPath: unixPath, path: 'http://api.allowed.test/unix' }, (res) => {
        let text = '';
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve(text));
      });
      req.on('error', reject);
      req.end();
    });
    expect(answer).toBe('hello from fake host /unix');
    const tunnel = connect(unixPath);
    tunnel.on('error', () => {});
    tunnel.write('CONNECT echo.tunnel.test:443 HTTP/1.1\r\n\r\n');
    await readBytes(tunnel, 39);
    const closed = new Promise((resolve) => tunnel.once('close', resolve));
    const records = await proxy.stop();
    await closed;
    expect(existsSync(unixPath)).toBe(false);
    expect(records.map((r) => r.protocol)).toEqual(['http', 'connect']);
    expect(records[1]).toMatchObject({ bytes_up: 0, bytes_down: 0 });
    await rm(dir, { recursive: true });
  });

  it('closes connections beyond maxConnections unanswered', async () => {
    const { proxy, port } = await startProxy({ maxConnections: 1 });
    const first = connect(port, '127.0.0.1');
    first.on('error', () => {});
    await new Promise((resolve) => first.once('connect', resolve));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = await rawExchange(port, 'GET http://api.allowed.test/ HTTP/1.1\r\n\r\n', 1000);
    expect(second.length).toBe(0);
    expect(proxy.refusedConnections).toBe(1);
    first.destroy();
  });

  it('rejects a bad allow list entry at construction with the entry named', () => {
    expect(() => new EgressProxy({ allow: ['https://x.test'], tcpPort: 0 })).toThrow(/https:\/\/x\.test/);
    expect(() => new EgressProxy({ hosts: { 'a.test': 'nowhere' }, tcpPort: 0 })).toThrow(/a\.test/);
  });
});
