import {
  SECCOMP_RULES,
  SECCOMP_SYSCALL_NUMBERS,
  type SeccompAction,
  type SeccompCondition,
  type SeccompRule,
} from '../evidence/seccomp-policy.js';

/** One condition on a call's argument, as the OCI runtime spec and Docker's profile format write it. */
export type OciSeccompArg = { index: number; value: number; valueTwo: number; op: 'SCMP_CMP_MASKED_EQ' };
export type OciSeccompSyscall = {
  names: string[];
  action: 'SCMP_ACT_ALLOW' | 'SCMP_ACT_TRACE' | 'SCMP_ACT_ERRNO';
  errnoRet?: number;
  /** All must hold (AND); separate entries for one call are alternatives (OR). */
  args?: OciSeccompArg[];
};
/** The profile `docker|podman run --security-opt seccomp=FILE` reads. */
export type OciSeccompProfile = {
  defaultAction: 'SCMP_ACT_ALLOW';
  architectures: string[];
  syscalls: OciSeccompSyscall[];
};

const LOW_32 = 0xffffffff;

function ociAction(a: SeccompAction): Pick<OciSeccompSyscall, 'action' | 'errnoRet'> {
  if (a.kind === 'allow') return { action: 'SCMP_ACT_ALLOW' };
  if (a.kind === 'trace') return { action: 'SCMP_ACT_TRACE' };
  return { action: 'SCMP_ACT_ERRNO', errnoRet: a.errno };
}

const masked = (mask: number, value: number): OciSeccompArg => ({
  index: 0,
  value: mask >>> 0,
  valueTwo: value >>> 0,
  op: 'SCMP_CMP_MASKED_EQ',
});

const bitsOf = (mask: number): number[] => {
  const bits: number[] = [];
  for (let i = 0; i < 32; i++) if ((mask >>> i) & 1) bits.push((1 << i) >>> 0);
  return bits;
};

/**
 * A condition as alternatives of masked compares (the profile format has no "not equal" and no "any
 * bit of"). Every mask is below 2^32, so only the low 32 bits are compared, as the BPF program does.
 */
function alternatives(when: SeccompCondition): OciSeccompArg[] {
  if (when.kind === 'arg0-any-bit') return when.bits.map((bit) => masked(bit, bit));
  if (when.kind === 'arg0-one-of') return when.values.map((v) => masked(LOW_32, v));
  // A value is refused when it has a bit outside the flags and is not the all-ones query. Outside the
  // flags the bits are neither all clear nor all set, so going round them some set bit is followed by
  // a clear one; or they are all set and one of the flags is clear.
  if (when.except !== LOW_32) {
    throw new Error('arg0-outside-flags is written for an all-ones exception (the personality query)');
  }
  const flags = when.flags.reduce((m, f) => (m | f) >>> 0, 0);
  const outside = (~flags & LOW_32) >>> 0;
  const ring = bitsOf(outside);
  const pairs = ring.map((bit, i) => {
    const next = ring[(i + 1) % ring.length] as number;
    return masked(bit | next, bit);
  });
  return [...pairs, ...bitsOf(flags).map((flag) => masked(outside | flag, outside))];
}

function ociEntries(rule: SeccompRule): OciSeccompSyscall[] {
  for (const name of rule.names) {
    if (SECCOMP_SYSCALL_NUMBERS[name] === undefined) throw new Error(`seccomp rule names unknown '${name}'`);
  }
  const base = { names: [...rule.names], ...ociAction(rule.action) };
  if (!rule.when) return [base];
  return alternatives(rule.when).map((arg) => ({ ...base, args: [arg] }));
}

/**
 * The seccomp policy of seccomp.ts as an OCI/Docker JSON profile: the same calls, the same actions
 * (SCMP_ACT_TRACE: with no ptrace tracer the kernel fails the call with ENOSYS, which the collector
 * records at raw_syscalls:sys_exit, as under bwrap). Only x86_64 is listed: the runtime refuses a call
 * of another ABI (i386 `int $0x80`, x32) with its bad-architecture action.
 */
export function seccompProfile(rules: readonly SeccompRule[] = SECCOMP_RULES): OciSeccompProfile {
  return {
    defaultAction: 'SCMP_ACT_ALLOW',
    architectures: ['SCMP_ARCH_X86_64'],
    syscalls: rules.flatMap(ociEntries),
  };
}
