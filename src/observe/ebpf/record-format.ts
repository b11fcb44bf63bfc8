/**
 * The wire format between the generated bpftrace script and the parser. bpftrace runs with
 * `-f json` and every record is a `print()`ed tuple, so bpftrace itself escapes the strings. The
 * BPF stack (512 bytes) fits only one string per record, so an event's strings travel as PART
 * records that precede the event's own record on the same CPU and share its (tid, t) key. Every
 * record costs the traced process a wakeup of bpftrace, so the CALL of a path-taking call carries
 * the first chunk of its first path itself (`head`) instead of the process name, which the exec
 * and fork records give anyway: an open of a short absolute path is one record.
 *
 *   READY  [0, t]                                                      BEGIN: probes are attached
 *   PART   [1, key, t, string]          key = tid * 65536 + chunk * 256 + slot
 *   CALL   [2, tid, t, pid, ppid, code, ret, flags, walk1, walk2, dir1, dir2, (ino, dev,) head or comm]   open/write-meta/privilege/exec
 *   NET    [3, tid, t, pid, ppid, code, ret, family, port, a0, a1, a2, a3, comm]
 *   FORK   [4, t, parent_pid, child_pid or -errno, fork_call, clone_flags, comm]
 *   EXIT   [5, t, pid, exit_status, comm]
 *   TICK   [6, t]                                                      every TICK_MS: output is live up to t
 *
 * `t` is the kernel's CLOCK_MONOTONIC in nanoseconds (bpftrace `nsecs`). For exec records `flags`
 * is argc with the recorded environment's count and marks (EXEC_* below), and a failed exec's walk2 is its dirfd (AT_FDCWD for execve). A CALL's `flags` is what
 * its TracedCall says (`carries`): open flags, a chmod mode, unshare's or setns's CLONE_NEW* bits,
 * socket's family, type and protocol packed (SOCKET_FLAGS). A call whose path is its descriptor's
 * file (fchmod) sends no path string: walk1 is the walk of that file itself, and a walk of
 * WALK_INCOMPLETE (no step) means it has no path (a pipe, socket or memfd). FORK's clone_flags are
 * clone's flags, clone3's `clone_args.flags`, 0 for fork and vfork.
 *
 * What the kernel resolved (the compiled collector only; bpftrace's CALL has no ino and dev, and its
 * walk2 of an open or exec is -1): a successful open's walk2/dir2 is the directory of the file the
 * returned descriptor holds, its name in SLOT_RESOLVED_NAME (empty: the walk is the file itself, a
 * bind-mounted file), and ino/dev are that file's inode and device (the kernel's dev_t, 0: none).
 * A successful exec through a descriptor (execveat's dirfd, `/dev/fd/N/…`, `/proc/self/fd/N/…`)
 * does the same: with a name, walk2 is the descriptor's own file; without, the descriptor's
 * directory, under the rest of the path.
 *
 * A walk field says how the base directory of a relative path was sent, as PARTs from its slot,
 * leaf first, one per step (an empty string for a mount crossing):
 *   -1                          not sent (the path is absolute, or has no base)
 *   n < WALK_INCOMPLETE         n steps up to the task's root
 *   WALK_INCOMPLETE + n         n steps, then the depth limit or a disconnected dentry
 *   WALK_ANCESTOR * (id+1) + n  n steps up to directory `id`, whose path an earlier walk gave
 * dir1/dir2 is the id of the walked directory (0: none), for later walks that stop at it.
 */

export const REC_READY = 0;
export const REC_PART = 1;
export const REC_CALL = 2;
export const REC_NET = 3;
export const REC_FORK = 4;
export const REC_EXIT = 5;
export const REC_TICK = 6;
export const TICK_MS = 100;

export const SLOT_PATH = 1;
export const SLOT_PATH2 = 2;
export const SLOT_UNIX_PATH = 3;
export const SLOT_UNIX_ABSTRACT = 4;
/** The name of a memfd an exec ran (`memfd:NAME`, the dentry of the new image's file). */
export const SLOT_EXE_NAME = 5;
/** The name of the file the kernel opened or executed; its directory is the walk in SLOT_WALK2. */
export const SLOT_RESOLVED_NAME = 6;
export const SLOT_ARGV = 10;
/** An exec's recorded environment entries (exec-env.ts), one slot each, chunked like a path (collector only). */
export const SLOT_ENV = 600;
/** Components of the base directory of the first path (for exec: the cwd). */
export const SLOT_WALK1 = 40;
/** Components of the base directory of the second path, or of the resolved file. */
export const SLOT_WALK2 = 300;

/**
 * Long paths travel in chunks of MAX_STRING_BYTES; a string still full after the last chunk is
 * truncated. The collector sends any path the kernel takes (33 chunks: 4191 bytes, over PATH_MAX);
 * the bpftrace script, whose every chunk costs stack, up to BPFTRACE_MAX_CHUNKS.
 */
export const MAX_CHUNKS = 33;
export const BPFTRACE_MAX_CHUNKS = 6;
/** A walk's component name up to NAME_MAX (255 bytes). */
export const NAME_CHUNKS = 3;
export const KEY_TID = 65536;
export const KEY_CHUNK = 1024;

export const MAX_ARGV = 16;
/**
 * An exec CALL's flags word: argc in bits 0-7; from the collector also the count of recorded
 * environment entries in bits 8-15, EXEC_ENV_RECORDED (the environment was read: bpftrace never
 * sets it) and EXEC_ENV_CUT (over a bound of exec-env.ts).
 */
export const EXEC_ARGC_MASK = 0xff;
export const EXEC_ENV_SHIFT = 8;
export const EXEC_ENV_RECORDED = 1 << 16;
export const EXEC_ENV_CUT = 1 << 17;
/** The program the kernel ran is not the file the exec named (a script's interpreter): its path is in the walk slots. */
export const EXEC_RAN_OTHER = 1 << 18;
/** Loop bound of the bpftrace script's directory walk (components plus mount crossings). */
export const MAX_WALK = 48;
/** The collector's (records.h MAX_WALK): slots SLOT_WALK1.. and SLOT_WALK2.. never meet. */
export const COLLECTOR_MAX_WALK = 240;
export const WALK_NONE = -1;
export const WALK_INCOMPLETE = 1000;
export const WALK_ANCESTOR = 4096;
/** Directory ids are dentry addresses >> 3, cut to 40 bits so that WALK_ANCESTOR * id fits a double. */
export const DIR_ID_MASK = 0xffffffffff;

/**
 * BPFTRACE_STRLEN. bpftrace 0.17 accepts up to 200, but a printed string costs about twice this on
 * the 512-byte BPF stack, and the CALL record with a path head must fit beside the directory walk;
 * long strings are sent in chunks instead.
 */
export const STRLEN = 128;
export const MAX_STRING_BYTES = STRLEN - 1;

export const AT_FDCWD = -100;
/** Marks a path argument whose base directory must not be walked (a symlink target). */
export const NO_WALK = -1000;

export const AF_UNIX = 1;
export const AF_INET = 2;
export const AF_INET6 = 10;

/** x86 `thread_info.status` bit set while a task runs a 32-bit (i386 or x32) system call. */
export const TS_COMPAT = 2;

/** CALL flags of a non-open call that can change directory paths (rename, rmdir, mounts). */
export const FLAG_MOVES_DIRECTORIES = -1;

export const CLONE_THREAD = 0x10000;
/** FORK records name the call by its index here; 0 means the enter probe was not seen. */
export const FORK_CALLS = ['', 'clone', 'clone3', 'fork', 'vfork'];
