/** Just enough of RFC 1035 to read one question and answer it. */

export const RCODE = { noError: 0, formErr: 1, servFail: 2, nxDomain: 3, notImp: 4, refused: 5 } as const;

const TYPE_NAMES: Record<number, string> = {
  1: 'A',
  2: 'NS',
  5: 'CNAME',
  6: 'SOA',
  12: 'PTR',
  15: 'MX',
  16: 'TXT',
  28: 'AAAA',
  33: 'SRV',
  64: 'SVCB',
  65: 'HTTPS',
  255: 'ANY',
};

export function typeName(type: number): string {
  return TYPE_NAMES[type] ?? `TYPE${type}`;
}

export type DnsQuestion = {
  /** Presentation form without the trailing dot; bytes outside printable ASCII as `\DDD`. */
  name: string;
  type: number;
  class: number;
};

export type DnsQuery = {
  id: number;
  opcode: number;
  recursionDesired: boolean;
  question: DnsQuestion;
  /** Offset just past the question, so the response can copy it verbatim. */
  questionEnd: number;
};

export type DnsParse =
  | { ok: true; query: DnsQuery }
  | { ok: false; reason: string; id?: number; respond: boolean };

function labelText(bytes: Buffer): string {
  let text = '';
  for (const byte of bytes) {
    const printable = byte > 0x20 && byte < 0x7f && byte !== 0x2e && byte !== 0x5c;
    text += printable ? String.fromCharCode(byte) : `\\${byte.toString().padStart(3, '0')}`;
  }
  return text;
}

function readName(message: Buffer, start: number): { name: string; end: number } | string {
  const labels: string[] = [];
  let offset = start;
  let wire = 0;
  for (;;) {
    const length = message[offset];
    if (length === undefined) return 'name runs past the end';
    if (length === 0) break;
    // Compression pointers have no business in the first question of a query.
    if (length > 63) return 'compressed or oversized label in question';
    wire += length + 1;
    if (wire > 254) return 'name longer than 255 bytes';
    if (offset + 1 + length > message.length) return 'label runs past the end';
    labels.push(labelText(message.subarray(offset + 1, offset + 1 + length)));
    offset += 1 + length;
  }
  return { name: labels.join('.'), end: offset + 1 };
}

/** Reads a query with exactly one question. Responses and garbage are refused with a reason. */
export function parseDnsQuery(message: Buffer): DnsParse {
  if (message.length < 12) return { ok: false, reason: 'shorter than a DNS header', respond: false };
  const id = message.readUInt16BE(0);
  const flags = message.readUInt16BE(2);
  if ((flags & 0x8000) !== 0) return { ok: false, reason: 'a response, not a query', id, respond: false };
  const opcode = (flags >> 11) & 0x0f;
  const questions = message.readUInt16BE(4);
  if (questions !== 1) return { ok: false, reason: `${questions} questions`, id, respond: true };
  const name = readName(message, 12);
  if (typeof name === 'string') return { ok: false, reason: name, id, respond: true };
  if (name.end + 4 > message.length)
    return { ok: false, reason: 'question runs past the end', id, respond: true };
  const question = {
    name: name.name,
    type: message.readUInt16BE(name.end),
    class: message.readUInt16BE(name.end + 2),
  };
  return {
    ok: true,
    query: { id, opcode, recursionDesired: (flags & 0x0100) !== 0, question, questionEnd: name.end + 4 },
  };
}

export type DnsAnswer = { type: number; ttl: number; data: Buffer };

/** A response echoing the query's question; answers all name the question (pointer to offset 12). */
export function buildDnsResponse(
  query: Buffer,
  parsed: DnsQuery,
  rcode: number,
  answers: DnsAnswer[] = [],
): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(parsed.id, 0);
  const flags =
    0x8000 |
    (parsed.opcode << 11) |
    0x0400 |
    (parsed.recursionDesired ? 0x0100 : 0) |
    0x0080 |
    (rcode & 0x0f);
  header.writeUInt16BE(flags, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(answers.length, 6);
  const records = answers.map((answer) => {
    const record = Buffer.alloc(12 + answer.data.length);
    record.writeUInt16BE(0xc00c, 0);
    record.writeUInt16BE(answer.type, 2);
    record.writeUInt16BE(1, 4);
    record.writeUInt32BE(answer.ttl, 6);
    record.writeUInt16BE(answer.data.length, 10);
    answer.data.copy(record, 12);
    return record;
  });
  return Buffer.concat([header, query.subarray(12, parsed.questionEnd), ...records]);
}

/** A header-only error response for a query that could not be parsed but has an id. */
export function buildDnsError(id: number, rcode: number): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(0x8000 | 0x0080 | (rcode & 0x0f), 2);
  return header;
}
