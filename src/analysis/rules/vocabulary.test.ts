import { describe, expect, it } from 'vitest';
import { accessor } from './frame.js';
import { FIELDS, fieldSpec, SYSCALL_KIND } from './vocabulary.js';

describe('vocabulary', () => {
  it('every field has an accessor, including indexed argv', () => {
    for (const name of [...Object.keys(FIELDS), 'argv[0]', 'argv[12]'])
      expect(() => accessor(name), name).not.toThrow();
    expect(fieldSpec('argv[x]')).toBeUndefined();
  });

  it('every syscall the tracers emit has a kind', () => {
    for (const s of [
      'execve',
      'openat',
      'openat2',
      'renameat2',
      'fchmodat',
      'symlinkat',
      'connect',
      'sendto',
      'setresuid',
      'finit_module',
      'bpf',
      'vfork',
      'clone3',
      'exit',
    ]) {
      expect(SYSCALL_KIND[s], s).toBeDefined();
    }
  });
});
