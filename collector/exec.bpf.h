/* Exec with argv, successful and failed (process-probes.ts execBlocks). Included by agentguard.bpf.c. */
#ifndef AGENTGUARD_EXEC_BPF_H
#define AGENTGUARD_EXEC_BPF_H

/*
 * The descriptor an exec's path goes through, if any: execveat's dirfd under a relative path, or
 * `/dev/fd/N`, `/proc/self/fd/N`, `/proc/thread-self/fd/N` at its start. `*whole` says the path
 * is the descriptor itself (nothing after N), not a name in its directory.
 */
#define FD_PREFIX_BYTES 32
static __always_inline __s64 exec_descriptor(__u64 filename, __s64 dirfd, int *whole)
{
	char b[FD_PREFIX_BYTES] = {};
	if (bpf_probe_read_user_str(b, sizeof(b), (const void *)filename) < 0)
		return -1;
	if (dirfd >= 0 && b[0] != '/') {
		*whole = b[0] == 0;
		return dirfd;
	}
	int at = 0;
	if (b[0] == '/' && b[1] == 'd' && b[2] == 'e' && b[3] == 'v' && b[4] == '/' && b[5] == 'f' && b[6] == 'd' &&
	    b[7] == '/')
		at = 8;
	else if (b[0] == '/' && b[1] == 'p' && b[2] == 'r' && b[3] == 'o' && b[4] == 'c' && b[5] == '/') {
		if (b[6] == 's' && b[7] == 'e' && b[8] == 'l' && b[9] == 'f' && b[10] == '/' && b[11] == 'f' &&
		    b[12] == 'd' && b[13] == '/')
			at = 14;
		else if (b[6] == 't' && b[7] == 'h' && b[8] == 'r' && b[9] == 'e' && b[10] == 'a' && b[11] == 'd' &&
			 b[12] == '-' && b[13] == 's' && b[14] == 'e' && b[15] == 'l' && b[16] == 'f' && b[17] == '/' &&
			 b[18] == 'f' && b[19] == 'd' && b[20] == '/')
			at = 21;
	}
	if (!at)
		return -1;
	__s64 fd = 0;
	int digits = 0;
	for (int i = 0; i < 9; i++) {
		int k = at + i;
		if (k >= FD_PREFIX_BYTES)
			return -1;
		char c = b[k & (FD_PREFIX_BYTES - 1)];
		if (c >= '0' && c <= '9') {
			fd = fd * 10 + (c - '0');
			digits++;
			continue;
		}
		if (!digits || (c != '/' && c != 0))
			return -1;
		*whole = c == 0;
		return fd;
	}
	return -1;
}

/*
 * What a descriptor-relative exec names, resolved through the caller's descriptor table while it
 * still stands: the descriptor's file (whole) or the directory its path is in. Sent at `t`, the
 * time the exec's record will carry, and never remembered as a walk (the exec may fail).
 */
static __always_inline void exec_resolve(__u64 cgid, __u32 tid, __u64 t, struct exec_state *st)
{
	int whole = 0;
	__s64 fd = exec_descriptor(st->filename, st->dirfd, &whole);
	struct file *f = fd_file(fd);
	if (!f)
		return;
	struct resolved res = {.walk = WALK_NONE};
	if (whole) {
		walk_file(cgid, tid, t, f, &res, 0);
	} else {
		walk_from(cgid, tid, t, BPF_CORE_READ(f, f_path.dentry), BPF_CORE_READ(f, f_path.mnt), SLOT_WALK2,
			  &res.walk, &res.dir, 0);
	}
	st->rt = t;
	st->rwalk = res.walk;
	st->rdir = res.dir;
	st->rino = res.ino;
	st->rdev = res.dev;
}

/* argv is read at entry, from the caller's memory: the argv the caller asked for. */
static __always_inline void exec_enter(struct trace_event_raw_sys_enter *ctx, __s64 code, __u64 filename,
				       const char *const *argv, __u64 envp, __s64 dirfd)
{
	__u64 cgid;
	if (!traced(&cgid))
		return;
	__u32 tid = current_tid();
	__u64 t = bpf_ktime_get_ns();
	struct exec_state st = {.code = code, .filename = filename, .dirfd = dirfd};
	/* A thread other than the leader changes tid in the exec: its parts would meet no record. */
	if (tid == current_pid())
		exec_resolve(cgid, tid, t, &st);
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
	st.envflags = exec_env(cgid, tid, t, envp);
	bpf_map_update_elem(&ex, &tid, &st, BPF_ANY);
}

