import { describe, expect, it } from 'vitest';
import { rootBaseName, rootFileName } from './root-files.js';

describe('per-command tracer files', () => {
  it('numbers later commands before the extension, and maps them back', () => {
    expect(rootFileName('strace.log', 0)).toBe('strace.log');
    expect(rootFileName('strace.log', 1)).toBe('strace.1.log');
    expect(rootFileName('ebpf-raw.jsonl', 2)).toBe('ebpf-raw.2.jsonl');
    for (const base of ['strace.log', 'ebpf-raw.jsonl'])
      for (const n of [0, 1, 12]) expect(rootBaseName(rootFileName(base, n))).toBe(base);
  });
});
