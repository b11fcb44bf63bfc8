// SPDX-License-Identifier: GPL-2.0
/*
 * The collector's BPF programs: the probes of the generated bpftrace script
 * (src/observe/ebpf/bpftrace-script.ts and the *-probes.ts it uses), compiled once, serving
 * every watched cgroup. Each print() of the script is one ring-buffer record here, with the same
 * fields in the same order (records.h); the daemon writes each as the line bpftrace would.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "records.h"

char LICENSE[] SEC("license") = "GPL";

/* Half the ring, set by the daemon before load (it may shrink the ring). */
const volatile __u64 ring_half = 8ULL << 20;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} rb SEC(".maps");

/* The watched cgroups: every program returns at once for any other task. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, __u8);
} cgroups SEC(".maps");

/* Records lost to a full ring, per cgroup (the daemon reports the increase). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, __u64);
} lost SEC(".maps");

/* Per cgroup: bumped by calls that can move directories, so that remembered walks go stale. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, __u64);
} gens SEC(".maps");

/* TRACED_CALLS, indexed by the attach cookie of the syscall tracepoints. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, struct call_desc);
} calls SEC(".maps");

/* A traced call between sys_enter and sys_exit (the script's @sc @p1 @d1 @p2 @d2 @fl). */
struct sc_state {
	__s64 code;
	__u64 p1;
	__s64 d1;
	__u64 p2;
	__s64 d2;
	__s64 fl;
	__s64 npaths;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 32768);
	__type(key, __u32);
	__type(value, struct sc_state);
} sc SEC(".maps");

/* An exec between sys_enter and its end (@exsc @exfn @exd @exac). */
struct exec_state {
	__s64 code;
	__u64 filename;
	__s64 dirfd;
	__s64 argc;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct exec_state);
} ex SEC(".maps");

/* A socket address between sys_enter and sys_exit (@sa @sac). */
struct net_state {
	__u64 addr;
	__s64 code;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct net_state);
} sa SEC(".maps");

/* A fork between sys_enter and sys_exit (@cf @fk). */
struct fork_state {
	__u64 flags;
	__s64 call;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct fork_state);
} fk SEC(".maps");

/* The walk cache (@wc), per cgroup: each run's file must hold the walk a later one stops at. */
struct wc_key {
	__u64 cgid;
	__u64 dir;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct wc_key);
	__type(value, __u64);
} wc SEC(".maps");

/*
 * Once per process and number: io_uring opcodes (@iouseen) and undecoded i386 calls (@c32seen).
 * Keyed by cgroup too: a pid a later run reuses must get its own first record.
 */
struct seen_key {
	__u64 cgid;
	__u32 pid;
	__u32 nr;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct seen_key);
	__type(value, __u8);
} seen SEC(".maps");

/* Room to read a whole path (MAX_CHUNKS chunks) before sending it in chunks; one per path. */
#define PATH_BUF (MAX_CHUNKS * MAX_STRING_BYTES + 1)
struct scratch {
	char path[2][PATH_BUF + 5];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch SEC(".maps");

/* How many cgroups are watched (set by the daemon): with none, every program returns at once. */
volatile __u32 watches;

static __always_inline int traced(__u64 *cgid)
{
	if (!watches)
		return 0;
	*cgid = bpf_get_current_cgroup_id();
	return bpf_map_lookup_elem(&cgroups, cgid) != NULL;
}

/* Wake the daemon only when the ring is half full; otherwise it reads every 20 ms. */
static __always_inline __u64 wake_flags(void)
{
	return bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA) > ring_half ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

static __always_inline void count_lost(__u64 cgid)
{
	__u64 *n = bpf_map_lookup_elem(&lost, &cgid);
	if (n)
		__sync_fetch_and_add(n, 1);
}

static __always_inline __u32 current_tid(void)
{
	return (__u32)bpf_get_current_pid_tgid();
}

static __always_inline __s64 current_pid(void)
{
	return bpf_get_current_pid_tgid() >> 32;
}

static __always_inline __s64 current_ppid(void)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	return BPF_CORE_READ(task, real_parent, tgid);
}

#define SRC_USER 0
#define SRC_KERNEL 1
#define SRC_NONE 2

