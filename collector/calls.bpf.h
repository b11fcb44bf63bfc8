/* The TRACED_CALLS probes: one sys_enter and one sys_exit program for every call in syscalls.h. Included by agentguard.bpf.c. */
#ifndef AGENTGUARD_CALLS_BPF_H
#define AGENTGUARD_CALLS_BPF_H

/*
 * The six argument words, copied out of the context: the verifier refuses a variable ctx offset,
 * and one program serves tracepoints of fewer arguments, whose records a direct load of args[5]
 * would overrun (perf refuses to attach a program reading past a tracepoint's record).
 */
struct args {
	__u64 a[6];
};

static __always_inline void copy_args(struct trace_event_raw_sys_enter *ctx, struct args *out)
{
	if (bpf_probe_read_kernel(out->a, sizeof(out->a), (void *)ctx + offsetof(struct trace_event_raw_sys_enter, args)))
		__builtin_memset(out->a, 0, sizeof(out->a));
}

static __always_inline __u64 arg(struct args *args, int index)
{
	if (index < 0 || index > 5)
		return 0;
	return args->a[index];
}

static __always_inline __s64 dirfd_of(struct args *ctx, int index)
{
	if (index == DIRFD_AT_FDCWD)
		return AT_FDCWD_VALUE;
	if (index == DIRFD_NO_WALK)
		return NO_WALK;
	return (__s64)(__s32)arg(ctx, index);
}

/* The caller's process id as its own pid namespace numbers it (what it names itself by). */
static __always_inline __u32 own_ns_tgid(void)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct pid *pid = BPF_CORE_READ(task, group_leader, thread_pid);
	if (!pid)
		return 0;
	unsigned int level = BPF_CORE_READ(pid, level);
	struct upid up = {};
	bpf_probe_read_kernel(&up, sizeof(up),
			      (void *)pid + bpf_core_field_offset(struct pid, numbers) +
				      (__u64)(level & 31) * bpf_core_type_size(struct upid));
	return up.nr;
}

/* The sys_enter of TRACED_CALLS[index]: its arguments remembered for the exit (sc). */
static __always_inline void enter_call(struct trace_event_raw_sys_enter *ctx, __u32 index)
{
	struct call_desc *call = bpf_map_lookup_elem(&calls, &index);
	if (!call)
		return;
	struct args args;
	copy_args(ctx, &args);
	if (call->when_arg >= 0) {
		__s64 v = (__s32)arg(&args, call->when_arg);
		if (v != call->when_a && v != call->when_b)
			return;
	}
	struct sc_state st = {
		.code = call->code, .npaths = call->npaths, .opens = call->opens, .d1 = NO_WALK, .d2 = NO_WALK};
	if (call->p1 >= 0) {
		st.p1 = arg(&args, call->p1);
		st.d1 = dirfd_of(&args, call->d1);
	} else if (call->d1 >= 0) {
		/* The descriptor's own file is the path (fchmod); a negative fd is not walked. */
		__s64 fd = (__s32)arg(&args, call->d1);
		st.d1 = fd < 0 ? NO_WALK : fd;
	}
	if (call->p2 >= 0) {
		st.p2 = arg(&args, call->p2);
		st.d2 = dirfd_of(&args, call->d2);
	}
	switch (call->flags_kind) {
	case FLAGS_INT_ARG:
		/* bpftrace 0.17 reads an `int` tracepoint field zero-extended. */
		st.fl = (__u32)arg(&args, call->flags_arg);
		break;
	case FLAGS_CONST:
		st.fl = call->flags_const;
		break;
	case FLAGS_OPEN_HOW: {
		struct open_how *how = (struct open_how *)arg(&args, call->flags_arg);
		__u64 flags = 0;
		bpf_probe_read_user(&flags, sizeof(flags), &how->flags);
		st.fl = flags;
		break;
	}
	case FLAGS_TARGET: {
		__u32 target = (__u32)arg(&args, call->flags_arg);
		st.fl = (__s64)(target | TARGET_SELF_KNOWN | (target == own_ns_tgid() ? TARGET_SELF : 0));
		break;
	}
	case FLAGS_MOVES_DIRECTORIES:
		st.fl = FLAG_MOVES_DIRECTORIES;
		break;
	case FLAGS_SOCKET:
		/* family | type's low byte << 16 | protocol << 24, as the script packs them. */
		st.fl = (__s64)((arg(&args, 0) & 0xffff) | ((arg(&args, 1) & 0xff) << 16) |
				((arg(&args, 2) & 0xffff) << 24));
		break;
	}
	__u32 tid = current_tid();
	bpf_map_update_elem(&sc, &tid, &st, BPF_ANY);
}

