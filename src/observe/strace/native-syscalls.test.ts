import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compatPersonality, X86_64_SYSCALL_NUMBERS } from './native-syscalls.js';
import { TRACED_SYSCALLS } from './syscall-events.js';

const HEADER = '/usr/include/x86_64-linux-gnu/asm/unistd_64.h';

describe('x86_64 syscall numbers', () => {
  it('name every traced call but the i386-only socketcall', () => {
    const names = TRACED_SYSCALLS.map((n) => n.replace(/^\?/, '')).filter((n) => n !== 'socketcall');
    for (const name of names) expect(X86_64_SYSCALL_NUMBERS, name).toHaveProperty(name);
  });

  it.skipIf(!existsSync(HEADER))('agree with the system header', () => {
    const header = readFileSync(HEADER, 'utf8');
    let checked = 0;
    for (const [name, nr] of Object.entries(X86_64_SYSCALL_NUMBERS)) {
      const defined = new RegExp(`#define __NR_${name} (\\d+)\\b`).exec(header)?.[1];
      // Debian 12's header predates fchmodat2 (6.6).
      if (defined === undefined) continue;
      expect(defined, name).toBe(String(nr));
      checked++;
    }
    expect(checked).toBeGreaterThan(40);
  });

  it('tell 32-bit calls from native ones', () => {
    expect(compatPersonality('open', 2, X86_64_SYSCALL_NUMBERS)).toBeUndefined();
    expect(compatPersonality('open', 5, X86_64_SYSCALL_NUMBERS)).toBe('ia32');
    expect(compatPersonality('socketcall', 102, X86_64_SYSCALL_NUMBERS)).toBe('ia32');
    expect(compatPersonality('openat', 0x40000101, X86_64_SYSCALL_NUMBERS)).toBe('x32');
  });
});
