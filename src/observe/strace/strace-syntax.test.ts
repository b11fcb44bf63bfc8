import { describe, expect, it } from 'vitest';
import { parseResult, parseStraceLine } from './strace-line.js';
import { decodeEscapes, parseFd, parseQuoted, parseStringArray, splitTopLevel } from './strace-syntax.js';

describe('decodeEscapes', () => {
  it('decodes C escapes, short and long octal, and hex', () => {
    expect(decodeEscapes('q\\"uote sp\\nnl')).toBe('q"uote sp\nnl');
    expect(decodeEscapes('back\\\\slash\\ttab\\r')).toBe('back\\slash\ttab\r');
    expect(decodeEscapes('d\\74j\\76x')).toBe('d<j>x');
    expect(decodeEscapes('\\0010')).toBe('\x010');
    expect(decodeEscapes('\\x41\\x7a')).toBe('Az');
  });

  it('rebuilds UTF-8 from octal bytes', () => {
    expect(decodeEscapes('d\\303\\251<j>\\303\\240')).toBe('dé<j>à');
    expect(decodeEscapes('\\342\\234\\223 ok')).toBe('✓ ok');
  });

  it('keeps raw non-ASCII text as it is', () => {
    expect(decodeEscapes('naïve ✓ 😀')).toBe('naïve ✓ 😀');
  });
});

describe('argument syntax', () => {
  it('splits top-level arguments around strings, fd paths, structs and comments', () => {
    const text = 'x(3</a, b>, "c, \\"d)", {k=[1, 2], f=g(h, i)}, 0x7ff /* 39 vars, */)=0';
    expect(splitTopLevel(text, 2)).toEqual({
      parts: ['3</a, b>', '"c, \\"d)"', '{k=[1, 2], f=g(h, i)}', '0x7ff /* 39 vars, */'],
      end: text.length - 3,
    });
    expect(splitTopLevel('vfork() = 1', 6)).toEqual({ parts: [], end: 6 });
    // capset's bit sets are shifts, not a descriptor's <path>.
    const caps = 'capset({pid=0}, {effective=1<<CAP_SETGID|1<<CAP_SETUID, inheritable=0}) = 0';
    expect(splitTopLevel(caps, 7)).toEqual({
      parts: ['{pid=0}', '{effective=1<<CAP_SETGID|1<<CAP_SETUID, inheritable=0}'],
      end: caps.length - 5,
    });
    expect(splitTopLevel('openat(AT_FDCWD, "cut', 7)).toBeNull();
  });

  it('marks strings strace cut at its -s limit', () => {
    expect(parseQuoted('"abc"...')).toEqual({ value: 'abc', truncated: true });
    expect(parseQuoted('"abc"')).toEqual({ value: 'abc', truncated: false });
    expect(parseQuoted('NULL')).toBeNull();
  });

  it('reads -y descriptors with escaped paths', () => {
    expect(parseFd('3</tmp/st/w/q\\"uote sp\\nnl>')).toEqual({ fd: 3, path: '/tmp/st/w/q"uote sp\nnl' });
    expect(parseFd('AT_FDCWD</tmp/w>')).toEqual({ fd: 'AT_FDCWD', path: '/tmp/w' });
    expect(parseFd('AT_FDCWD')).toEqual({ fd: 'AT_FDCWD' });
  });

  it('reads argv arrays, cut items and cut lists', () => {
    expect(parseStringArray('["/bin"..., "a", "b", ...]')).toEqual({
      values: ['/bin', 'a', 'b'],
      truncated: true,
      cut: [true, false, false],
      more: true,
    });
    expect(parseStringArray('["sh", "-c", "echo \\"x\\""]')).toEqual({
      values: ['sh', '-c', 'echo "x"'],
      truncated: false,
      cut: [false, false, false],
      more: false,
    });
    expect(parseStringArray('0x7ffc1234')).toBeNull();
  });
});

describe('line classification', () => {
  it('classifies calls, halves of calls, exits and signals', () => {
    expect(parseStraceLine('6074  1796214629.543505 vfork( <unfinished ...>')).toEqual({
      kind: 'unfinished',
      tid: 6074,
      time: 1796214629543.505,
      name: 'vfork',
      text: 'vfork(',
    });
    expect(parseStraceLine('6074  1796214629.543955 <... vfork resumed>) = 6075')).toMatchObject({
      kind: 'resumed',
      name: 'vfork',
      rest: ') = 6075',
    });
    expect(parseStraceLine('6442  1796214654.788274 +++ killed by SIGKILL +++')).toMatchObject({
      kind: 'killed',
      signal: 'SIGKILL',
    });
    expect(parseStraceLine('6124  1796214630.151231 +++ exited with 3 +++')).toMatchObject({
      kind: 'exited',
      code: 3,
    });
    expect(parseStraceLine('6417  1796214650.743093 --- SIGCHLD {si_signo=SIGCHLD} ---')).toMatchObject({
      kind: 'signal',
    });
    expect(
      parseStraceLine(
        '9081  1796214793.591577 execve("/bin/true", ["true"], 0x7ffe /* 42 vars */ <pid changed to 9040 ...>',
      ),
    ).toMatchObject({
      kind: 'unfinished',
      movedTo: 9040,
      text: 'execve("/bin/true", ["true"], 0x7ffe /* 42 vars */',
    });
    expect(parseStraceLine('garbage')).toBeNull();
    expect(parseStraceLine('123 1.5 +++ something new +++')).toBeNull();
  });

  it('decodes results: errno, -y fds, pid translation, restarts', () => {
    expect(parseResult('-1 ENOENT (No such file or directory)')).toEqual({
      value: -2,
      errno: 'ENOENT',
      restart: false,
    });
    expect(parseResult('3</tmp/x>')).toEqual({ value: 3, restart: false, fdPath: '/tmp/x' });
    expect(parseResult('4</memfd:x (deleted)>')).toMatchObject({ fdPath: '/memfd:x (deleted)' });
    expect(parseResult('5</tmp/a\\x3eb>(deleted)')).toMatchObject({ value: 5, fdPath: '/tmp/a>b' });
    expect(parseResult("2 /* 6489 in strace's PID NS */")).toEqual({
      value: 2,
      hostPid: 6489,
      restart: false,
    });
    expect(parseResult('? ERESTARTSYS (To be restarted if SA_RESTART is set)')).toEqual({
      errno: 'ERESTARTSYS',
      restart: true,
    });
    expect(parseResult('?')).toEqual({ restart: false });
    expect(parseResult('-1 EINPROGRESS (Operation now in progress)')).toMatchObject({ value: -115 });
  });
});
