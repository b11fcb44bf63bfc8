import { describe, expect, it } from 'vitest';
import { buildDnsError, buildDnsResponse, parseDnsQuery, RCODE, typeName } from './dns-message.js';

function query(name: string, type = 1, id = 0x1234, flags = 0x0100): Buffer {
  const labels = name
    .split('.')
    .map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label, 'latin1')]));
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(flags, 2);
  header.writeUInt16BE(1, 4);
  const tail = Buffer.alloc(4);
  tail.writeUInt16BE(type, 0);
  tail.writeUInt16BE(1, 2);
  return Buffer.concat([header, ...labels, Buffer.from([0]), tail]);
}

describe('parseDnsQuery', () => {
  it('reads id, flags and the question', () => {
    const parsed = parseDnsQuery(query('Secret.Evil.example', 28));
    expect(parsed).toEqual({
      ok: true,
      query: {
        id: 0x1234,
        opcode: 0,
        recursionDesired: true,
        question: { name: 'Secret.Evil.example', type: 28, class: 1 },
        questionEnd: 12 + 21 + 4,
      },
    });
  });

  it('escapes bytes that are not printable so the name stays one readable token', () => {
    const parsed = parseDnsQuery(query('a\u0001b.c d.te\\st'));
    expect(parsed.ok && parsed.query.question.name).toBe('a\\001b.c\\032d.te\\092st');
  });

  it('refuses truncated, compressed, oversized and response messages with a reason', () => {
    expect(parseDnsQuery(Buffer.alloc(5))).toMatchObject({ ok: false, respond: false });
    const response = query('a.test', 1, 7, 0x8000);
    expect(parseDnsQuery(response)).toMatchObject({
      ok: false,
      reason: 'a response, not a query',
      respond: false,
    });
    const truncated = query('abc.test').subarray(0, 15);
    expect(parseDnsQuery(truncated)).toMatchObject({ ok: false, id: 0x1234, respond: true });
    const pointer = Buffer.concat([query('a.test').subarray(0, 12), Buffer.from([0xc0, 0x0c, 0, 1, 0, 1])]);
    expect(parseDnsQuery(pointer)).toMatchObject({
      ok: false,
      reason: 'compressed or oversized label in question',
    });
    const long = query(Array.from({ length: 5 }, () => 'x'.repeat(60)).join('.'));
    expect(parseDnsQuery(long)).toMatchObject({ ok: false, reason: 'name longer than 255 bytes' });
    const two = query('a.test');
    two.writeUInt16BE(2, 4);
    expect(parseDnsQuery(two)).toMatchObject({ ok: false, reason: '2 questions', respond: true });
  });
});

describe('buildDnsResponse', () => {
  it('echoes the question and appends answers that point at it', () => {
    const raw = query('api.test');
    const parsed = parseDnsQuery(raw);
    if (!parsed.ok) throw new Error(parsed.reason);
    const reply = buildDnsResponse(raw, parsed.query, RCODE.noError, [
      { type: 1, ttl: 60, data: Buffer.from([127, 0, 0, 1]) },
    ]);
    expect(reply.readUInt16BE(0)).toBe(0x1234);
    expect(reply.readUInt16BE(2)).toBe(0x8580);
    expect(reply.readUInt16BE(6)).toBe(1);
    expect(reply.subarray(12, parsed.query.questionEnd)).toEqual(raw.subarray(12));
    expect([...reply.subarray(-16)]).toEqual([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 127, 0, 0, 1]);
    const nx = buildDnsResponse(raw, parsed.query, RCODE.nxDomain);
    expect(nx.readUInt16BE(2) & 0x0f).toBe(3);
    expect(nx.readUInt16BE(6)).toBe(0);
  });

  it('builds header-only errors and names types', () => {
    expect([...buildDnsError(9, RCODE.formErr)]).toEqual([0, 9, 0x80, 0x81, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(typeName(65)).toBe('HTTPS');
    expect(typeName(99)).toBe('TYPE99');
  });
});
