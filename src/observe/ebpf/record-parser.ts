import {
  KEY_CHUNK,
  KEY_TID,
  REC_CALL,
  REC_EXIT,
  REC_FORK,
  REC_NET,
  REC_PART,
  REC_READY,
  REC_TICK,
} from './record-format.js';
import { carriesPathHead } from './syscall-table.js';

export type PartRecord = { type: 'part'; tid: number; t: number; slot: number; chunk: number; bytes: Buffer };
export type CallRecord = {
  type: 'call';
  tid: number;
  t: number;
  pid: number;
  ppid: number;
  code: number;
  ret: number;
  flags: number;
  walk1: number;
  walk2: number;
  /** Ids of the directories walked for the two paths (0: none). */
  dir1: number;
  dir2: number;
  /** Empty for a path-taking call, whose record carries `head` instead. */
  comm: string;
  /** The first chunk of the first path, for path-taking calls (see record-format.ts). */
  head?: Buffer;
  /** The inode and device (kernel dev_t) of the file the kernel resolved (collector only; 0: none). */
  ino: number;
  dev: number;
  parts: Parts;
};
export type NetRecord = {
  type: 'net';
  tid: number;
  t: number;
  pid: number;
  ppid: number;
  code: number;
  ret: number;
  family: number;
  /** Network byte order, as the kernel stores it. */
  port: number;
  /** The address as little-endian 32-bit words (IPv4 uses the first). */
  words: [number, number, number, number];
  comm: string;
  parts: Parts;
};
export type ForkRecord = {
  type: 'fork';
  t: number;
  parent: number;
  child: number;
  call: number;
  /** clone's flags or clone3's clone_args.flags (0 for fork and vfork). */
  cloneFlags: number;
  comm: string;
};
export type ExitRecord = { type: 'exit'; t: number; pid: number; status: number; comm: string };

export type BpfRecord =
  | { type: 'ready'; t: number }
  | { type: 'tick'; t: number }
  | PartRecord
  | CallRecord
  | NetRecord
  | ForkRecord
  | ExitRecord;

export type ParsedLine =
  | { kind: 'record'; record: BpfRecord }
  | { kind: 'lost'; count: number }
  /** Valid output that carries no event (probe counts, map dumps, blank lines). */
  | { kind: 'ignored' }
  | { kind: 'corrupt'; reason: string };

/**
 * Parses one line of `bpftrace -f json` output. The line must be decoded as latin1 so that every
 * byte stays one character: bpftrace 0.17 writes some bytes raw and escapes bytes >= 0x80 as a
 * sign-extended `\uffffffXX`, and only the byte view can undo both.
 */
export function parseLine(line: string): ParsedLine {
  if (line.trim() === '') return { kind: 'ignored' };
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return { kind: 'corrupt', reason: 'not JSON' };
  }
  if (!isObject(message) || typeof message.type !== 'string') return { kind: 'corrupt', reason: 'no type' };
  if (message.type === 'lost_events') {
    const count = isObject(message.data) ? message.data.events : undefined;
    return typeof count === 'number'
      ? { kind: 'lost', count }
      : { kind: 'corrupt', reason: 'lost_events without a count' };
  }
  if (message.type !== 'value') return { kind: 'ignored' };
  const record = toRecord(message.data);
  return record ? { kind: 'record', record } : { kind: 'corrupt', reason: 'unexpected record shape' };
}

const VALUE_PREFIX = '{"type": "value", "data": [';

/** The record type of a line without parsing it (null if it is not a plain record line). */
export function quickRecordType(line: string): number | null {
  if (!line.startsWith(VALUE_PREFIX)) return null;
  const digit = line.charCodeAt(VALUE_PREFIX.length) - 48;
  return digit >= 0 && digit <= 9 && line[VALUE_PREFIX.length + 1] === ',' ? digit : null;
}

/** Strings a probe sent before its CALL or NET record, keyed `chunk * KEY_CHUNK + slot`. */
export type Parts = ReadonlyMap<number, Buffer>;
/** Until the assembler attaches the real ones. */
export const NO_PARTS: Parts = new Map();