/* PART [1, key, t, str]: `max` bytes at most, NUL included (bpftrace's str(p, max)). */
static __always_inline void part(__u64 cgid, __u64 key, __u64 t, const void *p, __u32 max, int src)
{
	struct rec_part *r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);
	if (!r) {
		count_lost(cgid);
		return;
	}
	r->h.cgid = cgid;
	r->h.type = REC_PART;
	r->key = key;
	r->t = t;
	long n = -1;
	if (src == SRC_USER)
		n = bpf_probe_read_user_str(r->s, max, p);
	else if (src == SRC_KERNEL)
		n = bpf_probe_read_kernel_str(r->s, max, p);
	if (n < 0)
		r->s[0] = 0;
	bpf_ringbuf_submit(r, wake_flags());
}

static __always_inline __u64 part_key(__u32 tid, __u32 slot, __u32 chunk)
{
	return tid * KEY_TID + chunk * KEY_CHUNK + slot;
}

/*
 * Reads a whole string into scratch buffer `which` and sends it as PARTs of MAX_STRING_BYTES
 * (without the first when the event's record carries it). A chunk is sent when the one before it
 * came back full, which is what the reader checks (path-parts.ts joinChunks).
 */
static __always_inline void chunked(struct scratch *sb, int which, __u64 cgid, __u32 tid, __u32 slot,
				    __u64 t, const void *p, int src, int first)
{
	char *buf = sb->path[which & 1];
	long n = src == SRC_USER ? bpf_probe_read_user_str(buf, PATH_BUF, p)
				 : bpf_probe_read_kernel_str(buf, PATH_BUF, p);
	if (n <= 0) {
		buf[0] = 0;
		n = 1;
	}
	long len = n - 1;
	if (first)
		part(cgid, part_key(tid, slot, 0), t, buf, STRLEN, SRC_KERNEL);
	for (int chunk = 1; chunk < MAX_CHUNKS; chunk++) {
		if (len >= chunk * MAX_STRING_BYTES)
			part(cgid, part_key(tid, slot, chunk), t, buf + chunk * MAX_STRING_BYTES, STRLEN, SRC_KERNEL);
	}
}

/* ---- the directory walk (bpftrace-snippets.ts walk) ---- */

struct walk_state {
	__u64 cgid;
	__u64 t;
	__u64 gen;
	__u64 root_key;
	struct dentry *wd;
	struct vfsmount *wvm;
	struct mount *wm;
	struct dentry *root_dentry;
	struct vfsmount *root_mnt;
	__s64 result;
	__u32 tid;
	__u32 slot;
	__u32 steps;
};

static __always_inline struct mount *real_mount(struct vfsmount *mnt)
{
	return (struct mount *)((void *)mnt - bpf_core_field_offset(struct mount, mnt));
}

static __always_inline struct vfsmount *vfs_mount(struct mount *m)
{
	return (struct vfsmount *)((void *)m + bpf_core_field_offset(struct mount, mnt));
}

static __always_inline __u64 dir_id(struct dentry *d)
{
	return ((__u64)d >> 3) & DIR_ID_MASK;
}

/* What a remembered walk must match: the dentry's mount, name, parent, the root and the generation. */
static __always_inline __u64 walk_key(struct walk_state *w, struct dentry *d, struct vfsmount *mnt)
{
	__u64 hash_len = BPF_CORE_READ(d, d_name.hash_len);
	__u64 parent = (__u64)BPF_CORE_READ(d, d_parent);
	return (__u64)mnt ^ hash_len ^ parent ^ w->root_key ^ w->gen;
}

static long walk_step(__u32 i, void *data)
{
	struct walk_state *w = data;
	/* Locals: BPF_CORE_READ would relocate a walk_state field access too. */
	struct dentry *wd = w->wd;
	struct vfsmount *wvm = w->wvm;
	struct mount *wm = w->wm;
	w->steps = i;
	if (wd == w->root_dentry && wvm == w->root_mnt) {
		w->result = i;
		return 1;
	}
	/* Before the mount check: a workspace bind-mounted into a sandbox is a mount root. */
	struct wc_key key = {.cgid = w->cgid, .dir = dir_id(wd)};
	__u64 *cached = bpf_map_lookup_elem(&wc, &key);
	if (cached && *cached == walk_key(w, wd, wvm)) {
		w->result = WALK_ANCESTOR * (key.dir + 1) + i;
		return 1;
	}
	if (wd == BPF_CORE_READ(wvm, mnt_root)) {
		struct mount *parent = BPF_CORE_READ(wm, mnt_parent);
		if (parent == wm) {
			w->result = i;
			return 1;
		}
		part(w->cgid, part_key(w->tid, w->slot + i, 0), w->t, NULL, STRLEN, SRC_NONE);
		w->wd = BPF_CORE_READ(wm, mnt_mountpoint);
		w->wm = parent;
		w->wvm = vfs_mount(parent);
	} else {
		struct dentry *up = BPF_CORE_READ(wd, d_parent);
		if (up == wd)
			return 1;
		const unsigned char *name = BPF_CORE_READ(wd, d_name.name);
		part(w->cgid, part_key(w->tid, w->slot + i, 0), w->t, name, STRLEN, SRC_KERNEL);
		if (BPF_CORE_READ(wd, d_name.len) > MAX_STRING_BYTES)
			part(w->cgid, part_key(w->tid, w->slot + i, 1), w->t, name + MAX_STRING_BYTES, STRLEN,
			     SRC_KERNEL);
		w->wd = up;
	}
	w->steps = i + 1;
	return 0;
}

