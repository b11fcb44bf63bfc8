import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SYSCALL_KIND } from '../../analysis/rules/vocabulary.js';
import {
  REFUSAL_ERRNO,
  REFUSED_SYSCALLS,
  SECCOMP_REFUSED_NAMES,
  SECCOMP_SYSCALL_NUMBERS,
  SECCOMP_TRACED_NAMES,
} from '../../evidence/seccomp-policy.js';
import { seccompBytes } from '../../sandbox/seccomp-filter.js';
import { X86_64_SYSCALL_NUMBERS } from './native-syscalls.js';
import { parseStraceLines } from './parse-strace-lines.js';
import { findExecutable, straceOptions } from './strace-command.js';
import { draftEvent, TRACED_SYSCALLS } from './syscall-events.js';

// Every call the sandbox's seccomp filter refuses as evidence is refused and recorded under strace,
// whatever argument its rule tests: strace follows with syscall stops (the entry is reported before
// seccomp runs), so the next rule added to SECCOMP_RULES needs nothing else.
describe('the calls the seccomp filter refuses as evidence, under strace', () => {
  it('are each followed by strace, numbered, and a word of the rule language', () => {
    const traced = new Set(TRACED_SYSCALLS.map((name) => name.replace(/^\?/, '')));
    for (const name of SECCOMP_TRACED_NAMES) {
      expect(traced.has(name), name).toBe(true);
      expect(X86_64_SYSCALL_NUMBERS[name], name).toBe(SECCOMP_SYSCALL_NUMBERS[name]);
      expect(SYSCALL_KIND[name], name).toBeDefined();
      expect(SECCOMP_REFUSED_NAMES[SECCOMP_SYSCALL_NUMBERS[name] as number]).toBe(name);
    }
    // --seccomp-bpf would stop only in seccomp, after an errno rule has decided.
    expect(straceOptions('/dev/null', 64)).not.toContain('--seccomp-bpf');
  });

  it('are privilege events when refused, as the collector records them, whatever their family', () => {
    // open_by_handle_at is an open when a sandbox lets it through; refused, it opened nothing and is
    // the host-wide call the rules read from privilege events.
    for (const name of Object.keys(REFUSED_SYSCALLS)) {
      const call = {
        name,
        args: ['AT_FDCWD', 'NULL', 'O_RDONLY'],
        result: { value: -REFUSAL_ERRNO, errno: 'ENOSYS', restart: false },
      };
      expect(draftEvent(call, '/w'), name).toMatchObject({ kind: 'privilege', syscall: name, result: -38 });
    }
  });

  const isRoot = process.getuid?.() === 0;
  const bwrap = findExecutable('bwrap');
  const strace = findExecutable('strace');
  const python = findExecutable('python3');
  const canRun = isRoot && bwrap && strace && python && process.arch === 'x64';
  if (!canRun)
    console.warn('seccomp refusals under strace: skipped (needs root, x86_64, bwrap, strace, python3)');
  const work = mkdtempSync(path.join(tmpdir(), 'ag-seccomp-strace-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  // Each argument-tested refusal with its honest twin, and one refused whatever its arguments.
  const SCRIPT = `
import ctypes, socket
l = ctypes.CDLL(None, use_errno=True)
def call(*a):
    r = l.syscall(*a)
    print(r, ctypes.get_errno() if r < 0 else 0)
try:
    socket.socket(40, socket.SOCK_STREAM); print('vsock made')
except OSError as e:
    print('vsock', e.errno)
socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).close()
call(56, 0x10000000 | 17, 0, 0, 0, 0)
call(272, 0x00020000)
call(135, 0x0400000)
call(135, 0x0040000)
call(135, 0xffffffff)
call(135, 0)
call(250, 0, 0)
call(304, -100, 0, 0)
`;

  it.skipIf(!canRun)(
    'refuses each with ENOSYS and records it with its arguments; the honest twins go on',
    () => {
      writeFileSync(path.join(work, 'filter.bpf'), seccompBytes());
      writeFileSync(path.join(work, 'calls.py'), SCRIPT);
      const log = path.join(work, 'strace.log');
      const r = spawnSync(
        'sh',
        [
          '-c',
          `exec "$@" 3<${path.join(work, 'filter.bpf')}`,
          'sh',
          strace as string,
          ...straceOptions(log, 256),
          bwrap as string,
          '--dev-bind',
          '/',
          '/',
          '--unshare-pid',
          '--seccomp',
          '3',
          python as string,
          path.join(work, 'calls.py'),
        ],
        { encoding: 'utf8' },
      );
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout.trim().split('\n')).toEqual([
        'vsock 38',
        '-1 38',
        '-1 38',
        '-1 38',
        '-1 38',
        '0 0',
        '0 0',
        '-1 38',
        '-1 38',
      ]);
      const { events } = parseStraceLines(readFileSync(log, 'utf8'), work);
      const of = (syscall: string) =>
        events
          .filter((e) => e.syscall === syscall)
          .map(({ kind, flags, result }) => ({ kind, flags, result }));
      expect(of('socket')).toContainEqual({ kind: 'other', flags: ['AF_VSOCK', 'SOCK_STREAM'], result: -38 });
      expect(of('socket')).toContainEqual({ kind: 'other', flags: ['AF_UNIX', 'SOCK_STREAM'], result: 3 });
      expect(of('clone')).toContainEqual({ kind: 'fork', flags: ['CLONE_NEWUSER'], result: -38 });
      expect(of('unshare')).toContainEqual({ kind: 'privilege', flags: ['CLONE_NEWNS'], result: -38 });
      expect(of('personality')).toEqual([
        { kind: 'privilege', flags: ['READ_IMPLIES_EXEC'], result: -38 },
        { kind: 'privilege', flags: ['ADDR_NO_RANDOMIZE'], result: -38 },
        { kind: 'privilege', flags: ['0xffffffff'], result: 0 },
        { kind: 'privilege', flags: undefined, result: 0 },
      ]);
      expect(of('keyctl')).toEqual([{ kind: 'privilege', flags: undefined, result: -38 }]);
      expect(of('open_by_handle_at')).toEqual([{ kind: 'privilege', flags: undefined, result: -38 }]);
    },
  );
});
