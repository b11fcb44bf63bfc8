/*
 * raw_syscalls: 32-bit system calls (compat-probes.ts), and the native calls whose own tracepoints
 * this kernel lacks (raw_calls). Included by agentguard.bpf.c.
 */
#ifndef AGENTGUARD_RAW_BPF_H
#define AGENTGUARD_RAW_BPF_H

/*
 * raw_syscalls fires for every system call on the host: the compat bit is tested first, by a
 * direct load through the task's BTF pointer, so a native call costs about nothing more.
 */
static __always_inline int compat_call(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	if (!bpf_core_field_exists(task->thread_info.status))
		return 0;
	return (task->thread_info.status & TS_COMPAT_BIT) != 0;
}

/* TRACED_CALLS index + 1 of a native call that raw_syscalls serves, else 0. */
static __always_inline __u32 raw_call(long nr)
{
	if (!raw_call_count || nr < 0 || nr >= RAW_CALL_SLOTS)
		return 0;
	__u32 key = nr;
	__u32 *index = bpf_map_lookup_elem(&raw_calls, &key);
	return index ? *index : 0;
}

SEC("tp/raw_syscalls/sys_enter")
int raw_enter(struct trace_event_raw_sys_enter *ctx)
{
	__u64 cgid;
	if (!compat_call()) {
		__u32 index = raw_call(ctx->id);
		if (index && traced(&cgid))
			enter_call(ctx, index - 1);
		return 0;
	}
	if (!traced(&cgid))
		return 0;
	__u32 tid = current_tid();
	long nr = ctx->id;
	struct args args;
	copy_args(ctx, &args);
	if (nr == I386_OPEN || nr == I386_CREAT || nr == I386_OPENAT) {
		struct sc_state st = {.code = CODE_IA32_OPEN, .npaths = 1, .opens = 1, .d2 = NO_WALK};
		if (nr == I386_OPENAT) {
			st.p1 = args.a[1];
			st.d1 = (__s32)args.a[0];
			st.fl = args.a[2];
		} else {
			st.p1 = args.a[0];
			st.d1 = AT_FDCWD_VALUE;
			st.fl = nr == I386_OPEN ? (__s64)args.a[1] : CREAT_FLAGS;
		}
		bpf_map_update_elem(&sc, &tid, &st, BPF_ANY);
	} else if (nr == I386_CONNECT) {
		struct net_state st = {.addr = args.a[1], .code = CODE_IA32_CONNECT};
		bpf_map_update_elem(&sa, &tid, &st, BPF_ANY);
	} else if (nr == I386_SOCKETCALL && args.a[0] == SYS_CONNECT_VALUE) {
		/* socketcall(SYS_CONNECT, args): args points to 32-bit words fd, addr, addrlen. */
		__u32 addr = 0;
		bpf_probe_read_user(&addr, sizeof(addr), (void *)args.a[1] + 4);
		struct net_state st = {.addr = addr, .code = CODE_IA32_CONNECT};
		bpf_map_update_elem(&sa, &tid, &st, BPF_ANY);
	}
	return 0;
}

SEC("tp/raw_syscalls/sys_exit")
int raw_exit(struct trace_event_raw_sys_exit *ctx)
{
	__u64 cgid;
	if (!compat_call()) {
		if (raw_call(ctx->id) && traced(&cgid))
			call_exit(cgid, ctx->ret);
		return 0;
	}
	if (!traced(&cgid))
		return 0;
	long nr = ctx->id;
	__u32 tid = current_tid();
	if (nr == I386_OPEN || nr == I386_CREAT || nr == I386_OPENAT) {
		struct sc_state *st = bpf_map_lookup_elem(&sc, &tid);
		if (st && st->code == CODE_IA32_OPEN)
			call_exit(cgid, ctx->ret);
		return 0;
	}
	if (nr == I386_CONNECT || nr == I386_SOCKETCALL) {
		net_exit(cgid, ctx->ret);
		return 0;
	}
	once_per_process(cgid, (__u32)nr | 0x80000000u, CODE_IA32_OTHER, ctx->ret, nr);
	return 0;
}

#endif
