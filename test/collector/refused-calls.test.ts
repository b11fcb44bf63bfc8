import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLONE3_SYSCALL, SECCOMP_REFUSED_NAMES } from '../../src/evidence/seccomp-policy.js';
import { namespaceFlagNames } from '../../src/evidence/syscall-flags.js';
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

  it("reads clone3's flags by the number the normaliser names, for every CLONE_NEW* bit", () => {
    expect(header).toContain(`#define CLONE3_NR ${CLONE3_SYSCALL.clone3}\n`);
    const bits = /#define CLONE_NEW_BITS (0x[0-9a-f]+)ULL/.exec(header)?.[1];
    // Every namespace flag clone3 can carry, CLONE_NEWTIME included, and nothing else (8 bits).
    expect(namespaceFlagNames(Number(bits), 'clone3')).toHaveLength(8);
    expect(Number(bits).toString(2).replace(/0/g, '')).toHaveLength(8);
  });
});
