import { describe, expect, it } from 'vitest';
import type { SysEvent } from '../../evidence/types.js';
import { X86_64_SYSCALL_NUMBERS } from './native-syscalls.js';
import { parseStraceLines } from './parse-strace-lines.js';
import { StraceParser } from './strace-parser.js';

// Lines captured from `strace -f --seccomp-bpf -q -ttt -y --decode-pids=pidns -s 256` (strace 6.1),
// trimmed to the calls each test is about.
const SHELL_RUN = `
6074  1796214629.538643 execve("/usr/bin/sh", ["sh", "/tmp/st/run.sh"], 0x7ffed4386a60 /* 39 vars */) = 0
6074  1796214629.542647 openat(AT_FDCWD</tmp/st/w>, "/tmp/st/run.sh", O_RDONLY) = 3</tmp/st/run.sh>
6074  1796214629.542966 chdir("/tmp/st/w/sub") = 0
6074  1796214629.543058 openat(AT_FDCWD</tmp/st/w/sub>, "out.txt", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3</tmp/st/w/sub/out.txt>
6074  1796214629.543388 chdir("..") = 0
6074  1796214629.543505 vfork( <unfinished ...>
6075  1796214629.543765 execve("/usr/bin/mv", ["mv", "a", "b"], 0x560938741c28 /* 39 vars */ <unfinished ...>
6074  1796214629.543955 <... vfork resumed>) = 6075
6075  1796214629.544370 <... execve resumed>) = 0
6075  1796214629.550449 renameat2(AT_FDCWD</tmp/st/w>, "a", AT_FDCWD</tmp/st/w>, "b", RENAME_NOREPLACE) = 0
6075  1796214629.551156 +++ exited with 0 +++
6074  1796214629.560131 vfork( <unfinished ...>
6078  1796214629.560363 execve("/usr/bin/cat", ["cat", "q\\"uote sp\\nnl"], 0x560938741c28 /* 39 vars */ <unfinished ...>
6074  1796214629.560877 <... vfork resumed>) = 6078
6078  1796214629.560926 <... execve resumed>) = 0
6078  1796214629.565771 openat(AT_FDCWD</tmp/st/w>, "q\\"uote sp\\nnl", O_RDONLY) = 3</tmp/st/w/q\\"uote sp\\nnl>
6078  1796214629.566230 +++ exited with 0 +++
6074  1796214629.572646 vfork( <unfinished ...>
6080  1796214629.572945 execve("/usr/bin/mkdir", ["mkdir", "d\\303\\251<j>\\303\\240"], 0x5609387421d8 /* 39 vars */ <unfinished ...>
6074  1796214629.573421 <... vfork resumed>) = 6080
6080  1796214629.573496 <... execve resumed>) = 0
6080  1796214629.578746 mkdir("d\\303\\251<j>\\303\\240", 0777) = 0
6080  1796214629.579385 +++ exited with 0 +++
6074  1796214629.579522 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f) = 6081
6081  1796214629.584684 execve("/usr/local/bin/python3", ["python3", "-c", "import socket\\ns=socket.socket()"...], 0x7ffe53136b18 /* 39 vars */) = -1 ENOENT (No such file or directory)
6081  1796214629.585203 execve("/usr/bin/python3", ["python3", "-c", "import socket\\ns=socket.socket()"...], 0x7ffe53136b18 /* 39 vars */) = 0
6081  1796214630.116519 connect(3<socket:[12009]>, {sa_family=AF_INET, sin_port=htons(9), sin_addr=inet_addr("127.0.0.1")}, 16) = -1 ECONNREFUSED (Connection refused)
6081  1796214630.117078 chdir("/tmp")   = 0
6081  1796214630.117225 fchdir(4</tmp/st/w/sub>) = 0
6081  1796214630.117326 openat(AT_FDCWD</tmp/st/w/sub>, "rel2", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 5</tmp/st/w/sub/rel2>
6081  1796214630.117663 renameat(4</tmp/st/w/sub>, "rel2", 4</tmp/st/w/sub>, "rel3") = 0
6081  1796214630.117770 connect(5<socket:[12010]>, {sa_family=AF_INET6, sin6_port=htons(9), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "::1", &sin6_addr), sin6_scope_id=0}, 28) = -1 ECONNREFUSED (Connection refused)
6081  1796214630.117992 connect(6<socket:[12011]>, {sa_family=AF_UNIX, sun_path="/tmp/nonexist.sock"}, 21) = -1 ENOENT (No such file or directory)
6081  1796214630.118116 sendto(7<socket:[12012]>, "hello", 5, 0, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("127.0.0.1")}, 16) = 5
6081  1796214630.118120 sendto(7<socket:[12012]>, "hello", 5, MSG_NOSIGNAL, NULL, 0) = 5
6081  1796214630.144298 +++ exited with 0 +++
6074  1796214630.144430 vfork( <unfinished ...>
6123  1796214630.144709 execve("/usr/bin/sh", ["sh", "-c", "sh -c \\"exit 3\\""], 0x560938741c28 /* 39 vars */ <unfinished ...>
6074  1796214630.144979 <... vfork resumed>) = 6123
6123  1796214630.145432 <... execve resumed>) = 0
6123  1796214630.147756 vfork( <unfinished ...>
6124  1796214630.148044 execve("/usr/bin/sh", ["sh", "-c", "exit 3"], 0x557d6cbeebc8 /* 39 vars */ <unfinished ...>
6123  1796214630.148350 <... vfork resumed>) = 6124
6124  1796214630.148794 <... execve resumed>) = 0
6124  1796214630.151231 +++ exited with 3 +++
6123  1796214630.151625 +++ exited with 3 +++
6074  1796214630.152020 +++ exited with 0 +++
`;

