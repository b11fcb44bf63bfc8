/**
 * A classic-BPF seccomp program for the bwrap sandbox (`bwrap --seccomp FD` reads it raw). It closes
 * two ways of doing file and system work that the syscall tracers' 64-bit tracepoints do not see:
 * io_uring (IORING_OP_OPENAT/READ open and read files with no openat call) and syscalls made through
 * another ABI (`int $0x80` i386 calls, x32 calls). Everything else is allowed: the sandbox's mounts,
 * not this filter, decide what the agent may touch.
 */

// linux/audit.h: EM_X86_64 | __AUDIT_ARCH_64BIT | __AUDIT_ARCH_LE. i386 `int $0x80` calls arrive as
// AUDIT_ARCH_I386 (0x40000003), so they fail the arch test.
export const AUDIT_ARCH_X86_64 = 0xc000003e;
/** x32 syscalls keep the x86_64 arch and set this bit in the number. */
const X32_SYSCALL_BIT = 0x40000000;
/** x86_64 numbers (also the same on every arch since 5.1: they are from the unified table). */
export const IO_URING_SYSCALLS = {
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
} as const;

const ENOSYS = 38;
const EPERM = 1;

// linux/filter.h and linux/seccomp.h
const BPF_LD_W_ABS = 0x20; // BPF_LD | BPF_W | BPF_ABS
const BPF_JMP_JEQ_K = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const BPF_JMP_JSET_K = 0x45; // BPF_JMP | BPF_JSET | BPF_K
const BPF_RET_K = 0x06; // BPF_RET | BPF_K
const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;
// struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6];
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;

type Insn = { code: number; jt: number; jf: number; k: number };

const ld = (offset: number): Insn => ({ code: BPF_LD_W_ABS, jt: 0, jf: 0, k: offset });
const ret = (k: number): Insn => ({ code: BPF_RET_K, jt: 0, jf: 0, k });

/** What the filter does, for observation.json. */
export const SECCOMP_FACT = 'io_uring and non-native syscalls blocked';

/** The filter as instructions; the jump offsets count instructions skipped after the jump. */
export function seccompProgram(): Insn[] {
  const { io_uring_setup: setup, io_uring_enter: enter, io_uring_register: register } = IO_URING_SYSCALLS;
  return [
    ld(OFFSET_ARCH),
    { code: BPF_JMP_JEQ_K, jt: 1, jf: 0, k: AUDIT_ARCH_X86_64 },
    ret(SECCOMP_RET_ERRNO | ENOSYS),
    ld(OFFSET_NR),
    { code: BPF_JMP_JSET_K, jt: 0, jf: 1, k: X32_SYSCALL_BIT },
    ret(SECCOMP_RET_ERRNO | ENOSYS),
    { code: BPF_JMP_JEQ_K, jt: 2, jf: 0, k: setup },
    { code: BPF_JMP_JEQ_K, jt: 1, jf: 0, k: enter },
    { code: BPF_JMP_JEQ_K, jt: 0, jf: 1, k: register },
    ret(SECCOMP_RET_ERRNO | EPERM),
    ret(SECCOMP_RET_ALLOW),
  ];
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
