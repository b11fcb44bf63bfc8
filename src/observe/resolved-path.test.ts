import { describe, expect, it } from 'vitest';
import { DescriptorTable, judgedPath, throughDescriptor, userDev } from './resolved-path.js';

describe('judgedPath', () => {
  it('judges by what the kernel resolved and keeps what was written', () => {
    expect(judgedPath('/tmp/l/../../.ssh/id_rsa', '/root/.ssh/id_rsa')).toEqual({
      path: '/root/.ssh/id_rsa',
      path_as_written: '/tmp/l/../../.ssh/id_rsa',
    });
    expect(judgedPath('/etc/hosts', '/etc/hosts')).toEqual({ path: '/etc/hosts' });
    expect(judgedPath(undefined, '/x')).toEqual({ path: '/x' });
  });

  it('keeps the written path when the kernel named no file of the tree, or the own procfs entry', () => {
    expect(judgedPath('/dev/stdout', 'pipe:[123]')).toEqual({ path: '/dev/stdout' });
    expect(judgedPath('/proc/self/fd/3', '/memfd:x (deleted)')).toEqual({ path: '/proc/self/fd/3' });
    expect(judgedPath('/proc/self/status', '/proc/7/status')).toEqual({ path: '/proc/self/status' });
    expect(judgedPath('/proc/self/fd/3/.env', '/proc/7/environ')).toEqual({ path: '/proc/self/fd/3/.env' });
    // Another process's entry written by pid is judged by what it resolved to.
    expect(judgedPath('/proc/7/cwd/.env', '/root/.env')).toEqual({
      path: '/root/.env',
      path_as_written: '/proc/7/cwd/.env',
    });
    expect(judgedPath('/x', '…/d/x')).toEqual({ path: '/x' });
  });
});

describe('throughDescriptor and DescriptorTable', () => {
  it('parses every spelling of a descriptor path, and only the caller own pid', () => {
    expect(throughDescriptor('/dev/fd/3/id_rsa')).toEqual({ fd: 3, rest: '/id_rsa' });
    expect(throughDescriptor('/proc/self/fd/10')).toEqual({ fd: 10, rest: '' });
    expect(throughDescriptor('/proc/thread-self/fd/4/a/b')).toEqual({ fd: 4, rest: '/a/b' });
    expect(throughDescriptor('/proc/42/fd/4/a', 42)).toEqual({ fd: 4, rest: '/a' });
    expect(throughDescriptor('/proc/43/fd/4/a', 42)).toBeNull();
    expect(throughDescriptor('/proc/self/fdinfo/4')).toBeNull();
  });

  it('resolves through what an open returned, inherited by a copy, cut by exec to the non-cloexec ones', () => {
    const table = new DescriptorTable();
    table.set(3, '/root/.ssh', false);
    table.set(4, '/root/.aws', true);
    table.set(5, 'pipe:[1]', false);
    expect(table.resolve('/proc/self/fd/3/id_rsa')).toBe('/root/.ssh/id_rsa');
    expect(table.resolve('/dev/fd/3/../.bashrc')).toBe('/root/.bashrc');
    expect(table.resolve('/dev/fd/5')).toBeUndefined();
    const child = new DescriptorTable(table);
    child.exec();
    expect(child.resolve('/dev/fd/4/credentials')).toBeUndefined();
    expect(child.resolve('/dev/fd/3')).toBe('/root/.ssh');
    expect(table.resolve('/dev/fd/4/credentials')).toBe('/root/.aws/credentials');
  });
});

describe('userDev', () => {
  it('encodes the kernel dev_t as stat() reports it', () => {
    expect(userDev(8 * 2 ** 20 + 1)).toBe(0x801);
    expect(userDev(259 * 2 ** 20 + 0x1234)).toBe((0x34 | (259 << 8)) + 0x12 * 2 ** 20);
  });
});
