import {
  allowedValues,
  ENOSYS,
  SECCOMP_RULES,
  SECCOMP_SYSCALL_NUMBERS,
  type SeccompAction,
  type SeccompRule,
} from '../evidence/seccomp-policy.js';

/*
 * The seccomp policy (evidence/seccomp-policy.ts) as the classic-BPF program bwrap reads raw
 * (`bwrap --seccomp FD`); seccomp-profile.ts writes the same policy as the container engines' JSON.
 */

// linux/audit.h: EM_X86_64 | __AUDIT_ARCH_64BIT | __AUDIT_ARCH_LE. i386 `int $0x80` calls arrive as
// AUDIT_ARCH_I386 (0x40000003), so they fail the arch test.
export const AUDIT_ARCH_X86_64 = 0xc000003e;
/** x32 syscalls keep the x86_64 arch and set this bit in the number. */
const X32_SYSCALL_BIT = 0x40000000;

// linux/filter.h and linux/seccomp.h
const BPF_LD_W_ABS = 0x20; // BPF_LD | BPF_W | BPF_ABS
const BPF_JMP_JEQ_K = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const BPF_JMP_JSET_K = 0x45; // BPF_JMP | BPF_JSET | BPF_K
const BPF_RET_K = 0x06; // BPF_RET | BPF_K
const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;
const SECCOMP_RET_TRACE = 0x7ff00000;
// struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6];
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;

export type Insn = { code: number; jt: number; jf: number; k: number };

const ld = (offset: number): Insn => ({ code: BPF_LD_W_ABS, jt: 0, jf: 0, k: offset });
const ret = (k: number): Insn => ({ code: BPF_RET_K, jt: 0, jf: 0, k });

const actionK = (a: SeccompAction): number =>
  a.kind === 'allow'
    ? SECCOMP_RET_ALLOW
    : a.kind === 'trace'
      ? SECCOMP_RET_TRACE
      : SECCOMP_RET_ERRNO | a.errno;
const orBits = (bits: readonly number[]) => bits.reduce((m, b) => (m | b) >>> 0, 0);

// The low 32 bits of args[0] (little-endian).
const OFFSET_ARG0 = 16;

const jeq = (k: number, jt: number, jf: number): Insn => ({ code: BPF_JMP_JEQ_K, jt, jf, k });

/** One rule for one call number: the accumulator holds the number; each path ends in a return. */
function ruleInsns(nr: number, rule: SeccompRule): Insn[] {
  const k = actionK(rule.action);
  const when = rule.when;
  if (!when) return [jeq(nr, 0, 1), ret(k)];
  // An argument test ends in a return either way: the accumulator no longer holds the number after it.
  if (when.kind === 'arg0-any-bit') {
    return [
      jeq(nr, 0, 4),
      ld(OFFSET_ARG0),
      { code: BPF_JMP_JSET_K, jt: 0, jf: 1, k: orBits(when.bits) },
      ret(k),
      ret(SECCOMP_RET_ALLOW),
    ];
  }
  if (when.kind === 'arg0-one-of') {
    const n = when.values.length;
    return [
      jeq(nr, 0, n + 3),
      ld(OFFSET_ARG0),
      ...when.values.map((v, i) => jeq(v >>> 0, n - i, 0)),
      ret(SECCOMP_RET_ALLOW),
      ret(k),
    ];
  }
  const allowed = allowedValues(when);
  const n = allowed.length;
  return [
    jeq(nr, 0, n + 2),
    ld(OFFSET_ARG0),
    ...allowed.map((v, i) => jeq(v >>> 0, n - i, 0)),
    ret(k),
    ret(SECCOMP_RET_ALLOW),
  ];
}

/** The filter as instructions; the jump offsets count instructions skipped after the jump. */
export function seccompProgram(rules: readonly SeccompRule[] = SECCOMP_RULES): Insn[] {
  const program: Insn[] = [
    ld(OFFSET_ARCH),
    jeq(AUDIT_ARCH_X86_64, 1, 0),
    ret(SECCOMP_RET_ERRNO | ENOSYS),
    ld(OFFSET_NR),
    { code: BPF_JMP_JSET_K, jt: 0, jf: 1, k: X32_SYSCALL_BIT },
    ret(SECCOMP_RET_ERRNO | ENOSYS),
  ];
  for (const rule of rules) {
    for (const name of rule.names) {
      const nr = SECCOMP_SYSCALL_NUMBERS[name];
      if (nr === undefined) throw new Error(`seccomp rule names '${name}', which has no x86_64 number here`);
      program.push(...ruleInsns(nr, rule));
    }
  }
  program.push(ret(SECCOMP_RET_ALLOW));
  return program;
}

/** The raw `struct sock_filter` array (u16 code, u8 jt, u8 jf, u32 k; host byte order, little-endian here). */
export function seccompBytes(program: Insn[] = seccompProgram()): Buffer {
  const buf = Buffer.alloc(program.length * 8);
  program.forEach((insn, i) => {
    buf.writeUInt16LE(insn.code, i * 8);
    buf.writeUInt8(insn.jt, i * 8 + 2);
    buf.writeUInt8(insn.jf, i * 8 + 3);
    buf.writeUInt32LE(insn.k >>> 0, i * 8 + 4);
  });
  return buf;
}

/** The filter is written for x86_64 only; elsewhere the sandbox runs without it and says so. */
export function seccompSupported(arch: string = process.arch): boolean {
  return arch === 'x64';
}