const START = 1796214629538.643;

function only(events: SysEvent[], filter: Partial<SysEvent>): SysEvent {
  const found = events.filter((event) =>
    Object.entries(filter).every(([k, v]) => event[k as keyof SysEvent] === v),
  );
  expect(found, JSON.stringify(filter)).toHaveLength(1);
  return found[0] as SysEvent;
}

describe('parseStraceLines on a shell session', () => {
  const { events, lost_events, warnings } = parseStraceLines(SHELL_RUN, '/tmp/st/w', { startMs: START });

  it('parses every line', () => {
    expect(lost_events).toBe(0);
    expect(warnings).toEqual([]);
  });

  it('numbers events in order and times them from the window start', () => {
    expect(events.map((event) => event.seq)).toEqual(events.map((_, i) => i));
    expect(events[0]).toMatchObject({ ts: 0, kind: 'exec', pid: 6074, ppid: 0, exe: '/usr/bin/sh' });
    expect(only(events, { syscall: 'renameat2' }).ts).toBe(11.806);
  });

  it('joins unfinished/resumed execve and announces the vfork child before its exec', () => {
    const fork = only(events, { kind: 'fork', pid: 6075 });
    const exec = only(events, { kind: 'exec', pid: 6075 });
    expect(fork).toMatchObject({ ppid: 6074, syscall: 'vfork', result: 6075, exe: '/usr/bin/sh' });
    expect(exec).toMatchObject({
      ppid: 6074,
      exe: '/usr/bin/mv',
      argv: ['mv', 'a', 'b'],
      cwd: '/tmp/st/w',
      result: 0,
    });
    expect(fork.seq).toBeLessThan(exec.seq);
  });

  it('resolves relative paths against the tracked cwd (chdir, chdir .., fchdir)', () => {
    expect(only(events, { syscall: 'openat', pid: 6074, access: 'create' }).path).toBe(
      '/tmp/st/w/sub/out.txt',
    );
    expect(only(events, { syscall: 'renameat2' })).toMatchObject({
      kind: 'write-meta',
      path: '/tmp/st/w/a',
      path2: '/tmp/st/w/b',
      result: 0,
    });
    expect(only(events, { kind: 'open', path: '/tmp/st/w/sub/rel2' })).toMatchObject({
      access: 'create',
      result: 5,
    });
  });

  it('uses -y dirfd paths for *at calls', () => {
    expect(only(events, { syscall: 'renameat' })).toMatchObject({
      path: '/tmp/st/w/sub/rel2',
      path2: '/tmp/st/w/sub/rel3',
    });
  });

  it('round-trips quotes, newlines and UTF-8 in paths and argv', () => {
    expect(only(events, { kind: 'open', pid: 6078 })).toMatchObject({
      path: '/tmp/st/w/q"uote sp\nnl',
      access: 'read',
      result: 3,
    });
    expect(only(events, { kind: 'exec', pid: 6078 }).argv).toEqual(['cat', 'q"uote sp\nnl']);
    expect(only(events, { syscall: 'mkdir' }).path).toBe('/tmp/st/w/dé<j>à');
  });

  it('keeps failed PATH-search execs with a negative errno and marks cut argv', () => {
    const failed = only(events, { kind: 'exec', result: -2 });
    expect(failed).toMatchObject({ path: '/usr/local/bin/python3', exe: '/usr/bin/sh', truncated: true });
    expect(failed.argv).toEqual(['python3', '-c', 'import socket\ns=socket.socket()']);
    expect(only(events, { kind: 'exec', pid: 6081, result: 0 }).exe).toBe('/usr/bin/python3');
  });

  it('reads inet, inet6 and unix addresses from connect and sendto', () => {
    const connects = events.filter((event) => event.kind === 'connect');
    expect(connects.map((event) => [event.syscall, event.addr, event.result])).toEqual([
      ['connect', { family: 'inet', ip: '127.0.0.1', port: 9 }, -111],
      ['connect', { family: 'inet6', ip: '::1', port: 9 }, -111],
      ['connect', { family: 'unix', path: '/tmp/nonexist.sock' }, -2],
      ['sendto', { family: 'inet', ip: '127.0.0.1', port: 53 }, 5],
    ]);
  });

  it('records exit codes and the process chain of a grandchild', () => {
    expect(only(events, { kind: 'exit', pid: 6124 })).toMatchObject({
      result: 3,
      ppid: 6123,
      exe: '/usr/bin/sh',
    });
    expect(only(events, { kind: 'exit', pid: 6074 })).toMatchObject({ result: 0, ppid: 0 });
    expect(only(events, { kind: 'fork', pid: 6123 }).ppid).toBe(6074);
  });

  it('gives the same parents without the clone index (live mode)', () => {
    const live: SysEvent[] = [];
    const parser = new StraceParser({ rootCwd: '/tmp/st/w', startMs: START, onEvent: (e) => live.push(e) });
    for (const line of SHELL_RUN.split('\n')) parser.push(line);
    parser.finish();
    expect(live).toEqual(events);
  });
});

