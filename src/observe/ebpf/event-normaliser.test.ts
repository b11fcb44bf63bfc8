import { describe, expect, it } from 'vitest';
import type { SysEvent } from '../../evidence/types.js';
import { EventAssembler } from './event-assembler.js';
import { EventNormaliser, openAccess } from './event-normaliser.js';
import {
  EXEC_RAN_OTHER,
  MAX_STRING_BYTES,
  SLOT_ARGV,
  SLOT_EXE_NAME,
  SLOT_PATH,
  SLOT_PATH2,
  SLOT_RESOLVED_NAME,
  SLOT_WALK1,
  SLOT_WALK2,
  WALK_ANCESTOR,
  WALK_INCOMPLETE,
} from './record-format.js';
import { type BpfRecord, NO_PARTS } from './record-parser.js';
import {
  CODE_CONNECT,
  CODE_EXECVE,
  CODE_EXECVEAT,
  CODE_IA32_OPEN,
  CODE_IA32_OTHER,
  CODE_IO_URING_OP,
  CODE_IO_URING_OPEN,
  CODE_SENDTO,
  callCode,
  IO_URING_OPS,
  TRACED_CALLS,
  unpackSocketFlags,
} from './syscall-table.js';

const START = 1_000_000_000;
const code = (name: string) => callCode(TRACED_CALLS.findIndex((call) => call.name === name));

const part = (tid: number, t: number, slot: number, text: string | Buffer, chunk = 0): BpfRecord => ({
  type: 'part',
  tid,
  t,
  slot,
  chunk,
  bytes: Buffer.isBuffer(text) ? text : Buffer.from(text),
});

type CallFields = {
  tid?: number;
  pid: number;
  t: number;
  code: number;
  ret?: number;
  flags?: number;
  walk1?: number;
  walk2?: number;
  dir1?: number;
  dir2?: number;
  comm?: string;
  head?: Buffer;
  ino?: number;
  dev?: number;
};
const call = (fields: CallFields): BpfRecord => ({
  type: 'call',
  tid: fields.tid ?? fields.pid,
  ppid: 1,
  ret: 0,
  flags: 0,
  walk1: -1,
  walk2: -1,
  dir1: 0,
  dir2: 0,
  ino: 0,
  dev: 0,
  comm: 'comm',
  parts: NO_PARTS,
  ...fields,
});

/** Parts of a walk, leaf first; '' stands for a mount crossing. */
const walk = (tid: number, t: number, slot: number, steps: string[]) =>
  steps.map((name, index) => part(tid, t, slot + index, name));

function normalise(records: BpfRecord[]): SysEvent[] {
  const assembler = new EventAssembler();
  const normaliser = new EventNormaliser(START);
  const events: SysEvent[] = [];
  for (const record of records) {
    const raw = assembler.push(record);
    const event = raw && normaliser.push(raw);
    if (event) events.push(event);
  }
  return events;
}

/** The pid 100 as the traced root: it exec'd /bin/sh in /ws. */
const rootExec = (t = START): BpfRecord[] => [
  part(100, t, SLOT_PATH, '/bin/sh'),
  part(100, t, SLOT_ARGV, 'sh'),
  ...walk(100, t, SLOT_WALK1, ['ws']),
  call({ pid: 100, t, code: CODE_EXECVE, flags: 1, walk1: 1 }),
];