/*
 * Walks the base directory of a relative path (the cwd for AT_FDCWD, else the directory fd) up
 * to the task's root, one PART per step from `slot`; sets the walk result and the directory id.
 */
static __always_inline void walk(__u64 cgid, __u32 tid, __u64 t, __s64 dfd, __u32 slot, __s64 *result,
				 __s64 *dirid)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct dentry *wd = NULL;
	struct vfsmount *wvm = NULL;
	if (dfd == AT_FDCWD_VALUE) {
		wd = BPF_CORE_READ(task, fs, pwd.dentry);
		wvm = BPF_CORE_READ(task, fs, pwd.mnt);
	} else if (dfd >= 0 && dfd < BPF_CORE_READ(task, files, fdt, max_fds)) {
		struct file **fds = BPF_CORE_READ(task, files, fdt, fd);
		struct file *f = NULL;
		bpf_probe_read_kernel(&f, sizeof(f), fds + dfd);
		if (f) {
			wd = BPF_CORE_READ(f, f_path.dentry);
			wvm = BPF_CORE_READ(f, f_path.mnt);
		}
	}
	if (!wd)
		return;
	struct walk_state w = {
		.cgid = cgid,
		.t = t,
		.tid = tid,
		.slot = slot,
		.wd = wd,
		.wvm = wvm,
		.wm = real_mount(wvm),
		.result = WALK_NONE,
	};
	w.root_dentry = BPF_CORE_READ(task, fs, root.dentry);
	w.root_mnt = BPF_CORE_READ(task, fs, root.mnt);
	w.root_key = (__u64)w.root_dentry ^ ((__u64)w.root_mnt << 1);
	__u64 *gen = bpf_map_lookup_elem(&gens, &cgid);
	w.gen = gen ? *gen : 0;
	__u64 id = dir_id(wd);
	*dirid = id;
	__u64 start_key = walk_key(&w, wd, wvm);
	bpf_loop(MAX_WALK, walk_step, &w, 0);
	if (w.result == WALK_NONE) {
		*result = WALK_INCOMPLETE + w.steps;
	} else {
		struct wc_key key = {.cgid = cgid, .dir = id};
		bpf_map_update_elem(&wc, &key, &start_key, BPF_ANY);
		*result = w.result;
	}
}

/* ---- path-taking and privilege calls (bpftrace-script.ts enterBody / pathCallExitBody) ---- */

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

