/*
 * Calls the sandboxes' seccomp filter refuses with SECCOMP_RET_TRACE (src/evidence/seccomp-policy.ts:
 * SECCOMP_TRACED_NAMES, whatever argument test the rule makes): with no ptrace tracer the kernel
 * skips them with -ENOSYS. seccomp runs before the sys_enter tracepoints, so a refused call never reaches the probes
 * of calls.bpf.h; raw_syscalls:sys_exit still fires. These calls exist on every kernel the collector
 * runs on, so ENOSYS from one of them is the filter's. One CALL
 * record per process and call number (CODE_SECCOMP_REFUSED, the number in the flags word), enough
 * for the rules. test/collector/refused-calls.test.ts keeps this list equal to seccomp-policy.ts's.
 * Included by agentguard.bpf.c.
 */
#ifndef AGENTGUARD_REFUSED_BPF_H
#define AGENTGUARD_REFUSED_BPF_H

#define CODE_SECCOMP_REFUSED 11
#define ENOSYS_VALUE 38
/* Kept apart from the i386 (bit 31) and io_uring keys of `seen`. */
#define REFUSED_KEY_BIT 0x40000000u

static __always_inline int seccomp_refused_call(long nr)
{
	switch (nr) {
	/* REFUSED_SYSCALLS */
	case 101: case 103: case 134: case 136: case 139: case 153: case 156: case 163: case 164:
	case 167: case 168: case 169: case 172: case 173: case 174: case 177: case 178: case 179:
	case 180: case 212: case 227: case 246: case 248: case 249: case 250: case 298: case 304:
	case 308: case 320: case 323:
	/* the new mount API and kcmp */
	case 312: case 428: case 429: case 430: case 431: case 432: case 433: case 442:
	/* NAMESPACE_SYSCALLS: refused only with a CLONE_NEW* flag */
	case 56: case 272:
	/* SOCKET_SYSCALLS: refused only for a family no network namespace confines (AF_VSOCK) */
	case 41:
	/* personality: refused only for an unusual value (READ_IMPLIES_EXEC, ADDR_NO_RANDOMIZE, ...) */
	case 135:
		return 1;
	default:
		return 0;
	}
}

/*
 * clone3 is refused with ENOSYS whatever it asks (its flags are in memory the filter cannot read),
 * so that libc falls back to clone: one asking for a new namespace is recorded from its clone_args,
 * as a refused clone is (seccomp.ts CLONE3_SYSCALL). The arguments are still in the saved
 * registers at exit: the call never ran.
 */
#define CLONE3_NR 435
/* CLONE_NEWTIME | NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET */
#define CLONE_NEW_BITS 0x7e020080ULL

static __always_inline int clone3_asks_namespace(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	__u64 args = BPF_CORE_READ(regs, di);
	__u64 flags = 0;
	if (!args || bpf_probe_read_user(&flags, sizeof(flags), (const void *)args))
		return 0;
	return (flags & CLONE_NEW_BITS) != 0;
}

SEC("tp/raw_syscalls/sys_exit")
int seccomp_refused(struct trace_event_raw_sys_exit *ctx)
{
	__u64 cgid;
	long nr = ctx->id;
	if (ctx->ret != -ENOSYS_VALUE || compat_call())
		return 0;
	if (nr == CLONE3_NR) {
		if (!traced(&cgid) || !clone3_asks_namespace())
			return 0;
	} else if (!seccomp_refused_call(nr) || !traced(&cgid)) {
		return 0;
	}
	once_per_process(cgid, (__u32)nr | REFUSED_KEY_BIT, CODE_SECCOMP_REFUSED, ctx->ret, nr);
	return 0;
}

#endif
