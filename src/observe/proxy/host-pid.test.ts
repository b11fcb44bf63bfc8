import { readlinkSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hostPidOf, isOwnNamespace } from './host-pid.js';
import { processStart } from './socket-owner.js';

describe('hostPidOf', () => {
  const own = readlinkSync('/proc/self/ns/pid');
  const start = processStart(process.pid);

  it("takes a pid named in the harness's own PID namespace as the host pid (a bridge outside the sandbox's)", () => {
    expect(isOwnNamespace(own)).toBe(true);
    expect(hostPidOf(own, process.pid, start)).toBe(process.pid);
    expect(hostPidOf(own, process.pid, undefined)).toBe(process.pid);
  });

  it('refuses that pid when its start time says it is another process now', () => {
    expect(hostPidOf(own, process.pid, (start ?? 0) + 1)).toBeUndefined();
  });

  it('finds nothing in a namespace no process of this host is in', () => {
    expect(isOwnNamespace('pid:[4026599999]')).toBe(false);
    expect(hostPidOf('pid:[4026599999]', 1, undefined)).toBeUndefined();
  });
});