describe('parseStraceLines edge cases', () => {
  it('maps threads to their process, shares cwd, and skips thread exits', () => {
    const { events } = parseStraceLines(
      `
9040  1.000000 execve("/usr/bin/python3", ["python3"], 0x7 /* 1 vars */) = 0
9040  1.100000 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS, child_tid=0x7f, exit_signal=0, stack=0x7f, stack_size=0x7fff80, tls=0x7f} => {parent_tid=[9081]}, 88) = 9081
9081  1.200000 chdir("/srv") = 0
9081  1.300000 openat(AT_FDCWD</srv>, "t.txt", O_RDWR) = 5</srv/t.txt>
9081  1.400000 +++ exited with 0 +++
9040  1.500000 open("u.txt", O_RDONLY) = 6</srv/u.txt>
9040  1.600000 +++ exited with 0 +++`,
      '/home',
    );
    expect(events.map((event) => [event.kind, event.pid, event.path ?? null])).toEqual([
      ['exec', 9040, '/usr/bin/python3'],
      ['open', 9040, '/srv/t.txt'],
      ['open', 9040, '/srv/u.txt'],
      ['exit', 9040, null],
    ]);
    expect(events[1]?.access).toBe('write');
  });

  it("records an exec's loader and interpreter variables from the environment strace prints in full", () => {
    const { events } = parseStraceLines(
      `
7000  1.000000 execve("/usr/bin/ls", ["ls"], ["HOME=/h", "API_TOKEN=s3cret", "LD_PRELOAD=/tmp/x.so", "GIT_CONFIG_KEY_0=core.hooksPath", "LD_PRELOAD=/tmp/y.so"]) = 0
7001  1.100000 execve("/usr/bin/env", ["env"], ["NODE_OPTIONS=--require /tmp/a-long-na"..., "PATH=/bin"]) = 0
7002  1.200000 execve("/usr/bin/true", ["true"], ["PATH=/bin", ...]) = 0
7003  1.300000 execve("/usr/bin/id", ["id"], ["PATH=/bin"...]) = 0
7004  1.400000 execve("/usr/bin/cat", ["cat"], 0x7 /* 1 vars */) = 0`,
      '/',
    );
    expect(events.map((event) => [event.env, event.env_truncated])).toEqual([
      [['LD_PRELOAD=/tmp/x.so', 'GIT_CONFIG_KEY_0=core.hooksPath', 'LD_PRELOAD=/tmp/y.so'], undefined],
      [['NODE_OPTIONS=--require /tmp/a-long-na'], true],
      [[], true],
      // A variable strace cut that is not recorded cuts nothing recorded.
      [[], undefined],
      // An abbreviated environment (an older option set) is not recorded at all.
      [undefined, undefined],
    ]);
  });

  it("follows fcntl's descriptor copies in the descriptor table (F_DUPFD, F_DUPFD_CLOEXEC)", () => {
    const { events } = parseStraceLines(
      `
7100  1.000000 execve("/usr/bin/python3", ["python3"], 0x7 /* 1 vars */) = 0
7100  1.100000 openat(AT_FDCWD</w>, "d", O_RDONLY|O_CLOEXEC) = 3</w/d>
7100  1.200000 fcntl(3</w/d>, F_GETFD) = 0x1 (flags FD_CLOEXEC)
7100  1.300000 fcntl(3</w/d>, F_DUPFD_CLOEXEC, 40) = 40</w/d>
7100  1.400000 fcntl(3</w/d>, F_DUPFD, 50) = 50</w/d>
7100  1.500000 chmod("/proc/self/fd/40/target", 0600) = 0
7100  1.600000 execve("/usr/bin/sh", ["sh"], 0x7 /* 1 vars */) = 0
7100  1.700000 unlink("/proc/self/fd/50/target") = 0
7100  1.800000 unlink("/proc/self/fd/40/target") = -1 ENOENT (No such file or directory)`,
      '/w',
    );
    const changes = events.filter((event) => event.kind === 'write-meta');
    expect(changes.map((event) => [event.path, event.path_as_written])).toEqual([
      ['/w/d/target', '/proc/self/fd/40/target'],
      // F_DUPFD's copy survives the exec; F_DUPFD_CLOEXEC's does not.
      ['/w/d/target', '/proc/self/fd/50/target'],
      ['/proc/self/fd/40/target', undefined],
    ]);
  });

  it('records copies onto standard input and output: the file, or the pipe by its inode', () => {
    const { events } = parseStraceLines(
      `
7150  1.000000 execve("/usr/bin/dash", ["sh", "-c", "x"], 0x7 /* 1 vars */) = 0
7150  1.100000 openat(AT_FDCWD</w>, "data", O_RDONLY) = 3</w/data>
7150  1.200000 fcntl(0</dev/null>, F_DUPFD, 10) = 11</dev/null>
7150  1.300000 dup2(3</w/data>, 0) = 0</w/data>
7150  1.400000 dup2(4<pipe:[2326]>, 1<pipe:[1111]>) = 1<pipe:[2326]>
7150  1.500000 dup2(3</w/data>, 5) = 5</w/data>`,
      '/w',
    );
    const copies = events.filter((event) => event.kind === 'other');
    expect(copies.map((e) => [e.syscall, e.result, e.path, e.pipe])).toEqual([
      ['dup2', 0, '/w/data', undefined],
      ['dup2', 1, undefined, 2326],
    ]);
  });

  it("records the pid process_vm_readv names, and whether it is the caller's own", () => {
    const { events } = parseStraceLines(
      `
7200  1.000000 execve("/usr/bin/python3", ["python3"], 0x7 /* 1 vars */) = 0
7200  1.100000 process_vm_readv(1 /* 7200 in strace's PID NS */, NULL, 0, NULL, 0, 0) = 0
7200  1.200000 process_vm_readv(2 /* 7201 in strace's PID NS */, NULL, 0, NULL, 0, 0) = -1 EPERM (Operation not permitted)
7200  1.300000 process_vm_writev(7200, NULL, 0, NULL, 0, 0) = 0`,
      '/',
    );
    expect(events.filter((e) => e.kind === 'privilege').map((e) => [e.target_pid, e.target_self])).toEqual([
      [1, true],
      [2, false],
      [7200, true],
    ]);
  });

  it('tracks forks into a PID namespace through --decode-pids=pidns', () => {
    const { events } = parseStraceLines(
      `
6488  1.000000 chdir("/tmp/ws") = 0
6488  1.100000 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f) = 2 /* 6489 in strace's PID NS */
6489  1.200000 vfork( <unfinished ...>
6490  1.300000 execve("/usr/bin/cat", ["cat", "f"], 0x5 /* 39 vars */ <unfinished ...>
6489  1.400000 <... vfork resumed>) = 3 /* 6490 in strace's PID NS */
6490  1.500000 <... execve resumed>) = 0
6490  1.600000 openat(AT_FDCWD</tmp/ws>, "f", O_RDONLY) = 3</tmp/ws/f>`,
      '/',
    );
    expect(events.map((event) => [event.kind, event.pid, event.ppid])).toEqual([
      ['fork', 6489, 6488],
      ['fork', 6490, 6489],
      ['exec', 6490, 6489],
      ['open', 6490, 6489],
    ]);
    expect(events[3]?.path).toBe('/tmp/ws/f');
  });

  it('reports signal deaths as 128 + signal and drops calls the kernel restarts', () => {
    const { events } = parseStraceLines(
      `
10  1.000000 openat(AT_FDCWD, "/tmp/fifo", O_RDONLY) = ? ERESTARTSYS (To be restarted if SA_RESTART is set)
10  1.100000 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=11} ---
10  1.200000 openat(AT_FDCWD, "/tmp/fifo", O_RDONLY) = 3</tmp/fifo>
10  1.300000 +++ killed by SIGKILL +++`,
      '/',
    );
    expect(events.map((event) => [event.kind, event.result])).toEqual([
      ['open', 3],
      ['exit', 137],
    ]);
  });

  it('accepts an execve that a thread ran (pid changed to the leader)', () => {
    const { events, lost_events } = parseStraceLines(
      `
9040  1.000000 clone3({flags=CLONE_VM|CLONE_FS|CLONE_THREAD, exit_signal=0} => {parent_tid=[9081]}, 88) = 9081
9081  1.100000 execve("/bin/true", ["true", "from-thread"], 0x7ffe /* 42 vars */ <pid changed to 9040 ...>
9040  1.200000 +++ superseded by execve in pid 9081 +++
9040  1.300000 <... execve resumed>) = ?
9040  1.400000 +++ exited with 0 +++`,
      '/',
    );
    expect(lost_events).toBe(0);
    expect(events.map((event) => [event.kind, event.pid, event.result, event.exe])).toEqual([
      ['exec', 9040, 0, '/bin/true'],
      ['exit', 9040, 0, '/bin/true'],
    ]);
  });

  it('classifies open flags, write-meta pairs, symlinks and privilege calls', () => {
    const { events } = parseStraceLines(
      `
7  1.000000 openat2(AT_FDCWD</w>, "f", {flags=O_RDONLY|O_CLOEXEC, resolve=0}, 24) = 3</w/f>
7  1.000001 creat("new.txt", 0644) = 4</w/new.txt>
7  1.000002 open("/etc/shadow", O_WRONLY|O_APPEND) = -1 EACCES (Permission denied)
7  1.000003 symlink("../target", "sub/link") = 0
7  1.000004 linkat(AT_FDCWD</w>, "sym", AT_FDCWD</w>, "hard", 0) = 0
7  1.000005 fchownat(4</usr/bin>, "f", 0, 0, 0) = -1 ENOENT (No such file or directory)
7  1.000006 unlinkat(AT_FDCWD</w>, "gone", AT_REMOVEDIR) = 0
7  1.000007 setuid(0)       = 0
7  1.000008 mount("proc", "/proc", "proc", MS_NOSUID|MS_NODEV, NULL) = 0
7  1.000009 truncate("a//b/../c.txt", 0) = 0`,
      '/w',
    );
    expect(
      events.map(({ kind, syscall, path, path2, access, result }) => ({
        kind,
        syscall,
        path,
        path2,
        access,
        result,
      })),
    ).toEqual([
      { kind: 'open', syscall: 'openat2', path: '/w/f', access: 'read', result: 3 },
      { kind: 'open', syscall: 'creat', path: '/w/new.txt', access: 'create', result: 4 },
      { kind: 'open', syscall: 'open', path: '/etc/shadow', access: 'write', result: -13 },
      { kind: 'write-meta', syscall: 'symlink', path: '/w/target', path2: '/w/sub/link', result: 0 },
      { kind: 'write-meta', syscall: 'linkat', path: '/w/sym', path2: '/w/hard', result: 0 },
      { kind: 'write-meta', syscall: 'fchownat', path: '/usr/bin/f', result: -2 },
      { kind: 'write-meta', syscall: 'unlinkat', path: '/w/gone', result: 0 },
      { kind: 'privilege', syscall: 'setuid', result: 0 },
      { kind: 'privilege', syscall: 'mount', path: '/proc', result: 0 },
      { kind: 'write-meta', syscall: 'truncate', path: '/w/a/c.txt', result: 0 },
    ]);
  });

  it('records chmod modes, socket domains and types, namespace flags and delete_module', () => {
    // Lines as strace 6.1 printed them for python's os.fchmod/os.chmod, socket() and unshare(1).
    const { events } = parseStraceLines(
      `
7  1.000000 fchmod(3</w/x>, 04755) = 0
7  1.000001 chmod("x", 02755)                 = 0
7  1.000002 fchmodat(AT_FDCWD</w>, "y", 0644) = 0
7  1.000002 fchmod(4<pipe:[4242]>, 0600) = 0
7  1.000003 socket(AF_PACKET, SOCK_RAW|SOCK_CLOEXEC, htons(ETH_P_ALL)) = 3<socket:[2002053]>
7  1.000004 socket(AF_INET, SOCK_DGRAM|SOCK_CLOEXEC, IPPROTO_ICMP) = -1 EACCES (Permission denied)
7  1.000005 delete_module("dummy_mod", 0)     = -1 ENOSYS (Function not implemented)
7  1.000006 unshare(CLONE_NEWNS|CLONE_NEWUSER|CLONE_NEWPID) = 0
7  1.000007 setns(4</proc/9/ns/net>, CLONE_NEWNET) = -1 EPERM (Operation not permitted)
7  1.000008 clone(child_stack=NULL, flags=CLONE_NEWNET|CLONE_NEWUSER|SIGCHLD) = -1 EPERM (Operation not permitted)
7  1.000009 clone(child_stack=NULL, flags=CLONE_NEWPID|SIGCHLD) = 8
7  1.000010 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f) = 9`,
      '/w',
    );
    expect(
      events.map(({ kind, syscall, path, mode, flags, result }) => ({
        kind,
        syscall,
        path,
        mode,
        flags,
        result,
      })),
    ).toEqual([
      { kind: 'write-meta', syscall: 'fchmod', path: '/w/x', mode: 0o4755, flags: undefined, result: 0 },
      { kind: 'write-meta', syscall: 'chmod', path: '/w/x', mode: 0o2755, flags: undefined, result: 0 },
      { kind: 'write-meta', syscall: 'fchmodat', path: '/w/y', mode: 0o644, flags: undefined, result: 0 },
      { kind: 'write-meta', syscall: 'fchmod', path: undefined, mode: 0o600, flags: undefined, result: 0 },
      {
        kind: 'other',
        syscall: 'socket',
        path: undefined,
        mode: undefined,
        flags: ['AF_PACKET', 'SOCK_RAW'],
        result: 3,
      },
      {
        kind: 'other',
        syscall: 'socket',
        path: undefined,
        mode: undefined,
        flags: ['AF_INET', 'SOCK_DGRAM', 'IPPROTO_ICMP'],
        result: -13,
      },
      {
        kind: 'privilege',
        syscall: 'delete_module',
        path: undefined,
        mode: undefined,
        flags: undefined,
        result: -38,
      },
      {
        kind: 'privilege',
        syscall: 'unshare',
        path: undefined,
        mode: undefined,
        flags: ['CLONE_NEWNS', 'CLONE_NEWPID', 'CLONE_NEWUSER'],
        result: 0,
      },
      {
        kind: 'privilege',
        syscall: 'setns',
        path: '/proc/9/ns/net',
        mode: undefined,
        flags: ['CLONE_NEWNET'],
        result: -1,
      },
      {
        kind: 'fork',
        syscall: 'clone',
        path: undefined,
        mode: undefined,
        flags: ['CLONE_NEWNET', 'CLONE_NEWUSER'],
        result: -1,
      },
      {
        kind: 'fork',
        syscall: 'clone',
        path: undefined,
        mode: undefined,
        flags: ['CLONE_NEWPID'],
        result: 8,
      },
      { kind: 'fork', syscall: 'clone', path: undefined, mode: undefined, flags: undefined, result: 9 },
    ]);
  });

  it('counts corrupt, cut and orphaned lines as lost and keeps going', () => {
    const { events, lost_events, warnings } = parseStraceLines(
      `
20  1.000000 execve("/bin/sh", ["sh"], 0x1 /* 1 vars */) = 0
this is not strace output
20  1.100000 openat(AT_FDCWD, "/unterminated, O_RDONLY) = 3
20  1.200000 <... openat resumed>) = 3
20  1.300000 +++ exploded +++
20  1.400000 openat(AT_FDCWD, "/ok", O_RDONLY) = 3
20  1.500000 openat(AT_FDCWD, "/cut-at-end", O_RDONLY <unfinished ...>`,
      '/',
    );
    expect(lost_events).toBe(4);
    expect(warnings[0]).toContain('unrecognised line: this is not strace output');
    expect(events.map((event) => [event.path, event.result])).toEqual([
      ['/bin/sh', 0],
      ['/ok', 3],
      ['/cut-at-end', undefined],
    ]);
    expect(warnings.at(-1)).toContain('never returned');
  });
});

