import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SECCOMP_REFUSED_NAMES } from '../../src/evidence/seccomp-policy.js';
import { CODE_SECCOMP_REFUSED } from '../../src/observe/ebpf/syscall-table.js';
import { ROOT } from '../e2e/exec-cli.js';

const header = readFileSync(path.join(ROOT, 'collector/refused.bpf.h'), 'utf8');

describe('collector/refused.bpf.h', () => {
  it('records exactly the calls the seccomp filter hands to the tracer', () => {
    const cases = [...header.matchAll(/case (\d+):/g)].map((m) => Number(m[1])).sort((a, b) => a - b);
    const refused = Object.keys(SECCOMP_REFUSED_NAMES)
      .map(Number)
      .sort((a, b) => a - b);
    expect(cases).toEqual(refused);
  });

  it('writes the code the normaliser reads', () => {
    expect(header).toContain(`#define CODE_SECCOMP_REFUSED ${CODE_SECCOMP_REFUSED}\n`);
  });
});