SEC("tracepoint")
int sys_enter_call(struct trace_event_raw_sys_enter *ctx)
{
	__u64 cgid;
	if (!traced(&cgid))
		return 0;
	enter_call(ctx, bpf_get_attach_cookie(ctx));
	return 0;
}

/* One path's strings and walk at sys_exit: chunks (the first rides in the CALL when `first` is 0). */
static __always_inline void path_strings(struct scratch *sb, int which, __u64 cgid, __u32 tid, __u64 t,
					 __u64 p, __s64 dfd, __u32 slot, __u32 walk_slot, int first,
					 __s64 *result, __s64 *dirid)
{
	if (p == 0)
		return;
	chunked(sb, which, cgid, tid, slot, t, (const void *)p, SRC_USER, first);
	/* '/': only a relative path needs its base directory. */
	if (dfd != NO_WALK && sb->path[which & 1][0] != '/')
		walk(cgid, tid, t, dfd, walk_slot, result, dirid);
}

static __always_inline void call_exit(__u64 cgid, __s64 ret)
{
	__u32 tid = current_tid();
	struct sc_state *found = bpf_map_lookup_elem(&sc, &tid);
	if (!found)
		return;
	struct sc_state st = *found;
	bpf_map_delete_elem(&sc, &tid);
	__u32 zero = 0;
	struct scratch *sb = bpf_map_lookup_elem(&scratch, &zero);
	if (!sb)
		return;
	__u64 t = bpf_ktime_get_ns();
	__s64 w1 = WALK_NONE, w2 = WALK_NONE, s1 = 0, s2 = 0;
	sb->path[0][0] = 0;
	if (st.npaths >= 1)
		path_strings(sb, 0, cgid, tid, t, st.p1, st.d1, SLOT_PATH, SLOT_WALK1, 0, &w1, &s1);
	if (st.npaths >= 2)
		path_strings(sb, 1, cgid, tid, t, st.p2, st.d2, SLOT_PATH2, SLOT_WALK2, 1, &w2, &s2);
	/* No path string, a descriptor: the walk of its own file (fchmod). */
	if (st.npaths == 0 && st.d1 >= 0)
		walk(cgid, tid, t, st.d1, SLOT_WALK1, &w1, &s1);
	/* An open that succeeded: the file the kernel opened, whatever path reached it (walk2 is free). */
	struct resolved res = {.walk = WALK_NONE};
	if (st.opens && ret >= 0) {
		walk_file(cgid, tid, t, fd_file(ret), &res, 1);
		w2 = res.walk;
		s2 = res.dir;
	}
	struct rec_call *r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);
	if (r) {
		r->h.cgid = cgid;
		r->h.type = REC_CALL;
		r->v[0] = tid;
		r->v[1] = t;
		r->v[2] = current_pid();
		r->v[3] = current_ppid();
		r->v[4] = st.code;
		r->v[5] = ret;
		r->v[6] = st.fl;
		r->v[7] = w1;
		r->v[8] = w2;
		r->v[9] = s1;
		r->v[10] = s2;
		r->v[11] = res.ino;
		r->v[12] = res.dev;
		/* The first path's first chunk rides in the CALL itself (record-format.ts). */
		if (st.npaths >= 1) {
			if (bpf_probe_read_kernel_str(r->s, STRLEN, sb->path[0]) < 0)
				r->s[0] = 0;
		} else {
			bpf_get_current_comm(r->s, COMM_LEN);
		}
		bpf_ringbuf_submit(r, wake_flags());
	} else {
		count_lost(cgid);
	}
	/* Directory paths may have changed: remembered walks are stale. */
	if (st.fl == FLAG_MOVES_DIRECTORIES) {
		__u64 *gen = bpf_map_lookup_elem(&gens, &cgid);
		if (gen)
			__sync_fetch_and_add(gen, 1);
	}
}

SEC("tracepoint")
int sys_exit_call(struct trace_event_raw_sys_exit *ctx)
{
	__u64 cgid;
	if (!traced(&cgid))
		return 0;
	call_exit(cgid, ctx->ret);
	return 0;
}

#endif
