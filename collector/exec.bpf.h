/* Exec with argv, successful and failed (process-probes.ts execBlocks). Included by agentguard.bpf.c. */
#ifndef AGENTGUARD_EXEC_BPF_H
#define AGENTGUARD_EXEC_BPF_H

/* argv is read at entry, from the caller's memory: the argv the caller asked for. */
static __always_inline void exec_enter(struct trace_event_raw_sys_enter *ctx, __s64 code, __u64 filename,
				       const char *const *argv, __s64 dirfd)
{
	__u64 cgid;
	if (!traced(&cgid))
		return;
	__u32 tid = current_tid();
	__u64 t = bpf_ktime_get_ns();
	struct exec_state st = {.code = code, .filename = filename, .dirfd = dirfd};
	__s64 argc = 0;
	if (argv) {
		for (int i = 0; i <= MAX_ARGV; i++) {
			const char *a = NULL;
			bpf_probe_read_user(&a, sizeof(a), argv + i);
			if (!a)
				break;
			if (i < MAX_ARGV)
				part(cgid, part_key(tid, SLOT_ARGV + i, 0), t, a, STRLEN, SRC_USER);
			argc = i + 1;
		}
	}
	st.argc = argc;
	bpf_map_update_elem(&ex, &tid, &st, BPF_ANY);
}

SEC("tp/syscalls/sys_enter_execve")
int enter_execve(struct trace_event_raw_sys_enter *ctx)
{
	exec_enter(ctx, CODE_EXECVE, ctx->args[0], (const char *const *)ctx->args[1], AT_FDCWD_VALUE);
	return 0;
}

SEC("tp/syscalls/sys_enter_execveat")
int enter_execveat(struct trace_event_raw_sys_enter *ctx)
{
	exec_enter(ctx, CODE_EXECVEAT, ctx->args[1], (const char *const *)ctx->args[2], (__s32)ctx->args[0]);
	return 0;
}

/* "memfd:" as the low six bytes of a little-endian word. */
#define MEMFD_PREFIX 0x3a64666d656dULL
#define MEMFD_PREFIX_MASK 0xffffffffffffULL

SEC("tp/sched/sched_process_exec")
int process_exec(struct trace_event_raw_sched_process_exec *ctx)
{
	__u64 cgid;
	if (!traced(&cgid))
		return 0;
	__u32 zero = 0;
	struct scratch *sb = bpf_map_lookup_elem(&scratch, &zero);
	if (!sb)
		return 0;
	__u64 t = bpf_ktime_get_ns();
	__u32 tid = current_tid();
	__u32 old = ctx->old_pid;
	unsigned int offset = ctx->__data_loc_filename & 0xffff;
	chunked(sb, 0, cgid, tid, SLOT_PATH, t, (void *)ctx + offset, SRC_KERNEL, 1);
	struct exec_state *st = bpf_map_lookup_elem(&ex, &old);
	__s64 argc = st ? st->argc : 0;
	__s64 code = st && st->code == CODE_EXECVEAT ? CODE_EXECVEAT : CODE_EXECVE;
	__s64 w1 = WALK_NONE, s1 = 0;
	walk(cgid, tid, t, AT_FDCWD_VALUE, SLOT_WALK1, &w1, &s1);
	/* A program run from a memfd: its file's dentry holds the memfd's name, `memfd:NAME`. */
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct file *exe = BPF_CORE_READ(task, mm, exe_file);
	if (exe) {
		const unsigned char *name = BPF_CORE_READ(exe, f_path.dentry, d_name.name);
		__u64 word = 0;
		bpf_probe_read_kernel(&word, sizeof(word), name);
		if ((word & MEMFD_PREFIX_MASK) == MEMFD_PREFIX)
			part(cgid, part_key(tid, SLOT_EXE_NAME, 0), t, name, STRLEN, SRC_KERNEL);
	}
	struct rec_call *r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);
	if (r) {
		r->h.cgid = cgid;
		r->h.type = REC_CALL;
		r->v[0] = tid;
		r->v[1] = t;
		r->v[2] = current_pid();
		r->v[3] = current_ppid();
		r->v[4] = code;
		r->v[5] = 0;
		r->v[6] = argc;
		r->v[7] = w1;
		r->v[8] = WALK_NONE;
		r->v[9] = s1;
		r->v[10] = 0;
		bpf_get_current_comm(r->s, COMM_LEN);
		bpf_ringbuf_submit(r, wake_flags());
	} else {
		count_lost(cgid);
	}
	bpf_map_delete_elem(&ex, &old);
	return 0;
}

/* A failed exec: the caller's memory is intact, so its own filename can be read. */
static __always_inline void exec_exit(__s64 ret)
{
	__u64 cgid;
	if (!traced(&cgid))
		return;
	__u32 tid = current_tid();
	struct exec_state *found = bpf_map_lookup_elem(&ex, &tid);
	if (!found)
		return;
	struct exec_state st = *found;
	bpf_map_delete_elem(&ex, &tid);
	if (st.code == 0 || ret >= 0)
		return;
	__u32 zero = 0;
	struct scratch *sb = bpf_map_lookup_elem(&scratch, &zero);
	if (!sb)
		return;
	__u64 t = bpf_ktime_get_ns();
	chunked(sb, 0, cgid, tid, SLOT_PATH, t, (const void *)st.filename, SRC_USER, 1);
	__s64 w1 = WALK_NONE, s1 = 0;
	walk(cgid, tid, t, AT_FDCWD_VALUE, SLOT_WALK1, &w1, &s1);
	struct rec_call *r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);
	if (!r) {
		count_lost(cgid);
		return;
	}
	r->h.cgid = cgid;
	r->h.type = REC_CALL;
	r->v[0] = tid;
	r->v[1] = t;
	r->v[2] = current_pid();
	r->v[3] = current_ppid();
	r->v[4] = st.code;
	r->v[5] = ret;
	r->v[6] = st.argc;
	r->v[7] = w1;
	r->v[8] = st.dirfd;
	r->v[9] = s1;
	r->v[10] = 0;
	bpf_get_current_comm(r->s, COMM_LEN);
	bpf_ringbuf_submit(r, wake_flags());
}

SEC("tp/syscalls/sys_exit_execve")
int exit_execve(struct trace_event_raw_sys_exit *ctx)
{
	exec_exit(ctx->ret);
	return 0;
}

SEC("tp/syscalls/sys_exit_execveat")
int exit_execveat(struct trace_event_raw_sys_exit *ctx)
{
	exec_exit(ctx->ret);
	return 0;
}

#endif