SEC("tp/syscalls/sys_enter_execve")
int enter_execve(struct trace_event_raw_sys_enter *ctx)
{
	exec_enter(ctx, CODE_EXECVE, ctx->args[0], (const char *const *)ctx->args[1], ctx->args[2], AT_FDCWD_VALUE);
	return 0;
}

SEC("tp/syscalls/sys_enter_execveat")
int enter_execveat(struct trace_event_raw_sys_enter *ctx)
{
	exec_enter(ctx, CODE_EXECVEAT, ctx->args[1], (const char *const *)ctx->args[2], ctx->args[3],
		   (__s32)ctx->args[0]);
	return 0;
}

/* "memfd:" as the low six bytes of a little-endian word. */
#define MEMFD_PREFIX 0x3a64666d656dULL
#define MEMFD_PREFIX_MASK 0xffffffffffffULL

/*
 * Whether the program the kernel ran (mm->exe_file) has another name than the one the exec gave the
 * task (comm, the basename of the file it named, cut to 15 bytes): a script's interpreter, a link's
 * target. Only then is its path walked, so an ordinary exec costs two short reads.
 */
static __always_inline int ran_other(const unsigned char *exe_name)
{
	char comm[COMM_LEN] = {};
	char name[COMM_LEN] = {};
	bpf_get_current_comm(comm, sizeof(comm));
	bpf_probe_read_kernel_str(name, sizeof(name), exe_name);
	for (int i = 0; i < COMM_LEN - 1; i++) {
		if (comm[i] != name[i])
			return 1;
		if (!comm[i])
			return 0;
	}
	return 0;
}

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
	__u32 tid = current_tid();
	__u32 old = ctx->old_pid;
	struct exec_state *st = bpf_map_lookup_elem(&ex, &old);
	/* The resolved path's parts went out under rt: the record and its other parts join them. */
	__u64 t = st && st->rt && old == tid ? st->rt : bpf_ktime_get_ns();
	unsigned int offset = ctx->__data_loc_filename & 0xffff;
	chunked(sb, 0, cgid, tid, SLOT_PATH, t, (void *)ctx + offset, SRC_KERNEL, 1);
	/* argc and the environment's count and marks (records.h EXEC_ENV_*). */
	__s64 argc = st ? st->argc | st->envflags : 0;
	__s64 code = st && st->code == CODE_EXECVEAT ? CODE_EXECVEAT : CODE_EXECVE;
	__s64 w1 = WALK_NONE, s1 = 0;
	walk(cgid, tid, t, AT_FDCWD_VALUE, SLOT_WALK1, &w1, &s1);
	struct resolved res = {.walk = WALK_NONE};
	if (st && st->rt && old == tid) {
		res.walk = st->rwalk;
		res.dir = st->rdir;
		res.ino = st->rino;
		res.dev = st->rdev;
	}
	/* A program run from a memfd: its file's dentry holds the memfd's name, `memfd:NAME`. */
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct file *exe = BPF_CORE_READ(task, mm, exe_file);
	if (exe) {
		const unsigned char *name = BPF_CORE_READ(exe, f_path.dentry, d_name.name);
		__u64 word = 0;
		bpf_probe_read_kernel(&word, sizeof(word), name);
		if ((word & MEMFD_PREFIX_MASK) == MEMFD_PREFIX) {
			part(cgid, part_key(tid, SLOT_EXE_NAME, 0), t, name, STRLEN, SRC_KERNEL);
		} else if (res.walk == WALK_NONE && ran_other(name)) {
			/* The descriptor form's walk is not in the slots: the program's path goes there. */
			walk_file(cgid, tid, t, exe, &res, 0);
			argc |= EXEC_RAN_OTHER;
		}
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
		r->v[8] = res.walk;
		r->v[9] = s1;
		r->v[10] = res.dir;
		r->v[11] = res.ino;
		r->v[12] = res.dev;
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
	/* Parts of a resolved file sent under rt are joined to this record (and not read). */
	__u64 t = st.rt ? st.rt : bpf_ktime_get_ns();
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
	r->v[6] = st.argc | st.envflags;
	r->v[7] = w1;
	r->v[8] = st.dirfd;
	r->v[9] = s1;
	r->v[10] = 0;
	r->v[11] = 0;
	r->v[12] = 0;
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
