import { describe, expect, it } from 'vitest';
import type { SysEvent } from '../../evidence/types.js';
import { canonicalEvent, canonicalPath } from './canonical-path.js';

const cwds = new Map([
  [7, '/work/ws'],
  [1, '/home/agent'],
]);
const canon = (p: string, self = 7) => canonicalPath(p, self, (pid) => cwds.get(pid));

describe('canonicalPath', () => {
  it('drops procfs root links, whoever they belong to', () => {
    expect(canon('/proc/self/root/root/.ssh/id_rsa')).toBe('/root/.ssh/id_rsa');
    expect(canon('/proc/1/root/etc/shadow')).toBe('/etc/shadow');
    expect(canon('/proc/thread-self/root/etc/shadow')).toBe('/etc/shadow');
    expect(canon('/proc/self/task/7/root/etc/shadow')).toBe('/etc/shadow');
    expect(canon('/proc/self/root/proc/1/root/etc/shadow')).toBe('/etc/shadow');
    expect(canon('/proc/self/root/../../etc/shadow')).toBe('/etc/shadow');
  });

  it('replaces cwd links with the known working directory, and leaves unknown ones', () => {
    expect(canon('/proc/self/cwd/src/x.js')).toBe('/work/ws/src/x.js');
    expect(canon('/proc/1/cwd/.aws/credentials')).toBe('/home/agent/.aws/credentials');
    expect(canon('/proc/99/cwd/x')).toBe('/proc/99/cwd/x');
  });

  it('collapses //, . and .., and leaves other procfs files and relative paths alone', () => {
    expect(canon('/etc//./ssh/../shadow')).toBe('/etc/shadow');
    expect(canon('/proc/self/environ')).toBe('/proc/self/environ');
    expect(canon('/proc/self/fd/3')).toBe('/proc/self/fd/3');
    expect(canon('/proc/rooted/root/x')).toBe('/proc/rooted/root/x');
    expect(canon('relative/../x')).toBe('relative/../x');
    expect(canon('/')).toBe('/');
  });
});

describe('canonicalEvent', () => {
  const base: SysEvent = {
    seq: 1,
    ts: 0,
    pid: 7,
    ppid: 1,
    exe: '/usr/bin/head',
    kind: 'open',
    syscall: 'openat',
  };

  it('keeps the written path beside the canonical one, and the same object when nothing changes', () => {
    const e = { ...base, path: '/proc/self/root/etc/shadow' };
    expect(canonicalEvent(e, () => undefined)).toMatchObject({
      path: '/etc/shadow',
      path_as_written: '/proc/self/root/etc/shadow',
    });
    const plain = { ...base, path: '/etc/hosts' };
    expect(canonicalEvent(plain, () => undefined)).toBe(plain);
  });

  it("resolves the caller's own cwd from the event", () => {
    const e = { ...base, kind: 'exec' as const, path: '/proc/self/cwd/run.sh', cwd: '/srv' };
    expect(canonicalEvent(e, () => undefined).path).toBe('/srv/run.sh');
  });

  it("names the program an exec of /proc/<process>/exe runs: the kernel's, else the caller's or a known pid's", () => {
    const exeOf = (pid: number) => ({ 7: '/work/dl/mysh', 42: '/usr/bin/python3' })[pid];
    const exec = (path: string, extra: Partial<SysEvent> = {}) =>
      canonicalEvent({ ...base, kind: 'exec', syscall: 'execve', path, ...extra }, () => undefined, exeOf);
    expect(exec('/proc/self/exe')).toMatchObject({
      path: '/work/dl/mysh',
      path_as_written: '/proc/self/exe',
    });
    expect(exec('/proc/thread-self/exe').path).toBe('/work/dl/mysh');
    expect(exec('/proc/42/task/43/exe').path).toBe('/usr/bin/python3');
    // The collector's record of what the kernel ran wins, and is no interpreter of a script.
    const kernel = exec('/proc/9/exe', { interpreter: '/work/dl/other' });
    expect(kernel).toMatchObject({ path: '/work/dl/other', path_as_written: '/proc/9/exe' });
    expect(kernel.interpreter).toBeUndefined();
    // A pid the table does not know (the sandbox's own numbering) stays as written; an open is not an exec.
    expect(exec('/proc/9/exe').path).toBe('/proc/9/exe');
    const open = { ...base, path: '/proc/self/exe' };
    expect(canonicalEvent(open, () => undefined, exeOf)).toBe(open);
  });
});
