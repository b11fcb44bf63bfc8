import { describe, expect, it } from 'vitest';
import { namespaceFlagNames, socketFlagNames } from './syscall-flags.js';

describe('raw flag numbers as the names strace prints', () => {
  it('names the namespace bits, and reads clone’s low byte as a signal, not CLONE_NEWTIME', () => {
    // unshare -Urm: CLONE_NEWUSER|CLONE_NEWNS; clone(..., CLONE_NEWPID|SIGCHLD).
    expect(namespaceFlagNames(0x10020000, 'unshare')).toEqual(['CLONE_NEWNS', 'CLONE_NEWUSER']);
    expect(namespaceFlagNames(0x20000000 | 17, 'clone')).toEqual(['CLONE_NEWPID']);
    expect(namespaceFlagNames(0x80, 'clone3')).toEqual(['CLONE_NEWTIME']);
    expect(namespaceFlagNames(0x80, 'clone')).toEqual([]);
  });

  it('names socket domains, types without SOCK_CLOEXEC/NONBLOCK, and ICMP', () => {
    expect(socketFlagNames(17, 3 | 0o2000000, 768)).toEqual(['AF_PACKET', 'SOCK_RAW']);
    expect(socketFlagNames(2, 2, 1)).toEqual(['AF_INET', 'SOCK_DGRAM', 'IPPROTO_ICMP']);
    expect(socketFlagNames(42, 1, 0)).toEqual(['42', 'SOCK_STREAM']);
  });
});