// Captured with the tracer's options (`-n` prints the call's number), from three small static
// programs: i386 `int $0x80` open, an io_uring OPENAT+READ, and a memfd run with fexecve; then
// Python running a memfd through /proc/self/fd/N.
const EVASIONS = `
14622 1796290590.456787 [  59] execve("/tmp/compat-open", ["/tmp/compat-open", "/etc/hostname"], 0x55ba9fe34cb8 /* 35 vars */) = 0
14622 1796290590.458178 [   5] open("/etc/hostname", O_RDONLY) = 3</etc/hostname>
14622 1796290590.458337 [   5] +++ exited with 0 +++
14623 1796290590.463448 [  59] execve("/tmp/io-uring-read", ["/tmp/io-uring-read", "/etc/hostname"], 0x55ba9fe34cb8 /* 35 vars */) = 0
14623 1796290590.464913 [ 425] io_uring_setup(4, {flags=0, sq_thread_cpu=0, sq_thread_idle=0, sq_entries=4, cq_entries=8, features=IORING_FEAT_SINGLE_MMAP, sq_off={head=0, tail=4}, cq_off={head=8, tail=12}}) = 3<anon_inode:[io_uring]>
14623 1796290590.465073 [ 426] io_uring_enter(3<anon_inode:[io_uring]>, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) = 1
14623 1796290590.465250 [ 426] +++ exited with 0 +++
14624 1796290590.465596 [  59] execve("/tmp/memfd-exec", ["/tmp/memfd-exec", "/bin/true"], 0x55ba9fe34cb0 /* 35 vars */) = 0
14624 1796290590.467048 [ 319] memfd_create("payload", MFD_CLOEXEC) = 4</memfd:payload>(deleted)
14624 1796290590.467113 [ 322] execveat(4</memfd:payload>(deleted), "", ["/bin/true"], 0x7ffe5ac0dcc0 /* 35 vars */, AT_EMPTY_PATH) = 0
14624 1796290590.468129 [ 257] +++ exited with 0 +++
14625 1796290590.721243 [  59] execve("/usr/bin/python3", ["python3", "-c", "..."], 0x7ffe4273b328 /* 38 vars */) = 0
14625 1796290590.831118 [ 319] memfd_create("py", MFD_CLOEXEC) = 3</memfd:py>(deleted)
14625 1796290590.833812 [  59] execve("/proc/self/fd/3", ["py"], 0x7ffe4273b328 /* 38 vars */) = 0
14625 1796290590.836502 [ 257] +++ exited with 0 +++
`;