SEC("tracepoint")
int sys_enter_call(struct trace_event_raw_sys_enter *ctx)
{
	__u64 cgid;
	if (!traced(&cgid))
		return 0;
	__u32 index = bpf_get_attach_cookie(ctx);
	struct call_desc *call = bpf_map_lookup_elem(&calls, &index);
	if (!call)
		return 0;
	struct args args;
	copy_args(ctx, &args);
	struct sc_state st = {.code = call->code, .npaths = call->npaths, .d1 = NO_WALK, .d2 = NO_WALK};
	if (call->p1 >= 0) {
		st.p1 = arg(&args, call->p1);
		st.d1 = dirfd_of(&args, call->d1);
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
	case FLAGS_MOVES_DIRECTORIES:
		st.fl = FLAG_MOVES_DIRECTORIES;
		break;
	}
	__u32 tid = current_tid();
	bpf_map_update_elem(&sc, &tid, &st, BPF_ANY);
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

/* ---- exec (process-probes.ts execBlocks) ---- */

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

/* ---- connect and sendto (net-probes.ts) ---- */

static __always_inline void net_enter(__u64 addr, __s64 code)
{
	__u64 cgid;
	if (!traced(&cgid))
		return;
	__u32 tid = current_tid();
	struct net_state st = {.addr = addr, .code = code};
	bpf_map_update_elem(&sa, &tid, &st, BPF_ANY);
}

SEC("tp/syscalls/sys_enter_connect")
int enter_connect(struct trace_event_raw_sys_enter *ctx)
{
	net_enter(ctx->args[1], CODE_CONNECT);
	return 0;
}

/* sendto on a connected socket has no address: nothing new to report. */
SEC("tp/syscalls/sys_enter_sendto")
int enter_sendto(struct trace_event_raw_sys_enter *ctx)
{
	if (ctx->args[4] != 0)
		net_enter(ctx->args[4], CODE_SENDTO);
	return 0;
}

/* One NET record, preceded by the unix socket path if any (netExitBody). */
static __always_inline void net_exit(__u64 cgid, __s64 ret)
{
	__u32 tid = current_tid();
	struct net_state *found = bpf_map_lookup_elem(&sa, &tid);
	if (!found)
		return;
	struct net_state st = *found;
	bpf_map_delete_elem(&sa, &tid);
	if (st.addr == 0)
		return;
	__u64 t = bpf_ktime_get_ns();
	__u16 family = 0;
	bpf_probe_read_user(&family, sizeof(family), (void *)st.addr);
	if (family != AF_INET_VALUE && family != AF_INET6_VALUE && family != AF_UNIX_VALUE)
		return;
	__u8 first = 0;
	if (family == AF_UNIX_VALUE) {
		bpf_probe_read_user(&first, 1, (void *)st.addr + 2);
		if (first != 0)
			part(cgid, part_key(tid, SLOT_UNIX_PATH, 0), t, (void *)st.addr + 2, 108, SRC_USER);
		else
			part(cgid, part_key(tid, SLOT_UNIX_ABSTRACT, 0), t, (void *)st.addr + 3, 107, SRC_USER);
	}
	struct rec_net *r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);
	if (!r) {
		count_lost(cgid);
		return;
	}
	r->h.cgid = cgid;
	r->h.type = REC_NET;
	r->v[0] = tid;
	r->v[1] = t;
	r->v[2] = current_pid();
	r->v[3] = current_ppid();
	r->v[4] = st.code;
	r->v[5] = ret;
	r->v[6] = family;
	for (int i = 7; i < 12; i++)
		r->v[i] = 0;
	if (family == AF_INET_VALUE) {
		struct sockaddr_in in4 = {};
		bpf_probe_read_user(&in4, sizeof(in4), (void *)st.addr);
		r->v[7] = in4.sin_port;
		r->v[8] = in4.sin_addr.s_addr;
	} else if (family == AF_INET6_VALUE) {
		struct sockaddr_in6 in6 = {};
		bpf_probe_read_user(&in6, sizeof(in6), (void *)st.addr);
		r->v[7] = in6.sin6_port;
		r->v[8] = in6.sin6_addr.in6_u.u6_addr32[0];
		r->v[9] = in6.sin6_addr.in6_u.u6_addr32[1];
		r->v[10] = in6.sin6_addr.in6_u.u6_addr32[2];
		r->v[11] = in6.sin6_addr.in6_u.u6_addr32[3];
	}
	bpf_get_current_comm(r->comm, COMM_LEN);
	bpf_ringbuf_submit(r, wake_flags());
}

SEC("tracepoint")
int sys_exit_net(struct trace_event_raw_sys_exit *ctx)
{
	__u64 cgid;
	if (!traced(&cgid))
		return 0;
	net_exit(cgid, ctx->ret);
	return 0;
}

/* ---- the process tree (process-probes.ts processBlocks) ---- */

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

/* ---- 32-bit calls (compat-probes.ts) ---- */

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

