/*
 * What the BPF programs and the daemon share: the ring-buffer records and the table of traced
 * calls. Each ring-buffer record is one line of the run's file, in the shape the bpftrace script
 * prints it (src/observe/ebpf/record-format.ts has the line format; the constants mirror it).
 * Every record starts with the cgroup id of the task it describes, which picks the run's file.
 */
#ifndef AGENTGUARD_RECORDS_H
#define AGENTGUARD_RECORDS_H

#define REC_READY 0
#define REC_PART 1
#define REC_CALL 2
#define REC_NET 3
#define REC_FORK 4
#define REC_EXIT 5
#define REC_TICK 6

#define SLOT_PATH 1
#define SLOT_PATH2 2
#define SLOT_UNIX_PATH 3
#define SLOT_UNIX_ABSTRACT 4
#define SLOT_EXE_NAME 5
/* The name of the file the kernel opened or executed; its directory is the walk in SLOT_WALK2. */
#define SLOT_RESOLVED_NAME 6
#define SLOT_ARGV 10
/* An exec's recorded environment entries (exec-env.h): SLOT_ENV + n, each chunked like a path. */
#define SLOT_ENV 600
#define SLOT_WALK1 40
#define SLOT_WALK2 300

/* A path up to PATH_MAX: 33 * 127 = 4191 bytes, more than the 4095 the kernel takes. */
/* How many distinct cgroup depths may hold watched cgroups at once (common.bpf.h watch_depths). */
#define WATCH_DEPTHS 4
/* The deepest watched cgroup (its depth below the root cgroup). */
#define MAX_CGROUP_DEPTH 64
#define MAX_CHUNKS 33
/* A walk's component name up to NAME_MAX (255 bytes). */
#define NAME_CHUNKS 3
#define KEY_TID 65536ULL
#define KEY_CHUNK 1024
#define MAX_ARGV 16
/* Bounds of an exec's recorded environment (src/evidence/exec-env.ts MAX_EXEC_ENV, MAX_EXEC_ENV_SCANNED). */
#define MAX_ENV 16
#define MAX_ENV_SCANNED 512
/* A recorded variable's name is shorter than this; the env_names map is keyed by it, zero-padded. */
#define ENV_NAME_BYTES 32
#define ENV_EXACT 1
#define ENV_PREFIX 2
/*
 * An exec CALL's flags word: argc in bits 0-7, the count of recorded environment entries in 8-15,
 * EXEC_ENV_RECORDED (the environment was read; bpftrace's records never set it) and EXEC_ENV_CUT
 * (more entries than MAX_ENV_SCANNED, or more recorded ones than MAX_ENV).
 */
#define EXEC_ARGC_MASK 0xff
#define EXEC_ENV_SHIFT 8
#define EXEC_ENV_RECORDED (1 << 16)
#define EXEC_ENV_CUT (1 << 17)
/*
 * The program the kernel ran is not the file the exec named (a script's #! interpreter, or the
 * target of a link such as sh -> dash): its path was walked into SLOT_RESOLVED_NAME and SLOT_WALK2.
 */
#define EXEC_RAN_OTHER (1 << 18)
/* Steps of a walk (components and mount crossings): slots SLOT_WALK1.. and SLOT_WALK2.. must not meet. */
#define MAX_WALK 240
#define WALK_NONE (-1)
#define WALK_INCOMPLETE 1000
#define WALK_ANCESTOR 4096
#define DIR_ID_MASK 0xffffffffffULL
/* BPFTRACE_STRLEN: a printed string holds at most STRLEN - 1 bytes. */
#define STRLEN 128
#define MAX_STRING_BYTES (STRLEN - 1)
#define COMM_LEN 16

#define AT_FDCWD_VALUE (-100)
#define NO_WALK (-1000)
#define AF_UNIX_VALUE 1
#define AF_INET_VALUE 2
#define AF_INET6_VALUE 10
#define TS_COMPAT_BIT 2
#define FLAG_MOVES_DIRECTORIES (-1)
#define CLONE_THREAD_FLAG 0x10000ULL

