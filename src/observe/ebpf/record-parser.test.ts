import { describe, expect, it } from 'vitest';
import { KEY_CHUNK, KEY_TID } from './record-format.js';
import { bpftraceStringBytes, bytesToText, parseLine } from './record-parser.js';
import { callCode, TRACED_CALLS } from './syscall-table.js';

/** A PART line as bpftrace 0.17 prints it: `text` is the JSON string body, already escaped. */
const partLine = (tid: number, slot: number, text: string, chunk = 0) =>
  `{"type": "value", "data": [1,${tid * KEY_TID + chunk * KEY_CHUNK + slot},1000,"${text}"]}`;

function partText(line: string): string {
  const parsed = parseLine(line);
  if (parsed.kind !== 'record' || parsed.record.type !== 'part') throw new Error(`not a part: ${line}`);
  return bytesToText(parsed.record.bytes);
}

describe('parseLine', () => {
  it('decodes the key of a PART record into thread, slot and chunk', () => {
    const parsed = parseLine(partLine(4242, 41, 'sub', 3));
    expect(parsed).toMatchObject({
      kind: 'record',
      record: { type: 'part', tid: 4242, slot: 41, chunk: 3, t: 1000 },
    });
  });

  it('keeps quotes, backslashes, spaces, tabs and newlines in paths', () => {
    expect(partText(partLine(1, 1, String.raw`/tmp/a \"quoted\" name\twith\\slash\nand newline`))).toBe(
      '/tmp/a "quoted" name\twith\\slash\nand newline',
    );
  });

  it('undoes the sign-extended \\uffffffXX escapes bpftrace 0.17 writes for bytes >= 0x80', () => {
    // "café" as bpftrace prints it, then a byte that is not UTF-8 and a control character.
    expect(partText(partLine(1, 1, String.raw`/tmp/caf\uffffffc3\uffffffa9`))).toBe('/tmp/café');
    const bytes = bpftraceStringBytes(JSON.parse(String.raw`"bad\uffffffff\u0001z"`));
    expect([...bytes]).toEqual([0x62, 0x61, 0x64, 0xff, 0x01, 0x7a]);
    expect(bytesToText(bytes)).toBe('bad\ufffd\u0001z');
  });

  it('reads raw UTF-8 bytes too, when the line was decoded byte for byte', () => {
    const line = Buffer.from(`{"type": "value", "data": [1,65537,5,"/tmp/\u00e9t\u00e9"]}`, 'utf8').toString(
      'latin1',
    );
    expect(partText(line)).toBe('/tmp/été');
  });

  it('does not mistake literal text after an escape for another escape', () => {
    // A name whose bytes are 0xc3, then the characters "ffc3".
    expect([...bpftraceStringBytes(JSON.parse(String.raw`"\uffffffc3ffc3"`))]).toEqual([
      0xc3, 0x66, 0x66, 0x63, 0x33,
    ]);
  });

  it('parses CALL, NET, FORK and EXIT records', () => {
    expect(
      parseLine('{"type": "value", "data": [2,7880,1773,7880,7764,18,-2,577,2,-1,4242,0,"out.txt"]}'),
    ).toEqual({
      kind: 'record',
      record: {
        type: 'call',
        tid: 7880,
        t: 1773,
        pid: 7880,
        ppid: 7764,
        code: 18,
        ret: -2,
        flags: 577,
        walk1: 2,
        walk2: -1,
        dir1: 4242,
        dir2: 0,
        // bpftrace's CALL has no identity of the resolved file.
        ino: 0,
        dev: 0,
        // Code 18 (openat) takes a path: the last field is its first chunk, not the process name.
        comm: '',
        head: Buffer.from('out.txt'),
        parts: new Map(),
      },
    });
    // The collector's CALL adds the inode and device of the file the kernel opened.
    expect(
      parseLine('{"type": "value", "data": [2,7880,1773,7880,7764,18,3,0,-1,5,0,77,1234,8388609,"/etc/x"]}'),
    ).toMatchObject({ record: { type: 'call', ret: 3, walk2: 5, dir2: 77, ino: 1234, dev: 8388609 } });
    expect(
      parseLine('{"type": "value", "data": [2,7880,1773,7880,7764,18,3,0,-1,5,0,77,1234,"/etc/x"]}'),
    ).toMatchObject({ kind: 'corrupt' });
    // A call without a path (setuid) still names its process.
    const setuid = callCode(TRACED_CALLS.findIndex((c) => c.name === 'setuid'));
    expect(parseLine(`{"type": "value", "data": [2,7,1,7,6,${setuid},0,0,-1,-1,0,0,"sudo"]}`)).toMatchObject({
      record: { type: 'call', comm: 'sudo' },
    });
    expect(
      parseLine('{"type": "value", "data": [3,9,10,9,8,3,-111,2,256,16777343,0,0,0,"node"]}'),
    ).toMatchObject({
      record: { type: 'net', family: 2, port: 256, words: [16777343, 0, 0, 0], ret: -111 },
    });
    // clone(CLONE_NEWUSER|SIGCHLD): the clone flags ride before the process name.
    expect(parseLine('{"type": "value", "data": [4,10,9,11,1,268435473,"sh"]}')).toMatchObject({
      record: { type: 'fork', parent: 9, child: 11, call: 1, cloneFlags: 0x10000011, comm: 'sh' },
    });
    // The FORK of a collector older than protocol 2 (no flags) is not misread.
    expect(parseLine('{"type": "value", "data": [4,10,9,11,4,"sh"]}')).toMatchObject({ kind: 'corrupt' });
    expect(parseLine('{"type": "value", "data": [5,10,9,768,"sh"]}')).toMatchObject({
      record: { type: 'exit', pid: 9, status: 768 },
    });
    expect(parseLine('{"type": "value", "data": [0,12345]}')).toEqual({
      kind: 'record',
      record: { type: 'ready', t: 12345 },
    });
  });

  it('counts lost events and ignores bpftrace bookkeeping', () => {
    expect(parseLine('{"type": "lost_events", "data": {"events": 104}}')).toEqual({
      kind: 'lost',
      count: 104,
    });
    expect(parseLine('{"type": "attached_probes", "data": {"probes": 99}}')).toEqual({ kind: 'ignored' });
    expect(parseLine('{"type": "map", "data": {"@sc": {}}}')).toEqual({ kind: 'ignored' });
    expect(parseLine('')).toEqual({ kind: 'ignored' });
  });

  it('reports a corrupt line instead of throwing', () => {
    expect(parseLine('{"type": "value", "data": [1,65537,5,"cut off')).toMatchObject({ kind: 'corrupt' });
    expect(parseLine('Attaching 99 probes...')).toMatchObject({ kind: 'corrupt' });
    expect(parseLine('{"type": "value", "data": [2,1,2,3]}')).toMatchObject({ kind: 'corrupt' });
    expect(parseLine('{"type": "value", "data": [9,1]}')).toMatchObject({ kind: 'corrupt' });
    expect(parseLine('{"type": "value", "data": [1,65537,5,42]}')).toMatchObject({ kind: 'corrupt' });
    expect(parseLine('[1,2]')).toMatchObject({ kind: 'corrupt' });
  });
});