describe('EventNormaliser', () => {
  it('judges an open by the file its descriptor holds, keeping the path as written and its identity', () => {
    const t = START + 1_000_000;
    const [, open, chmod, exec] = normalise([
      ...rootExec(),
      // cat /proc/self/fd/3/id_rsa: the kernel opened /root/.ssh/id_rsa (kernel dev 8:1).
      part(100, t, SLOT_PATH, '/proc/self/fd/3/id_rsa'),
      part(100, t, SLOT_RESOLVED_NAME, 'id_rsa'),
      ...walk(100, t, SLOT_WALK2, ['.ssh', 'root']),
      call({ pid: 100, t, code: code('openat'), ret: 4, walk2: 2, dir2: 9, ino: 77, dev: 8 * 2 ** 20 + 1 }),
      // chmod through the same descriptor: resolved from what fd 4's open held.
      part(100, t + 1, SLOT_PATH, '/proc/self/fd/4'),
      call({ pid: 100, t: t + 1, code: code('chmod'), flags: 0o755 }),
      // exec /dev/fd/5/run.sh: the collector walked fd 5's directory at entry.
      part(100, t + 2, SLOT_PATH, '/dev/fd/5/run.sh'),
      ...walk(100, t + 2, SLOT_WALK2, ['dl', 'tmp']),
      call({ pid: 100, t: t + 2, code: CODE_EXECVE, walk2: 2 }),
    ]);
    expect(open).toMatchObject({
      path: '/root/.ssh/id_rsa',
      path_as_written: '/proc/self/fd/3/id_rsa',
      ino: 77,
      dev: 0x801,
    });
    expect(open?.truncated).toBeUndefined();
    expect(chmod).toMatchObject({ path: '/root/.ssh/id_rsa', path_as_written: '/proc/self/fd/4' });
    expect(exec).toMatchObject({ kind: 'exec', path: '/tmp/dl/run.sh', path_as_written: '/dev/fd/5/run.sh' });
  });

  it('keeps the written path of a pipe, and marks a resolved path the walk cut as truncated', () => {
    const t = START + 1_000_000;
    const [, pipe, deep] = normalise([
      ...rootExec(),
      part(100, t, SLOT_PATH, '/dev/stdout'),
      call({ pid: 100, t, code: code('openat'), ret: 1, flags: 1, walk2: WALK_INCOMPLETE }),
      part(100, t + 1, SLOT_PATH, '/tmp/l/x'),
      part(100, t + 1, SLOT_RESOLVED_NAME, 'x'),
      ...walk(100, t + 1, SLOT_WALK2, ['d', 'c']),
      call({ pid: 100, t: t + 1, code: code('openat'), ret: 3, walk2: WALK_INCOMPLETE + 2, ino: 5 }),
    ]);
    expect(pipe).toMatchObject({ path: '/dev/stdout' });
    expect(pipe?.path_as_written).toBeUndefined();
    expect(pipe?.truncated).toBeUndefined();
    expect(deep).toMatchObject({ path: '/tmp/l/x', truncated: true });
  });

  it('resolves a relative open against the walked cwd, across a mount crossing', () => {
    const t = START + 5_000_000;
    const [, open] = normalise([
      ...rootExec(),
      part(100, t, SLOT_PATH, 'out.txt'),
      ...walk(100, t, SLOT_WALK1, ['sub', 'ws', '', 'tmp']),
      call({ pid: 100, t, code: code('openat'), ret: 3, flags: 0o1101, walk1: 4 }),
    ]);
    expect(open).toMatchObject({
      kind: 'open',
      syscall: 'openat',
      path: '/tmp/ws/sub/out.txt',
      access: 'create',
      result: 3,
      ts: 5,
      exe: '/bin/sh',
    });
    expect(open?.truncated).toBeUndefined();
  });

  it('takes the first chunk of a path from the CALL record itself, as the script sends it', () => {
    const long = `/ws/${'d'.repeat(MAX_STRING_BYTES)}/f`;
    const events = normalise([
      ...rootExec(),
      // A relative path: its head rides in the CALL, its base directory in the walk.
      ...walk(100, START + 1, SLOT_WALK1, ['ws']),
      call({ pid: 100, t: START + 1, code: code('openat'), walk1: 1, comm: '', head: Buffer.from('a.txt') }),
      // A long one: the head plus a PART for the next chunk.
      part(100, START + 2, SLOT_PATH, long.slice(MAX_STRING_BYTES), 1),
      call({
        pid: 100,
        t: START + 2,
        code: code('openat'),
        comm: '',
        head: Buffer.from(long.slice(0, MAX_STRING_BYTES)),
      }),
      // A null path pointer: an empty head and no walk.
      call({ pid: 100, t: START + 3, code: code('openat'), ret: -14, comm: '', head: Buffer.alloc(0) }),
    ]);
    expect(events.slice(1).map((e) => [e.path, e.exe])).toEqual([
      ['/ws/a.txt', '/bin/sh'],
      [long, '/bin/sh'],
      [undefined, '/bin/sh'],
    ]);
  });

  it('normalises absolute paths and keeps odd bytes', () => {
    const t = START + 1;
    const odd = Buffer.concat([Buffer.from('/tmp//a "b"/./c\nd '), Buffer.from([0xff]), Buffer.from('é')]);
    const [, open] = normalise([
      ...rootExec(),
      part(100, t, SLOT_PATH, odd),
      call({ pid: 100, t, code: code('open') }),
    ]);
    expect(open?.path).toBe('/tmp/a "b"/c\nd \ufffdé');
    expect(open?.access).toBe('read');
  });

  it('joins a long path from its chunks and ignores chunks after a short one', () => {
    const t = START + 1;
    const first = `/${'a'.repeat(MAX_STRING_BYTES - 1)}`;
    const [, long, short] = normalise([
      ...rootExec(),
      part(100, t, SLOT_PATH, first),
      part(100, t, SLOT_PATH, '/tail', 1),
      call({ pid: 100, t, code: code('openat') }),
      part(100, t + 1, SLOT_PATH, '/short'),
      part(100, t + 1, SLOT_PATH, 'garbage after the NUL', 1),
      call({ pid: 100, t: t + 1, code: code('openat') }),
    ]);
    expect(long?.path).toBe(`${first}/tail`);
    expect(long?.truncated).toBeUndefined();
    expect(short?.path).toBe('/short');
  });

  it('marks a path cut by the length limit, or whose next chunk was lost', () => {
    const t = START + 1;
    const full = `/${'b'.repeat(MAX_STRING_BYTES - 1)}`;
    const chunks = Array.from({ length: 6 }, (_, chunk) => part(100, t, SLOT_PATH, full, chunk));
    const [, allFull, missing] = normalise([
      ...rootExec(),
      ...chunks,
      call({ pid: 100, t, code: code('openat') }),
      part(100, t + 1, SLOT_PATH, full),
      call({ pid: 100, t: t + 1, code: code('openat') }),
    ]);
    expect(allFull?.truncated).toBe(true);
    expect(allFull?.path).toHaveLength(6 * MAX_STRING_BYTES);
    expect(missing).toMatchObject({ path: full, truncated: true });
  });

  it('marks a walk that hit its depth limit and never makes it look absolute', () => {
    const t = START + 1;
    const [, open] = normalise([
      ...rootExec(),
      part(100, t, SLOT_PATH, 'file'),
      ...walk(100, t, SLOT_WALK1, ['b', 'a']),
      call({ pid: 100, t, code: code('openat'), walk1: 1002 }),
    ]);
    expect(open).toMatchObject({ path: '…/a/b/file', truncated: true });
  });

  it('marks a walk with a component lost on the way', () => {
    const t = START + 1;
    const [, open] = normalise([
      ...rootExec(),
      part(100, t, SLOT_PATH, 'file'),
      part(100, t, SLOT_WALK1 + 1, 'a'),
      call({ pid: 100, t, code: code('openat'), walk1: 2 }),
    ]);
    expect(open).toMatchObject({ path: '/a/file', truncated: true });
  });

  it('stops a walk at a directory an earlier walk gave, and marks the path when that walk was lost', () => {
    const t = START + 1;
    const at = (id: number, steps: number) => WALK_ANCESTOR * (id + 1) + steps;
    const events = normalise([
      ...rootExec(),
      part(100, t, SLOT_PATH, 'a.txt'),
      ...walk(100, t, SLOT_WALK1, ['sub', 'ws']),
      call({ pid: 100, t, code: code('openat'), walk1: 2, dir1: 77 }),
      part(100, t + 1, SLOT_PATH, 'x/b.txt'),
      call({ pid: 100, t: t + 1, code: code('openat'), walk1: at(77, 0), dir1: 77 }),
      part(101, t + 2, SLOT_PATH, 'c.txt'),
      ...walk(101, t + 2, SLOT_WALK1, ['deeper']),
      call({ tid: 101, pid: 100, t: t + 2, code: code('openat'), walk1: at(77, 1), dir1: 78 }),
      part(100, t + 3, SLOT_PATH, 'e'),
      call({ pid: 100, t: t + 3, code: code('mkdirat'), walk1: at(78, 0), dir1: 78 }),
      part(100, t + 4, SLOT_PATH, 'd.txt'),
      call({ pid: 100, t: t + 4, code: code('openat'), walk1: at(999, 0), dir1: 999 }),
      part(100, t + 5, SLOT_PATH, 'passwd'),
      ...walk(100, t + 5, SLOT_WALK1, ['etc']),
      call({ pid: 100, t: t + 5, code: code('openat'), walk1: at(9, 1), dir1: 10 }),
    ]);
    expect(events.slice(1).map((event) => [event.path, event.truncated])).toEqual([
      ['/ws/sub/a.txt', undefined],
      ['/ws/sub/x/b.txt', undefined],
      ['/ws/sub/deeper/c.txt', undefined],
      ['/ws/sub/deeper/e', undefined],
      ['…/d.txt', true],
      ['…/etc/passwd', true],
    ]);
  });

  it('stops a walk at the root directory itself', () => {
    const t = START + 1;
    const events = normalise([
      ...rootExec(),
      part(100, t, SLOT_PATH, 'x'),
      call({ pid: 100, t, code: code('openat'), walk1: 0, dir1: 9 }),
      part(100, t + 1, SLOT_PATH, 'passwd'),
      ...walk(100, t + 1, SLOT_WALK1, ['etc']),
      call({ pid: 100, t: t + 1, code: code('openat'), walk1: WALK_ANCESTOR * 10 + 1, dir1: 10 }),
    ]);
    expect(events.slice(1).map((event) => event.path)).toEqual(['/x', '/etc/passwd']);
  });

  it('resolves a symlink target against the link directory and a rename against both bases', () => {
    const t = START + 1;
    const [, link, rename] = normalise([
      ...rootExec(),
      part(100, t, SLOT_PATH, '../o2.txt'),
      part(100, t, SLOT_PATH2, 'd/lnk'),
      ...walk(100, t, SLOT_WALK2, ['sub', 'ws']),
      call({ pid: 100, t, code: code('symlinkat'), walk2: 2 }),
      part(100, t + 1, SLOT_PATH, 'x'),
      ...walk(100, t + 1, SLOT_WALK1, ['ws']),
      part(100, t + 1, SLOT_PATH2, '/abs/y'),
      call({ pid: 100, t: t + 1, code: code('renameat2'), walk1: 1, walk2: -1 }),
    ]);
    expect(link).toMatchObject({
      kind: 'write-meta',
      syscall: 'symlinkat',
      path: '/ws/sub/o2.txt',
      path2: '/ws/sub/d/lnk',
    });
    expect(rename).toMatchObject({ syscall: 'renameat2', path: '/ws/x', path2: '/abs/y' });
  });

  it('caps argv at 16 and marks it, and tracks the new executable', () => {
    const t = START + 1;
    const args = Array.from({ length: 16 }, (_, index) => part(100, t, SLOT_ARGV + index, `a${index}`));
    const [, exec, open] = normalise([
      ...rootExec(),
      part(100, t, SLOT_PATH, './tool'),
      ...args,
      ...walk(100, t, SLOT_WALK1, ['ws']),
      call({ pid: 100, t, code: CODE_EXECVE, flags: 20, walk1: 1 }),
      part(100, t + 1, SLOT_PATH, '/etc/passwd'),
      call({ pid: 100, t: t + 1, code: code('openat') }),
    ]);
    expect(exec).toMatchObject({
      kind: 'exec',
      path: '/ws/tool',
      cwd: '/ws',
      truncated: true,
      exe: '/ws/tool',
    });
    expect(exec?.argv).toHaveLength(16);
    expect(exec?.argv?.[15]).toBe('a15');
    expect(open?.exe).toBe('/ws/tool');
  });

  it("drops the launcher's failed PATH lookups but keeps everyone else's failed execs", () => {
    const failed = (pid: number, t: number, path: string): BpfRecord[] => [
      part(pid, t, SLOT_PATH, path),
      call({ pid, t, code: CODE_EXECVE, ret: -2, flags: 1, walk1: 0 }),
    ];
    const events = normalise([
      // The dropped lookup walked the cwd; the exec after it refers to that walk.
      part(100, START, SLOT_PATH, '/root/bin/agent'),
      ...walk(100, START, SLOT_WALK1, ['ws']),
      call({ pid: 100, t: START, code: CODE_EXECVE, ret: -2, flags: 1, walk1: 1, dir1: 5 }),
      part(100, START + 1, SLOT_PATH, '/bin/sh'),
      call({ pid: 100, t: START + 1, code: CODE_EXECVE, flags: 0, walk1: WALK_ANCESTOR * 6, dir1: 5 }),
      ...failed(100, START + 2, '/missing/after'),
      { type: 'fork', t: START + 3, parent: 100, child: 101, call: 4, cloneFlags: 0, comm: 'sh' },
      ...failed(101, START + 4, '/missing/child'),
    ]);
    expect(events[0]?.cwd).toBe('/ws');
    expect(events.map((event) => [event.kind, event.pid, event.path, event.result])).toEqual([
      ['exec', 100, '/bin/sh', 0],
      ['exec', 100, '/missing/after', -2],
      ['fork', 101, undefined, 101],
      ['exec', 101, '/missing/child', -2],
    ]);
    expect(events.map((event) => event.seq)).toEqual([0, 1, 2, 3]);
  });

  it('records forks with the parent as ppid, inherits exe, and decodes exit status', () => {
    const events = normalise([
      ...rootExec(),
      { type: 'fork', t: START + 1, parent: 100, child: 101, call: 2, cloneFlags: 0, comm: 'sh' },
      { type: 'fork', t: START + 2, parent: 101, child: 102, call: 0, cloneFlags: 0, comm: 'sh' },
      { type: 'fork', t: START + 3, parent: 102, child: -11, call: 3, cloneFlags: 0, comm: 'sh' },
      { type: 'exit', t: START + 4, pid: 102, status: 9, comm: 'sh' },
      { type: 'exit', t: START + 5, pid: 101, status: 3 << 8, comm: 'sh' },
    ]);
    expect(
      events
        .slice(1)
        .map((event) => [event.kind, event.syscall, event.pid, event.ppid, event.exe, event.result]),
    ).toEqual([
      ['fork', 'clone3', 101, 100, '/bin/sh', 101],
      ['fork', 'clone', 102, 101, '/bin/sh', 102],
      ['fork', 'fork', 102, 101, '/bin/sh', -11],
      ['exit', 'exit', 102, 101, '/bin/sh', 137],
      ['exit', 'exit', 101, 100, '/bin/sh', 3],
    ]);
  });

  it('decodes IPv4, IPv6 and unix socket addresses', () => {
    const net = (
      t: number,
      family: number,
      port: number,
      words: [number, number, number, number],
      sendto = false,
    ): BpfRecord => ({
      type: 'net',
      tid: 100,
      t,
      pid: 100,
      ppid: 1,
      code: sendto ? CODE_SENDTO : CODE_CONNECT,
      ret: -111,
      family,
      port,
      words,
      comm: 'node',
      parts: NO_PARTS,
    });
    const events = normalise([
      ...rootExec(),
      net(START + 1, 2, 0x5000, [0x0100007f, 0, 0, 0]),
      net(START + 2, 10, 0xbb01, [0, 0, 0, 0x01000000], true),
      part(100, START + 3, 3, '/run/x"y.sock'),
      net(START + 3, 1, 0, [0, 0, 0, 0]),
      part(100, START + 4, 4, 'abstract'),
      net(START + 4, 1, 0, [0, 0, 0, 0]),
    ]);
    expect(events.slice(1).map((event) => [event.syscall, event.addr, event.result])).toEqual([
      ['connect', { family: 'inet', ip: '127.0.0.1', port: 80 }, -111],
      ['sendto', { family: 'inet6', ip: '::1', port: 443 }, -111],
      ['connect', { family: 'unix', path: '/run/x"y.sock' }, -111],
      ['connect', { family: 'unix', path: '@abstract' }, -111],
    ]);
  });

  it('never glues the parts of a lost event to the next one', () => {
    const assembler = new EventAssembler();
    assembler.push(part(100, START + 1, SLOT_PATH, '/secret'));
    const raw = assembler.push(call({ pid: 100, t: START + 2, code: code('openat') }));
    expect(raw && 'parts' in raw ? raw.parts.size : -1).toBe(0);
    expect(assembler.orphanParts).toBe(1);
  });
});