describe('evasive mechanisms', () => {
  const events = parseStraceLines(EVASIONS.trim(), '/tmp', { nativeSyscalls: X86_64_SYSCALL_NUMBERS }).events;
  const pick = (syscall: string) => events.filter((e) => e.syscall === syscall);

  it('marks an i386 call by its number and keeps its path and kind', () => {
    expect(pick('ia32:open')).toMatchObject([
      { pid: 14622, kind: 'open', path: '/etc/hostname', access: 'read', result: 3, exe: '/tmp/compat-open' },
    ]);
    expect(events.filter((e) => e.syscall === 'open')).toEqual([]);
  });

  it('records the io_uring calls', () => {
    expect(pick('io_uring_setup')).toMatchObject([{ kind: 'other', result: 3 }]);
    expect(pick('io_uring_enter')).toMatchObject([{ kind: 'other', result: 1 }]);
  });

  it('names a program run from a memfd by the memfd, keeping the path as written', () => {
    expect(pick('memfd_create').map((e) => e.path)).toEqual(['memfd:payload', 'memfd:py']);
    const execs = events.filter((e) => e.kind === 'exec' && e.path?.startsWith('memfd:'));
    expect(execs).toMatchObject([
      { syscall: 'execveat', path: 'memfd:payload', path_as_written: '/dev/fd/4', argv: ['/bin/true'] },
      { syscall: 'execve', path: 'memfd:py', path_as_written: '/proc/self/fd/3', argv: ['py'] },
    ]);
    // Whatever the exec'd image does next is attributed to the memfd program, not to "3".
    expect(events.find((e) => e.pid === 14625 && e.kind === 'exit')?.exe).toBe('memfd:py');
  });

  it('without a native table (another architecture) leaves names alone', () => {
    const plain = parseStraceLines(EVASIONS.trim(), '/tmp', { nativeSyscalls: null });
    expect(plain.events.some((e) => e.syscall === 'open')).toBe(true);
  });
});

