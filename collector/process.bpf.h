/* The process tree: fork and exit (process-probes.ts processBlocks). Included by agentguard.bpf.c. */
#ifndef AGENTGUARD_PROCESS_BPF_H
#define AGENTGUARD_PROCESS_BPF_H

static __always_inline void fork_enter(__u64 flags, __s64 call)
{
	__u64 cgid;
	if (!traced(&cgid))
		return;
	__u32 tid = current_tid();
	struct fork_state st = {.flags = flags, .call = call};
	bpf_map_update_elem(&fk, &tid, &st, BPF_ANY);
}

SEC("tp/syscalls/sys_enter_clone")
int enter_clone(struct trace_event_raw_sys_enter *ctx)
{
	fork_enter(ctx->args[0], FORK_CLONE);
	return 0;
}

SEC("tp/syscalls/sys_enter_clone3")
int enter_clone3(struct trace_event_raw_sys_enter *ctx)
{
	__u64 flags = 0;
	bpf_probe_read_user(&flags, sizeof(flags), (void *)ctx->args[0]);
	fork_enter(flags, FORK_CLONE3);
	return 0;
}

SEC("tp/syscalls/sys_enter_fork")
int enter_fork(struct trace_event_raw_sys_enter *ctx)
{
	fork_enter(0, FORK_FORK);
	return 0;
}

SEC("tp/syscalls/sys_enter_vfork")
int enter_vfork(struct trace_event_raw_sys_enter *ctx)
{
	fork_enter(0, FORK_VFORK);
	return 0;
}

/* A failed fork names no child; it is still worth a record (fork bombs hit EAGAIN). */
SEC("tracepoint")
int sys_exit_fork(struct trace_event_raw_sys_exit *ctx)
{
	__u64 cgid;
	if (!traced(&cgid))
		return 0;
	__u32 tid = current_tid();
	struct fork_state *found = bpf_map_lookup_elem(&fk, &tid);
	if (!found)
		return 0;
	__s64 call = found->call;
	__u64 flags = found->flags;
	bpf_map_delete_elem(&fk, &tid);
	if (ctx->ret >= 0 || call == 0)
		return 0;
	struct rec_fork *r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);
	if (!r) {
		count_lost(cgid);
		return 0;
	}
	r->h.cgid = cgid;
	r->h.type = REC_FORK;
	r->v[0] = bpf_ktime_get_ns();
	r->v[1] = current_pid();
	r->v[2] = ctx->ret;
	r->v[3] = call;
	/* The CLONE_NEW* bits of a refused clone are what exec-namespace-change judges. */
	r->v[4] = flags;
	bpf_get_current_comm(r->comm, COMM_LEN);
	bpf_ringbuf_submit(r, wake_flags());
	return 0;
}

/* Thread creation also fires sched_process_fork; the clone flags tell threads from processes. */
SEC("tp/sched/sched_process_fork")
int process_fork(struct trace_event_raw_sched_process_fork *ctx)
{
	__u64 cgid;
	if (!traced(&cgid))
		return 0;
	__u32 tid = current_tid();
	struct fork_state *found = bpf_map_lookup_elem(&fk, &tid);
	__u64 flags = found ? found->flags : 0;
	__s64 call = found ? found->call : 0;
	if (flags & CLONE_THREAD_FLAG)
		return 0;
	struct rec_fork *r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);
	if (!r) {
		count_lost(cgid);
		return 0;
	}
	r->h.cgid = cgid;
	r->h.type = REC_FORK;
	r->v[0] = bpf_ktime_get_ns();
	r->v[1] = current_pid();
	r->v[2] = ctx->child_pid;
	r->v[3] = call;
	r->v[4] = flags;
	bpf_get_current_comm(r->comm, COMM_LEN);
	bpf_ringbuf_submit(r, wake_flags());
	return 0;
}

SEC("tp/sched/sched_process_exit")
int process_exit(struct trace_event_raw_sched_process_exit *ctx)
{
	__u64 cgid;
	if (!traced(&cgid))
		return 0;
	/* The process's last thread (group_dead on newer kernels; else the leader stands for it). */
	if (bpf_core_field_exists(ctx->group_dead)) {
		if (!BPF_CORE_READ(ctx, group_dead))
			return 0;
	} else if (current_pid() != current_tid()) {
		return 0;
	}
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct rec_exit *r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);
	if (!r) {
		count_lost(cgid);
		return 0;
	}
	r->h.cgid = cgid;
	r->h.type = REC_EXIT;
	r->v[0] = bpf_ktime_get_ns();
	r->v[1] = current_pid();
	r->v[2] = (__s64)BPF_CORE_READ(task, exit_code);
	bpf_get_current_comm(r->comm, COMM_LEN);
	bpf_ringbuf_submit(r, wake_flags());
	return 0;
}

#endif