#define CODE_EXECVE 1
#define CODE_EXECVEAT 2
#define CODE_CONNECT 3
#define CODE_SENDTO 4
#define CODE_IA32_OPEN 5
#define CODE_IA32_OTHER 6
#define CODE_IA32_CONNECT 7
#define CODE_IO_URING_OPEN 8
#define CODE_IO_URING_OP 9
#define CODE_BIND 10

/* FORK_CALLS indexes. */
#define FORK_CLONE 1
#define FORK_CLONE3 2
#define FORK_FORK 3
#define FORK_VFORK 4

#define IORING_OP_OPENAT_VALUE 18
#define IORING_OP_OPENAT2_VALUE 28

#define I386_OPEN 5
#define I386_CREAT 8
#define I386_OPENAT 295
#define I386_SOCKETCALL 102
#define I386_CONNECT 362
#define SYS_CONNECT_VALUE 3
#define CREAT_FLAGS 577 /* O_CREAT | O_WRONLY | O_TRUNC */

/* How a traced call's sys_enter gives its flags (call_desc.flags_kind). */
#define FLAGS_NONE 0
#define FLAGS_INT_ARG 1
#define FLAGS_CONST 2
#define FLAGS_OPEN_HOW 3
#define FLAGS_MOVES_DIRECTORIES 4
/* socket's family, type and protocol in one word (SOCKET_FLAGS in syscall-table.ts). */
#define FLAGS_SOCKET 5
/* The pid a call acts on (low 32 bits), TARGET_SELF_KNOWN, and TARGET_SELF when it is the caller's own process. */
#define FLAGS_TARGET 6
#define TARGET_SELF_KNOWN (1ULL << 32)
#define TARGET_SELF (1ULL << 33)

/*
 * call_desc.d1/d2: the dirfd argument's index, or one of these. With no path (p1 -1), a d1 that is
 * an index names a descriptor whose own file is walked (fchmod).
 */
#define DIRFD_AT_FDCWD (-1)
#define DIRFD_NO_WALK (-2)

/* Native call numbers below this can be served by raw_syscalls (the raw_calls map's size). */
#define RAW_CALL_SLOTS 512

/* A TRACED_CALLS entry, indexed in the `calls` map by the attach cookie of its tracepoints. */
struct call_desc {
	int code;
	int npaths;
	int p1, d1, p2, d2; /* argument indexes (-1: none) */
	int flags_kind;
	int flags_arg;
	long long flags_const;
	int opens; /* returns a descriptor of a file (open, dup): the file is walked at exit */
	int when_arg; /* traced only when this argument is when_a or when_b (fcntl's F_DUPFD*); -1: always */
	long long when_a, when_b;
};

struct env_name {
	char s[ENV_NAME_BYTES];
};

struct rec_head {
	__u64 cgid;
	__u32 type;
	__u32 pad;
};

/* PART [1, key, t, string] */
struct rec_part {
	struct rec_head h;
	__u64 key;
	__u64 t;
	char s[STRLEN];
};

/* CALL [2, tid, t, pid, ppid, code, ret, flags, walk1, walk2, dir1, dir2, ino, dev, head or comm] */
#define CALL_NUMBERS 13
struct rec_call {
	struct rec_head h;
	__s64 v[CALL_NUMBERS];
	char s[STRLEN];
};

/* NET [3, tid, t, pid, ppid, code, ret, family, port, a0, a1, a2, a3, comm] */
struct rec_net {
	struct rec_head h;
	__s64 v[12];
	char comm[COMM_LEN];
};

/* FORK [4, t, parent_pid, child_pid or -errno, fork_call, clone_flags, comm] */
struct rec_fork {
	struct rec_head h;
	__s64 v[5];
	char comm[COMM_LEN];
};

/* EXIT [5, t, pid, exit_status, comm] */
struct rec_exit {
	struct rec_head h;
	__s64 v[3];
	char comm[COMM_LEN];
};

#endif