SEC("tp/raw_syscalls/sys_enter")
int compat_enter(struct trace_event_raw_sys_enter *ctx)
{
	__u64 cgid;
	if (!compat_call() || !traced(&cgid))
		return 0;
	__u32 tid = current_tid();
	long nr = ctx->id;
	struct args args;
	copy_args(ctx, &args);
	if (nr == I386_OPEN || nr == I386_CREAT || nr == I386_OPENAT) {
		struct sc_state st = {.code = CODE_IA32_OPEN, .npaths = 1, .d2 = NO_WALK};
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
int compat_exit(struct trace_event_raw_sys_exit *ctx)
{
	__u64 cgid;
	if (!compat_call() || !traced(&cgid))
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
	struct seen_key key = {.cgid = cgid, .pid = current_pid(), .nr = (__u32)nr | 0x80000000u};
	if (bpf_map_lookup_elem(&seen, &key))
		return 0;
	__u8 one = 1;
	bpf_map_update_elem(&seen, &key, &one, BPF_ANY);
	struct rec_call *r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);
	if (!r) {
		count_lost(cgid);
		return 0;
	}
	r->h.cgid = cgid;
	r->h.type = REC_CALL;
	r->v[0] = tid;
	r->v[1] = bpf_ktime_get_ns();
	r->v[2] = current_pid();
	r->v[3] = current_ppid();
	r->v[4] = CODE_IA32_OTHER;
	r->v[5] = ctx->ret;
	r->v[6] = nr;
	r->v[7] = WALK_NONE;
	r->v[8] = WALK_NONE;
	r->v[9] = 0;
	r->v[10] = 0;
	bpf_get_current_comm(r->s, COMM_LEN);
	bpf_ringbuf_submit(r, wake_flags());
	return 0;
}

/* ---- io_uring operations (io-uring-probes.ts) ---- */

SEC("tp/io_uring/io_uring_submit_req")
int io_uring_submit(struct trace_event_raw_io_uring_submit_req *ctx)
{
	__u64 cgid;
	if (!traced(&cgid))
		return 0;
	__u8 opcode = BPF_CORE_READ(ctx, opcode);
	__u32 tid = current_tid();
	if (opcode != IORING_OP_OPENAT_VALUE && opcode != IORING_OP_OPENAT2_VALUE) {
		/* Other operations once per process and opcode: enough for the evasion rule. */
		struct seen_key key = {.cgid = cgid, .pid = current_pid(), .nr = opcode};
		if (bpf_map_lookup_elem(&seen, &key))
			return 0;
		__u8 one = 1;
		bpf_map_update_elem(&seen, &key, &one, BPF_ANY);
		struct rec_call *r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);
		if (!r) {
			count_lost(cgid);
			return 0;
		}
		r->h.cgid = cgid;
		r->h.type = REC_CALL;
		r->v[0] = tid;
		r->v[1] = bpf_ktime_get_ns();
		r->v[2] = current_pid();
		r->v[3] = current_ppid();
		r->v[4] = CODE_IO_URING_OP;
		r->v[5] = 0;
		r->v[6] = opcode;
		r->v[7] = WALK_NONE;
		r->v[8] = WALK_NONE;
		r->v[9] = 0;
		r->v[10] = 0;
		bpf_get_current_comm(r->s, COMM_LEN);
		bpf_ringbuf_submit(r, wake_flags());
		return 0;
	}
	/* prep has copied the file name into the kernel (struct io_open at the start of the request). */
	struct io_open *open = (struct io_open *)BPF_CORE_READ(ctx, req);
	const char *name = BPF_CORE_READ(open, filename, name);
	if (!name)
		return 0;
	__u32 zero = 0;
	struct scratch *sb = bpf_map_lookup_elem(&scratch, &zero);
	if (!sb)
		return 0;
	__u64 t = bpf_ktime_get_ns();
	__s64 w1 = WALK_NONE, s1 = 0;
	chunked(sb, 0, cgid, tid, SLOT_PATH, t, name, SRC_KERNEL, 0);
	if (sb->path[0][0] != '/')
		walk(cgid, tid, t, (__s64)BPF_CORE_READ(open, dfd), SLOT_WALK1, &w1, &s1);
	struct rec_call *r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);
	if (!r) {
		count_lost(cgid);
		return 0;
	}
	r->h.cgid = cgid;
	r->h.type = REC_CALL;
	r->v[0] = tid;
	r->v[1] = t;
	r->v[2] = current_pid();
	r->v[3] = current_ppid();
	r->v[4] = CODE_IO_URING_OPEN;
	r->v[5] = 0;
	r->v[6] = (__s64)BPF_CORE_READ(open, how.flags);
	r->v[7] = w1;
	r->v[8] = WALK_NONE;
	r->v[9] = s1;
	r->v[10] = 0;
	if (bpf_probe_read_kernel_str(r->s, STRLEN, sb->path[0]) < 0)
		r->s[0] = 0;
	bpf_ringbuf_submit(r, wake_flags());
	return 0;
}
