/* Maps and helpers every probe shares: the cgroup filter, the ring, PART records, chunked strings. Included by agentguard.bpf.c. */
#ifndef AGENTGUARD_COMMON_BPF_H
#define AGENTGUARD_COMMON_BPF_H

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
	__uint(max_entries, 128);
	__type(key, __u32);
	__type(value, struct call_desc);
} calls SEC(".maps");

/*
 * Native calls whose syscall tracepoints this kernel lacks (a kernel built without modules has no
 * sys_enter_init_module), by number: TRACED_CALLS index + 1, 0 for none. The loader fills it and
 * sets raw_call_count before load; raw_syscalls then serves those calls (raw.bpf.h). With a
 * count of 0 the verifier drops the lookup, so a kernel with every tracepoint pays nothing.
 */
const volatile __u32 raw_call_count = 0;
/* Whether execs' environments are read (env.bpf.h): the loader turns it off where the kernel's
 * verifier refuses the scan (Debian 12's 6.1 hits its million-instruction limit), and says so. */
const volatile __u32 record_env = 1;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, RAW_CALL_SLOTS);
	__type(key, __u32);
	__type(value, __u32);
} raw_calls SEC(".maps");

/* A traced call between sys_enter and sys_exit (the script's @sc @p1 @d1 @p2 @d2 @fl). */
struct sc_state {
	__s64 code;
	__u64 p1;
	__s64 d1;
	__u64 p2;
	__s64 d2;
	__s64 fl;
	__s64 npaths;
	__s64 opens;
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
	/* The file the kernel opened to run (security_bprm_creds_for_exec), sent at time `rt` (0: not). */
	__u64 rt;
	__s64 rwalk;
	__s64 rdir;
	__s64 rino;
	__s64 rdev;
	/* The recorded environment's count and marks, as the CALL's flags word takes them (records.h). */
	__s64 envflags;
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

/* The names of the environment variables an exec records (exec-env.h, filled by the loader). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, struct env_name);
	__type(value, __u8);
} env_names SEC(".maps");

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

/*
 * The depths (below the root cgroup, plus one; 0 for a free slot) at which a watched cgroup sits,
 * set by the daemon. A task belongs to a run when its ancestor at one of these depths is watched:
 * whatever the run starts in a cgroup below its own (a container engine's payload, a nested scope,
 * a process that moved itself to a sub-cgroup) is still the run's, and its records carry the run's id.
 * Runs' cgroups are siblings, so one slot serves them all: the common cost is one helper and one lookup.
 */
volatile __u32 watch_depths[WATCH_DEPTHS];

static __always_inline int traced(__u64 *cgid)
{
	if (!watches)
		return 0;
#pragma unroll
	for (int i = 0; i < WATCH_DEPTHS; i++) {
		__u32 depth = watch_depths[i];
		if (!depth)
			continue;
		__u64 id = bpf_get_current_ancestor_cgroup_id(depth - 1);
		if (id && bpf_map_lookup_elem(&cgroups, &id)) {
			*cgid = id;
			return 1;
		}
	}
	return 0;
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

/*
 * A CALL record once per process and number (an i386 call, an io_uring operation): `code` with the
 * number in the flags word, enough for the evasion rules. `key_nr` tells the kinds apart in `seen`.
 */
static __always_inline void once_per_process(__u64 cgid, __u32 key_nr, __s64 code, __s64 ret, __s64 number)
{
	struct seen_key key = {.cgid = cgid, .pid = current_pid(), .nr = key_nr};
	if (bpf_map_lookup_elem(&seen, &key))
		return;
	__u8 one = 1;
	bpf_map_update_elem(&seen, &key, &one, BPF_ANY);
	struct rec_call *r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);
	if (!r) {
		count_lost(cgid);
		return;
	}
	r->h.cgid = cgid;
	r->h.type = REC_CALL;
	r->v[0] = current_tid();
	r->v[1] = bpf_ktime_get_ns();
	r->v[2] = current_pid();
	r->v[3] = current_ppid();
	r->v[4] = code;
	r->v[5] = ret;
	r->v[6] = number;
	r->v[7] = WALK_NONE;
	r->v[8] = WALK_NONE;
	r->v[9] = 0;
	r->v[10] = 0;
	r->v[11] = 0;
	r->v[12] = 0;
	bpf_get_current_comm(r->s, COMM_LEN);
	bpf_ringbuf_submit(r, wake_flags());
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

#endif