describe('openAccess', () => {
  it('derives read, write and create from the flags', () => {
    expect(openAccess(0)).toBe('read');
    expect(openAccess(0o2000000)).toBe('read');
    expect(openAccess(0o1)).toBe('write');
    expect(openAccess(0o2)).toBe('write');
    expect(openAccess(0o1000)).toBe('write');
    expect(openAccess(0o100)).toBe('create');
    expect(openAccess(0o1101)).toBe('create');
  });
});

describe('EventNormaliser on evasive mechanisms', () => {
  const t = START + 7_000_000;

  it('names i386 calls and io_uring operations, and gives an io_uring open its path but no result', () => {
    const events = normalise([
      ...rootExec(),
      call({ pid: 100, t, code: CODE_IA32_OPEN, ret: 3, head: Buffer.from('/etc/shadow') }),
      call({ pid: 100, t: t + 1, code: CODE_IA32_OTHER, ret: 10, flags: 3 }),
      call({ pid: 100, t: t + 2, code: CODE_IA32_OTHER, ret: 0, flags: 999 }),
      call({ pid: 100, t: t + 3, code: CODE_IO_URING_OPEN, head: Buffer.from('/root/.aws/credentials') }),
      call({ pid: 100, t: t + 4, code: CODE_IO_URING_OP, flags: IO_URING_OPS.indexOf('READ') }),
      call({ pid: 100, t: t + 5, code: code('memfd_create'), ret: 4, head: Buffer.from('payload') }),
    ]).slice(1);
    expect(events.map((e) => [e.kind, e.syscall, e.path, e.result])).toEqual([
      ['open', 'ia32:open', '/etc/shadow', 3],
      ['other', 'ia32:read', undefined, 10],
      ['other', 'ia32:999', undefined, 0],
      ['open', 'io_uring:OPENAT', '/root/.aws/credentials', undefined],
      ['other', 'io_uring:READ', undefined, undefined],
      ['other', 'memfd_create', 'memfd:payload', 4],
    ]);
  });

  it('names a script by its path and the program the kernel ran for it (its #! interpreter) beside it', () => {
    const t2 = START + 3_000_000;
    const [, exec] = normalise([
      ...rootExec(),
      // ./job.sh, whose #! line names /ws/dl/interp: the collector walked mm->exe_file.
      part(100, t2, SLOT_PATH, './job.sh'),
      part(100, t2, SLOT_ARGV, './job.sh'),
      ...walk(100, t2, SLOT_WALK1, ['ws']),
      part(100, t2, SLOT_RESOLVED_NAME, 'interp'),
      ...walk(100, t2, SLOT_WALK2, ['dl', 'ws']),
      call({
        pid: 100,
        t: t2,
        code: CODE_EXECVE,
        flags: 1 | EXEC_RAN_OTHER,
        walk1: 1,
        walk2: 2,
        dir2: 11,
        ino: 91,
        dev: 8 * 2 ** 20 + 1,
      }),
    ]);
    expect(exec).toMatchObject({ kind: 'exec', path: '/ws/job.sh', interpreter: '/ws/dl/interp' });
    // The identity the walk carried is the interpreter's, not the script's.
    expect(exec?.ino).toBeUndefined();
    expect(exec?.path_as_written).toBeUndefined();
  });

  it('names a program run from a memfd by the memfd, not by its descriptor', () => {
    const [, exec, exit] = normalise([
      ...rootExec(),
      part(100, t, SLOT_PATH, '/dev/fd/4'),
      part(100, t, SLOT_EXE_NAME, 'memfd:payload'),
      call({ pid: 100, t, code: CODE_EXECVEAT, flags: 0 }),
      { type: 'exit', t: t + 1, pid: 100, status: 0, comm: '4' },
    ]);
    expect(exec).toMatchObject({ syscall: 'execveat', path: 'memfd:payload', path_as_written: '/dev/fd/4' });
    expect(exit?.exe).toBe('memfd:payload');
  });
});

