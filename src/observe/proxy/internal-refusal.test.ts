import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { NetworkRecord } from '../../evidence/types.js';
import { EgressProxy, type EgressProxyOptions } from './egress-proxy.js';

/*
 * A name the allow list lets through (here every name, `*`) whose address is internal is refused by
 * the address the proxy would connect to, on every way out: HTTP, CONNECT, SOCKS5, an upgrade, and
 * the second leg of a redirect from an allowed host. The internal service is a real server on
 * 127.0.0.1 that counts what reaches it.
 */

const run = promisify(execFile);
let inside: Server;
let insidePort = 0;
let insideHits = 0;
let outside: Server;
let outsidePort = 0;
const proxies: EgressProxy[] = [];

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    });
  });
}

beforeAll(async () => {
  inside = createServer((req, res) => {
    insideHits += 1;
    res.end(`internal secret at ${req.url}`);
  });
  inside.on('upgrade', (_req, socket) => {
    insideHits += 1;
    socket.end('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n');
  });
  insidePort = await listen(inside);
  // The allowed public host: it redirects wherever `?to=` says.
  outside = createServer((req, res) => {
    const to = new URL(req.url ?? '/', 'http://x').searchParams.get('to') ?? '/';
    res.writeHead(302, { location: to });
    res.end();
  });
  outsidePort = await listen(outside);
});

afterAll(() => {
  inside.close();
  outside.close();
});

afterEach(async () => {
  for (const proxy of proxies.splice(0)) await proxy.stop();
  insideHits = 0;
});

async function startProxy(options: Partial<EgressProxyOptions> = {}) {
  const proxy = new EgressProxy({
    allow: ['*'],
    hosts: { 'public.test': `127.0.0.1:${outsidePort}` },
    tcpPort: 0,
    ...options,
  });
  proxies.push(proxy);
  const address = await proxy.start();
  return { proxy, port: address.tcpPort ?? 0 };
}

function rawExchange(port: number, data: string | Buffer, ms = 3000): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(data));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => {});
    const done = () => resolve(Buffer.concat(chunks).toString('latin1'));
    socket.on('close', done);
    setTimeout(() => {
      socket.destroy();
      done();
    }, ms);
  });
}

async function curl(...args: string[]): Promise<string> {
  const out = await run('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', ...args], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  }).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
  return out.stdout;
}

const refusedInternal = (r: NetworkRecord | undefined) => {
  expect(r).toMatchObject({ decision: 'denied' });
  expect(r?.reason ?? '').toMatch(/internal address/);
};

describe('EgressProxy refuses internal addresses at connect time', () => {
  it('refuses an allowed name that resolves to loopback, over HTTP, CONNECT, an upgrade and SOCKS5', async () => {
    const { proxy, port } = await startProxy();
    const http = await rawExchange(
      port,
      `GET http://localhost:${insidePort}/a HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`,
    );
    expect(http).toMatch(/^HTTP\/1.1 403 /);
    expect(await rawExchange(port, `CONNECT localhost:${insidePort} HTTP/1.1\r\n\r\n`)).toMatch(
      /^HTTP\/1.1 403 /,
    );
    const upgrade = await rawExchange(
      port,
      `GET http://localhost:${insidePort}/ws HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n`,
    );
    expect(upgrade).toMatch(/^HTTP\/1.1 403 /);
    const name = Buffer.from('localhost');
    const portBytes = Buffer.alloc(2);
    portBytes.writeUInt16BE(insidePort, 0);
    const socks = Buffer.from(
      await rawExchange(
        port,
        Buffer.concat([
          Buffer.from([0x05, 0x01, 0x00, 0x05, 0x01, 0x00, 0x03, name.length]),
          name,
          portBytes,
        ]),
        1500,
      ),
      'latin1',
    );
    expect(socks[3]).toBe(0x02); // connection not allowed by ruleset
    const records = await proxy.stop();
    expect(records.map((r) => r.protocol)).toEqual(['http', 'connect', 'http', 'socks']);
    for (const r of records) {
      refusedInternal(r);
      expect(r.reason).toMatch(/^resolves to internal address (127\.0\.0\.1|::1) /);
    }
    expect(insideHits).toBe(0);
  });

  it('refuses every other spelling of an internal address, numeric names resolved by the system included', async () => {
    const { proxy, port } = await startProxy();
    const targets = [
      `2130706433:${insidePort}`,
      `0x7f000001:${insidePort}`,
      `127.1:${insidePort}`,
      `0177.0.0.1:${insidePort}`,
      `[::ffff:127.0.0.1]:${insidePort}`,
      `[::ffff:7f00:1]:${insidePort}`,
      `[::1]:${insidePort}`,
      '169.254.169.254:80',
      '[::ffff:169.254.169.254]:80',
      '10.255.255.1:80',
      '0.0.0.0:80',
    ];
    for (const target of targets)
      expect(await rawExchange(port, `CONNECT ${target} HTTP/1.1\r\n\r\n`), target).toMatch(
        /^HTTP\/1.1 403 /,
      );
    const records = await proxy.stop();
    expect(records).toHaveLength(targets.length);
    for (const r of records) refusedInternal(r);
    expect(insideHits).toBe(0);
  });

  it('refuses the second leg of a redirect from an allowed host to an internal one (a real client following it)', async (ctx) => {
    if ((await run('curl', ['--version']).catch(() => undefined)) === undefined)
      return ctx.skip('curl is not installed');
    const { proxy, port } = await startProxy();
    const via = ['-x', `http://127.0.0.1:${port}`, '-L'];
    const toLocal = encodeURIComponent(`http://localhost:${insidePort}/secret`);
    expect(await curl(...via, `http://public.test/go?to=${toLocal}`)).toBe('403');
    const toMetadata = encodeURIComponent('http://169.254.169.254/latest/meta-data/');
    expect(await curl(...via, `http://public.test/go?to=${toMetadata}`)).toBe('403');
    const records = await proxy.stop();
    expect(records.map((r) => `${r.host} ${r.decision}`)).toEqual([
      'public.test allowed',
      'localhost denied',
      'public.test allowed',
      '169.254.169.254 denied',
    ]);
    refusedInternal(records[1]);
    refusedInternal(records[3]);
    expect(insideHits).toBe(0);
  });

  it("lets through what the operator's host policy lists: a range, or the name", async () => {
    for (const internalAllowed of [['127.0.0.0/8', '::1'], [`localhost:${insidePort}`]]) {
      const { proxy, port } = await startProxy({ internalAllowed });
      const answer = await rawExchange(
        port,
        `GET http://localhost:${insidePort}/mirror HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`,
      );
      expect(answer).toMatch(/^HTTP\/1.1 200 /);
      expect(answer).toContain('internal secret at /mirror');
      const other = await rawExchange(port, 'CONNECT 169.254.169.254:80 HTTP/1.1\r\n\r\n');
      expect(other).toMatch(/^HTTP\/1.1 403 /);
      expect((await proxy.stop()).map((r) => r.decision)).toEqual(['allowed', 'denied']);
    }
    expect(insideHits).toBe(2);
  });
});
