import { describe, expect, it } from 'vitest';
import {
  NAMESPACE_SYSCALLS,
  REFUSED_SYSCALLS,
  SECCOMP_RULES,
  SECCOMP_SYSCALL_NUMBERS,
} from '../evidence/seccomp-policy.js';
import { AUDIT_ARCH_X86_64, type Insn, seccompProgram } from './seccomp-filter.js';
import { type OciSeccompProfile, seccompProfile } from './seccomp-profile.js';

/** A classic-BPF interpreter for the instructions seccomp.ts emits (ld abs, jeq, jset, ret). */
function runBpf(program: Insn[], data: { nr: number; arch: number; arg0: bigint }): number {
  let acc = 0;
  for (let pc = 0; pc < program.length; pc++) {
    const { code, jt, jf, k } = program[pc] as Insn;
    if (code === 0x20) {
      if (k === 0) acc = data.nr >>> 0;
      else if (k === 4) acc = data.arch >>> 0;
      else if (k === 16) acc = Number(data.arg0 & 0xffffffffn);
      else throw new Error(`load of offset ${k}`);
    } else if (code === 0x15) pc += acc === k >>> 0 ? jt : jf;
    else if (code === 0x45) pc += (acc & k) !== 0 ? jt : jf;
    else if (code === 0x06) return k >>> 0;
    else throw new Error(`opcode ${code}`);
  }
  throw new Error('the program ran off its end');
}

const NAMES: Record<number, string> = Object.fromEntries(
  Object.entries(SECCOMP_SYSCALL_NUMBERS).map(([name, nr]) => [nr, name]),
);

/** libseccomp's reading of the profile for a native call: the first entry naming it whose args all hold. */
function runProfile(profile: OciSeccompProfile, nr: number, arg0: bigint): number {
  const name = NAMES[nr];
  for (const entry of profile.syscalls) {
    if (!name || !entry.names.includes(name)) continue;
    const holds = (entry.args ?? []).every((a) => {
      expect(a.op).toBe('SCMP_CMP_MASKED_EQ');
      return (arg0 & BigInt(a.value)) === BigInt(a.valueTwo);
    });
    if (!holds) continue;
    if (entry.action === 'SCMP_ACT_ALLOW') return 0x7fff0000;
    if (entry.action === 'SCMP_ACT_TRACE') return 0x7ff00000;
    return (0x00050000 | (entry.errnoRet ?? 0)) >>> 0;
  }
  return 0x7fff0000;
}

/** Arguments that reach every branch: each flag alone, together, with high bits, every personality. */
function samples(): bigint[] {
  const values = new Set<bigint>([
    0n,
    1n,
    0x11n,
    0xffffffffn,
    0xfffffffen,
    0x1_0000_0000n,
    0xffff_ffff_ffff_ffffn,
  ]);
  for (let i = 0; i < 64; i++) values.add(1n << BigInt(i));
  for (const v of [
    0x8, 0x20000, 0x20008, 0x0400000, 0x0040000, 0x20009, 0xfffdfff7, 0xfffdffff, 0xfffffff7,
  ]) {
    values.add(BigInt(v));
    values.add(BigInt(v) | 0x1_0000_0000n);
  }
  // Socket families: AF_UNIX, AF_INET, AF_INET6, AF_NETLINK, AF_PACKET, AF_VSOCK (alone and with high bits).
  for (const v of [1, 2, 10, 16, 17, 40, 41]) {
    values.add(BigInt(v));
    values.add(BigInt(v) | 0x1_0000_0000n);
  }
  // SIGCHLD as fork passes it, with a namespace flag and without.
  for (const v of [0x11, 0x11 | 0x10000000, 0x01200011, 0x01200011 | 0x20000000]) values.add(BigInt(v));
  let seed = 12345;
  for (let i = 0; i < 200; i++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    values.add(BigInt(seed) * 3n);
  }
  return [...values];
}

describe('the seccomp policy, as BPF for bwrap and as an OCI profile for the container engines', () => {
  const program = seccompProgram();
  const profile = seccompProfile();

  it('gives every native call the same action both ways, whatever its first argument', () => {
    let compared = 0;
    for (let nr = 0; nr < 460; nr++) {
      for (const arg0 of samples()) {
        const bpf = runBpf(program, { nr, arch: AUDIT_ARCH_X86_64, arg0 });
        expect(
          runProfile(profile, nr, arg0),
          `call ${nr} (${NAMES[nr] ?? '?'}) arg0 ${arg0.toString(16)}`,
        ).toBe(bpf);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(100_000);
  });

  it('names each call in one rule only, so no engine has to choose between two actions', () => {
    const seen = new Map<string, string>();
    for (const entry of profile.syscalls) {
      const action = `${entry.action}/${entry.errnoRet ?? ''}`;
      for (const name of entry.names) {
        expect(seen.get(name) ?? action, name).toBe(action);
        seen.set(name, action);
      }
    }
    expect(SECCOMP_RULES.flatMap((r) => r.names).length).toBe(seen.size);
  });

  it('hands the keyring, namespaces, ptrace and perf_event_open to the tracer, and refuses io_uring', () => {
    const traced = (name: string) =>
      profile.syscalls.some((e) => e.names.includes(name) && e.action === 'SCMP_ACT_TRACE');
    for (const name of [
      'add_key',
      'keyctl',
      'request_key',
      'setns',
      'ptrace',
      'perf_event_open',
      'kexec_load',
    ])
      expect(traced(name), name).toBe(true);
    for (const name of Object.keys(NAMESPACE_SYSCALLS)) expect(traced(name), name).toBe(true);
    expect(Object.keys(REFUSED_SYSCALLS).every(traced)).toBe(true);
    const uring = profile.syscalls.find((e) => e.names.includes('io_uring_setup'));
    expect(uring).toMatchObject({ action: 'SCMP_ACT_ERRNO', errnoRet: 1 });
    expect(profile).toMatchObject({ defaultAction: 'SCMP_ACT_ALLOW', architectures: ['SCMP_ARCH_X86_64'] });
  });

  it('hands socket to the tracer for AF_VSOCK only, which no network namespace confines', () => {
    const socket = (family: bigint) => runBpf(program, { nr: 41, arch: AUDIT_ARCH_X86_64, arg0: family });
    expect(socket(40n)).toBe(0x7ff00000);
    expect(socket(40n | 0x1_0000_0000n)).toBe(0x7ff00000);
    for (const family of [1n, 2n, 10n, 16n, 17n, 39n, 41n]) expect(socket(family)).toBe(0x7fff0000);
    // The rules after it still apply.
    expect(runBpf(program, { nr: 135, arch: AUDIT_ARCH_X86_64, arg0: 0x0400000n })).toBe(0x7ff00000);
  });

  it('refuses a call of another ABI in the BPF program (the engines do it by architecture)', () => {
    expect(runBpf(program, { nr: 5, arch: 0x40000003, arg0: 0n })).toBe(0x00050000 | 38);
    expect(runBpf(program, { nr: 39 | 0x40000000, arch: AUDIT_ARCH_X86_64, arg0: 0n })).toBe(0x00050000 | 38);
  });

  it('a rule naming a call with no number is an error, not a silent gap', () => {
    expect(() => seccompProgram([{ names: ['no_such_call'], action: { kind: 'trace' } }])).toThrow(
      /no_such_call/,
    );
    expect(() => seccompProfile([{ names: ['no_such_call'], action: { kind: 'trace' } }])).toThrow(
      /no_such_call/,
    );
  });
});