describe('EventNormaliser on the facts the security rules judge', () => {
  const events = (records: BpfRecord[]) => normalise([...rootExec(), ...records]).slice(1);

  it('gives the chmod family its mode, and fchmod the path of its descriptor or none', () => {
    const t = START + 10;
    const found = events([
      call({ pid: 100, t, code: code('fchmodat'), flags: 0o4755, head: Buffer.from('/ws/helper') }),
      call({ pid: 100, t: t + 1, code: code('chmod'), flags: 0o644, head: Buffer.from('/ws/a') }),
      // fchmod(3</ws/tool>, 02755): the walk of the file itself, leaf first.
      ...walk(100, t + 2, SLOT_WALK1, ['tool', 'ws']),
      call({ pid: 100, t: t + 2, code: code('fchmod'), flags: 0o2755, walk1: 2, dir1: 77 }),
      // fchmod of a pipe: its dentry is its own parent, the walk stops before its first step.
      call({ pid: 100, t: t + 3, code: code('fchmod'), flags: 0o4755, walk1: WALK_INCOMPLETE, dir1: 78 }),
      call({ pid: 100, t: t + 4, code: code('fchmod'), flags: 0o755, ret: -9 }),
    ]);
    expect(found.map((e) => [e.kind, e.syscall, e.path, e.mode, e.result, e.truncated])).toEqual([
      ['write-meta', 'fchmodat', '/ws/helper', 0o4755, 0, undefined],
      ['write-meta', 'chmod', '/ws/a', 0o644, 0, undefined],
      ['write-meta', 'fchmod', '/ws/tool', 0o2755, 0, undefined],
      ['write-meta', 'fchmod', undefined, 0o4755, 0, undefined],
      ['write-meta', 'fchmod', undefined, 0o755, -9, undefined],
    ]);
  });

  it('decodes socket family, type and protocol packed into flags', () => {
    const pack = (family: number, type: number, protocol: number) =>
      family + type * 0x10000 + protocol * 0x1000000;
    const found = events([
      // socket(AF_PACKET, SOCK_RAW|SOCK_CLOEXEC, htons(ETH_P_ALL)): the type's low byte travels.
      call({ pid: 100, t: START + 10, code: code('socket'), flags: pack(17, 3, 0x0300), ret: -1 }),
      call({ pid: 100, t: START + 11, code: code('socket'), flags: pack(2, 2, 1), ret: 4 }),
      call({ pid: 100, t: START + 12, code: code('socket'), flags: pack(2, 1, 0), ret: 5 }),
    ]);
    expect(found.map((e) => [e.kind, e.syscall, e.flags, e.result])).toEqual([
      ['other', 'socket', ['AF_PACKET', 'SOCK_RAW'], -1],
      ['other', 'socket', ['AF_INET', 'SOCK_DGRAM', 'IPPROTO_ICMP'], 4],
      ['other', 'socket', ['AF_INET', 'SOCK_STREAM'], 5],
    ]);
    expect(unpackSocketFlags(pack(17, 3, 0x0300))).toEqual([17, 3, 0x0300]);
  });

  it('names the namespace flags of unshare, setns and clone, and records userfaultfd', () => {
    const t = START + 10;
    const found = events([
      call({ pid: 100, t, code: code('unshare'), flags: 0x10000000 | 0x20000, ret: -1 }),
      call({ pid: 100, t: t + 1, code: code('setns'), flags: 0, ret: 0 }),
      call({ pid: 100, t: t + 2, code: code('userfaultfd'), flags: 0, ret: -1 }),
      // clone(CLONE_NEWUSER|SIGCHLD): the child's fork event; clone's low byte is the signal.
      { type: 'fork', t: t + 3, parent: 100, child: 101, call: 1, cloneFlags: 0x10000000 | 17, comm: 'sh' },
      // clone3 with CLONE_NEWNET|CLONE_NEWTIME refused: the caller's failed fork.
      { type: 'fork', t: t + 4, parent: 100, child: -1, call: 2, cloneFlags: 0x40000000 | 0x80, comm: 'sh' },
      { type: 'fork', t: t + 5, parent: 100, child: 102, call: 3, cloneFlags: 0, comm: 'sh' },
    ]);
    expect(found.map((e) => [e.kind, e.syscall, e.pid, e.flags, e.result])).toEqual([
      ['privilege', 'unshare', 100, ['CLONE_NEWNS', 'CLONE_NEWUSER'], -1],
      ['privilege', 'setns', 100, undefined, 0],
      ['privilege', 'userfaultfd', 100, undefined, -1],
      ['fork', 'clone', 101, ['CLONE_NEWUSER'], 101],
      ['fork', 'clone3', 100, ['CLONE_NEWNET', 'CLONE_NEWTIME'], -1],
      ['fork', 'fork', 102, undefined, 102],
    ]);
  });
});
