import { Resolver } from 'node:dns/promises';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { NetworkRecord } from '../../evidence/types.js';
import { DnsResponder } from './dns-responder.js';

const responders: DnsResponder[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const responder of responders.splice(0)) await responder.stop();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function startResponder(unix = false) {
  const live: NetworkRecord[] = [];
  let unixPath: string | undefined;
  if (unix) {
    const dir = await mkdtemp(join(tmpdir(), 'ag-dns-'));
    dirs.push(dir);
    unixPath = join(dir, 'dns.sock');
  }
  const responder = new DnsResponder({
    hosts: { 'api.allowed.test': '127.0.0.1:8080' },
    allow: ['*.registry.test:443'],
    udpPort: 0,
    unixPath,
    onRecord: (record) => live.push(record),
  });
  responders.push(responder);
  const address = await responder.start();
  const resolver = new Resolver({ timeout: 2000, tries: 1 });
  resolver.setServers([`127.0.0.1:${address.udpPort}`]);
  return { responder, resolver, live, unixPath };
}

describe('DnsResponder over UDP (a real c-ares client)', () => {
  it('answers hosts-map and allow-listed names with 127.0.0.1', async () => {
    const { responder, resolver } = await startResponder();
    expect(await resolver.resolve4('api.allowed.test')).toEqual(['127.0.0.1']);
    expect(await resolver.resolve4('npm.registry.test')).toEqual(['127.0.0.1']);
    await expect(resolver.resolve6('api.allowed.test')).rejects.toMatchObject({ code: 'ENODATA' });
    const records = await responder.stop();
    expect(records.map((r) => [r.host, r.method, r.decision, r.reason])).toEqual([
      ['api.allowed.test', 'A', 'allowed', 'answered 127.0.0.1 (hosts map)'],
      ['npm.registry.test', 'A', 'allowed', "answered 127.0.0.1 (allow list entry '*.registry.test:443')"],
      ['api.allowed.test', 'AAAA', 'allowed', 'answered no AAAA records (hosts map)'],
    ]);
    expect(records[0]).toMatchObject({ port: 53, protocol: 'dns' });
    expect(records[0]?.bytes_down).toBeGreaterThan(records[0]?.bytes_up ?? 0);
  });

  it('answers NXDOMAIN for everything else and records the name (a tunnelling attempt is visible)', async () => {
    const { responder, resolver, live } = await startResponder();
    await expect(resolver.resolve4('c2vjcmv0.evil.example')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(resolver.resolveTxt('exfil.evil.example')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(resolver.resolve4('registry.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    expect(live.map((r) => `${r.method} ${r.host} ${r.decision}`)).toEqual([
      'A c2vjcmv0.evil.example denied',
      'TXT exfil.evil.example denied',
      'A registry.test denied',
    ]);
    expect(live[0]?.reason).toBe('NXDOMAIN (not in hosts map or allow list)');
    expect(await responder.stop()).toHaveLength(3);
  });
});

describe('DnsResponder.answer', () => {
  it('keeps the name as asked (c-ares lower-cases, but a raw client may send base64) and matches ignoring case', async () => {
    const { responder } = await startResponder();
    const labels = ['c2VjcmV0', 'API', 'Allowed', 'TEST'];
    const raw = (names: string[]) =>
      Buffer.concat([
        Buffer.from([0, 7, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0]),
        ...names.map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label)])),
        Buffer.from([0, 0, 1, 0, 1]),
      ]);
    expect((responder.answer(raw(labels)) ?? Buffer.alloc(4)).readUInt16BE(2) & 0x0f).toBe(3);
    expect((responder.answer(raw(labels.slice(1))) ?? Buffer.alloc(4)).readUInt16BE(2) & 0x0f).toBe(0);
    expect((await responder.stop()).map((r) => `${r.host} ${r.decision}`)).toEqual([
      'c2VjcmV0.API.Allowed.TEST denied',
      'API.Allowed.TEST allowed',
    ]);
  });
});

describe('DnsResponder over its Unix socket', () => {
  it('speaks DNS-over-TCP framing, several messages per connection, and records malformed ones', async () => {
    const { responder, unixPath } = await startResponder(true);
    if (unixPath === undefined) throw new Error('no unix path');
    const question = (id: number, name: string) => {
      const header = Buffer.from([id >> 8, id & 0xff, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
      const labels = name
        .split('.')
        .map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label)]));
      return Buffer.concat([header, ...labels, Buffer.from([0, 0, 1, 0, 1])]);
    };
    const frame = (message: Buffer) =>
      Buffer.concat([Buffer.from([message.length >> 8, message.length & 0xff]), message]);
    const garbage = Buffer.from([0, 5, 1, 0, 0, 9, 0, 0, 0, 0, 0, 0]);
    const socket = connect(unixPath);
    const replies = await new Promise<Buffer>((resolve) => {
      let got = Buffer.alloc(0);
      socket.on('data', (chunk) => {
        got = Buffer.concat([got, chunk]);
        // three replies: two answers and one FORMERR header
        if (got.length >= 2 && countFrames(got) === 3) resolve(got);
      });
      socket.write(
        Buffer.concat([
          frame(question(1, 'api.allowed.test')),
          frame(question(2, 'x.evil.test')),
          frame(garbage),
        ]),
      );
    });
    socket.destroy();
    const rcodes = frames(replies).map((reply) => [reply.readUInt16BE(0), reply.readUInt16BE(2) & 0x0f]);
    expect(rcodes).toEqual([
      [1, 0],
      [2, 3],
      [5, 1],
    ]);
    const records = await responder.stop();
    expect(records.map((r) => r.reason)).toEqual([
      'answered 127.0.0.1 (hosts map)',
      'NXDOMAIN (not in hosts map or allow list)',
      'malformed DNS query (9 questions)',
    ]);
    expect(existsSync(unixPath)).toBe(false);
  });
});

function frames(data: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let offset = 0;
  while (offset + 2 <= data.length) {
    const length = data.readUInt16BE(offset);
    if (offset + 2 + length > data.length) break;
    out.push(data.subarray(offset + 2, offset + 2 + length));
    offset += 2 + length;
  }
  return out;
}

function countFrames(data: Buffer): number {
  return frames(data).length;
}