// Hot path (one call per line): plain indexing, no closures or intermediate arrays.
function toRecord(data: unknown): BpfRecord | null {
  if (!Array.isArray(data) || data.length < 2) return null;
  const last = data.length - 1;
  switch (data[0]) {
    case REC_READY:
    case REC_TICK:
      if (data.length !== 2 || !numbers(data, 1, 1)) return null;
      return { type: data[0] === REC_READY ? 'ready' : 'tick', t: data[1] };
    case REC_PART: {
      if (data.length !== 4 || !numbers(data, 1, 2) || typeof data[3] !== 'string' || data[1] < 0)
        return null;
      const key: number = data[1];
      const within = key % KEY_TID;
      return {
        type: 'part',
        tid: Math.floor(key / KEY_TID),
        t: data[2],
        slot: within % KEY_CHUNK,
        chunk: Math.floor(within / KEY_CHUNK),
        bytes: bpftraceStringBytes(data[3]),
      };
    }
    case REC_CALL: {
      // 13 from bpftrace, 15 (with ino and dev) from the collector.
      if (
        (data.length !== 13 && data.length !== 15) ||
        !numbers(data, 1, last - 1) ||
        typeof data[last] !== 'string'
      )
        return null;
      const identity = data.length === 15;
      const head = carriesPathHead(data[5]);
      return {
        type: 'call',
        tid: data[1],
        t: data[2],
        pid: data[3],
        ppid: data[4],
        code: data[5],
        ret: data[6],
        flags: data[7],
        walk1: data[8],
        walk2: data[9],
        dir1: data[10],
        dir2: data[11],
        ino: identity ? data[12] : 0,
        dev: identity ? data[13] : 0,
        comm: head ? '' : decodeText(data[last]),
        ...(head ? { head: bpftraceStringBytes(data[last]) } : {}),
        parts: NO_PARTS,
      };
    }
    case REC_NET:
      if (data.length !== 14 || !numbers(data, 1, 12) || typeof data[last] !== 'string') return null;
      return {
        type: 'net',
        tid: data[1],
        t: data[2],
        pid: data[3],
        ppid: data[4],
        code: data[5],
        ret: data[6],
        family: data[7],
        port: data[8],
        words: [data[9], data[10], data[11], data[12]],
        comm: decodeText(data[last]),
        parts: NO_PARTS,
      };
    case REC_FORK:
      if (data.length !== 7 || !numbers(data, 1, 5) || typeof data[last] !== 'string') return null;
      return {
        type: 'fork',
        t: data[1],
        parent: data[2],
        child: data[3],
        call: data[4],
        cloneFlags: data[5],
        comm: decodeText(data[last]),
      };
    case REC_EXIT:
      if (data.length !== 5 || !numbers(data, 1, 3) || typeof data[last] !== 'string') return null;
      return { type: 'exit', t: data[1], pid: data[2], status: data[3], comm: decodeText(data[last]) };
    default:
      return null;
  }
}

function numbers(data: unknown[], from: number, to: number): boolean {
  for (let index = from; index <= to; index++) {
    const value = data[index];
    if (typeof value !== 'number' || !Number.isFinite(value)) return false;
  }
  return true;
}

/** The bytes behind a string bpftrace printed (see parseLine for the two encodings it uses). */
export function bpftraceStringBytes(text: string): Buffer {
  const bytes: number[] = [];
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0xffff) {
      const hex = text.slice(index + 1, index + 5);
      if (/^ff[0-9a-f]{2}$/i.test(hex)) {
        bytes.push(Number.parseInt(hex.slice(2), 16));
        index += 4;
        continue;
      }
    }
    if (code <= 0xff) bytes.push(code);
    else for (const byte of Buffer.from(String.fromCharCode(code), 'utf8')) bytes.push(byte);
  }
  return Buffer.from(bytes);
}

const utf8 = new TextDecoder('utf-8', { fatal: false });

/** Bytes as text: UTF-8, with U+FFFD for bytes that are not (paths are bytes, SysEvent fields are strings). */
export function bytesToText(bytes: Uint8Array): string {
  return utf8.decode(bytes);
}

function decodeText(text: string): string {
  return bytesToText(bpftraceStringBytes(text));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