describe('the path the kernel resolved', () => {
  // `exec 3<~/.ssh`, moved to 5; reads and changes through it; a child inherits it; a handle open.
  const LINES = `
700  1.000001 openat(AT_FDCWD</ws>, "/root/.ssh", O_RDONLY) = 3</root/.ssh>
700  1.000002 dup2(3</root/.ssh>, 5) = 5</root/.ssh>
700  1.000003 openat(AT_FDCWD</ws>, "/proc/self/fd/5/id_rsa", O_RDONLY) = 4</root/.ssh/id_rsa>
700  1.000004 openat(AT_FDCWD</ws>, "/tmp/l/../../.ssh/id_rsa", O_RDONLY) = 4</root/.ssh/id_rsa>
700  1.000005 chmod("/proc/self/fd/5/config", 0600) = 0
700  1.000006 clone(child_stack=NULL, flags=SIGCHLD) = 701
701  1.000007 execve("/dev/fd/5/run.sh", ["run.sh"], 0x1 /* 1 var */) = 0
701  1.000008 open_by_handle_at(6</root>, {handle_bytes=8, handle_type=1}, O_RDONLY) = 7</root/.env>
701  1.000009 openat(AT_FDCWD</ws>, "/dev/stdout", O_WRONLY) = 1<pipe:[99]>
`;
  it('judges opens by -y, execs and changes through the descriptor table, and keeps the written path', () => {
    const { events } = parseStraceLines(LINES, '/ws', { startMs: 1000 });
    const paths = events.filter((e) => e.kind !== 'fork').map((e) => [e.syscall, e.path, e.path_as_written]);
    expect(paths).toEqual([
      ['openat', '/root/.ssh', undefined],
      ['openat', '/root/.ssh/id_rsa', '/proc/self/fd/5/id_rsa'],
      ['openat', '/root/.ssh/id_rsa', '/tmp/l/../../.ssh/id_rsa'],
      ['chmod', '/root/.ssh/config', '/proc/self/fd/5/config'],
      ['execve', '/root/.ssh/run.sh', '/dev/fd/5/run.sh'],
      ['open_by_handle_at', '/root/.env', undefined],
      ['openat', '/dev/stdout', undefined],
    ]);
  });
});
