/*
 * Opens, loads and attaches the BPF programs (agentguard.bpf.c) and detaches them at exit. A
 * failure prints one line saying what failed and why and exits 1: the caller shows that line and
 * falls back to bpftrace.
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <linux/types.h>
#include "loader.h"
#include "records.h"
#include "syscalls.h"
#include "exec-env.h"

#define VERSION "12"

struct agentguard_bpf *skel;
char missing[4096];
char version[128];
static char last_libbpf[512];
static struct bpf_link *links[256];
static int link_count;

/*
 * libbpf's messages go to the log. The explanation of a failed load is kept for the one-line
 * error: the last line of the verifier's log, or else libbpf's last message.
 */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	static char text[1 << 17];
	vsnprintf(text, sizeof(text), fmt, ap);
	fputs(text, stderr);
	char *log = strstr(text, "-- BEGIN PROG LOAD LOG --");
	char *log_end = log ? strstr(log, "-- END PROG LOAD LOG --") : NULL;
	char *from = log ? log + strlen("-- BEGIN PROG LOAD LOG --") : text;
	char *to = log_end ? log_end : text + strlen(text);
	/* The last non-empty line before `to`, skipping the verifier's statistics line. */
	while (to > from) {
		while (to > from && (to[-1] == '\n' || to[-1] == ' '))
			to--;
		char *line = to;
		while (line > from && line[-1] != '\n')
			line--;
		if (to > line && strncmp(line, "processed ", 10) != 0 && strncmp(line, "verification time", 17) != 0 &&
		    strncmp(line, "stack depth", 11) != 0) {
			static bool have_log;
			if (log || !have_log)
				snprintf(last_libbpf, sizeof(last_libbpf), "%.*s", (int)(to - line), line);
			if (log)
				have_log = true;
			break;
		}
		to = line;
	}
	return 0;
}

static void add_missing(const char *name)
{
	size_t n = strlen(missing);
	snprintf(missing + n, sizeof(missing) - n, "%s%s", n ? "," : "", name);
}

static const char *tracefs_events(void)
{
	static const char *dirs[] = {"/sys/kernel/tracing/events", "/sys/kernel/debug/tracing/events"};
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char probe[256];
		snprintf(probe, sizeof(probe), "%s/sched/sched_process_exec", dirs[i]);
		if (access(probe, F_OK) == 0)
			return dirs[i];
	}
	/* errno of the first: EACCES says "not root" rather than "not mounted". */
	char probe[256];
	snprintf(probe, sizeof(probe), "%s/sched/sched_process_exec", dirs[0]);
	access(probe, F_OK);
	return NULL;
}

static bool has_tracepoint(const char *events, const char *category, const char *name)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s/%s", events, category, name);
	return access(path, F_OK) == 0;
}

static bool has_syscall(const char *events, const char *name)
{
	char enter[128], exit_[128];
	snprintf(enter, sizeof(enter), "sys_enter_%s", name);
	snprintf(exit_, sizeof(exit_), "sys_exit_%s", name);
	return has_tracepoint(events, "syscalls", enter) && has_tracepoint(events, "syscalls", exit_);
}

static int keep_link(struct bpf_link *link)
{
	if (!link)
		return -errno;
	if (link_count >= (int)(sizeof(links) / sizeof(links[0]))) {
		bpf_link__destroy(link);
		return -E2BIG;
	}
	links[link_count++] = link;
	return 0;
}

static int attach_tp(struct bpf_program *prog, const char *category, const char *name, __u64 cookie)
{
	LIBBPF_OPTS(bpf_tracepoint_opts, opts, .bpf_cookie = cookie);
	return keep_link(bpf_program__attach_tracepoint_opts(prog, category, name, &opts));
}

static int attach_syscall(struct bpf_program *enter, struct bpf_program *exit_, const char *name, __u64 cookie)
{
	char tp[128];
	snprintf(tp, sizeof(tp), "sys_enter_%s", name);
	int err = attach_tp(enter, "syscalls", tp, cookie);
	if (err)
		return err;
	snprintf(tp, sizeof(tp), "sys_exit_%s", name);
	return attach_tp(exit_, "syscalls", tp, cookie);
}

void fail(const char *what, int err)
{
	const char *hint = "";
	if (err == EPERM)
		hint = " (needs root, or CAP_BPF and CAP_PERFMON; a locked-down kernel refuses too)";
	if (last_libbpf[0])
		fprintf(stderr, "agentguard-collector: %s failed: %s%s; libbpf: %s\n", what, strerror(err), hint,
			last_libbpf);
	else
		fprintf(stderr, "agentguard-collector: %s failed: %s%s\n", what, strerror(err), hint);
	exit(1);
}

/* Opens, loads and attaches the programs; leaves the names of what this kernel lacks in `missing`. */
static int try_load(uint64_t ring_bytes, bool env)
{
	libbpf_set_print(libbpf_print);
	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
		fprintf(stderr, "agentguard-collector: this kernel has no BTF (/sys/kernel/btf/vmlinux is missing); "
				"the compiled collector needs CONFIG_DEBUG_INFO_BTF\n");
		exit(1);
	}
	const char *events = tracefs_events();
	if (!events && (errno == EACCES || errno == EPERM)) {
		fprintf(stderr, "agentguard-collector: cannot read tracefs (%s): loading BPF programs needs root, "
				"or CAP_BPF and CAP_PERFMON\n", strerror(errno));
		exit(1);
	}
	if (!events) {
		fprintf(stderr, "agentguard-collector: tracefs is not mounted (no /sys/kernel/tracing/events); "
				"mount it with: mount -t tracefs nodev /sys/kernel/tracing\n");
		exit(1);
	}
	struct rlimit unlimited = {RLIM_INFINITY, RLIM_INFINITY};
	setrlimit(RLIMIT_MEMLOCK, &unlimited);
	skel = agentguard_bpf__open();
	if (!skel)
		fail("opening the BPF object", errno);
	if (bpf_map__set_max_entries(skel->maps.rb, ring_bytes))
		fail("sizing the ring buffer", EINVAL);
	skel->rodata->ring_half = ring_bytes / 2;
	skel->rodata->record_env = env;

	/* Tracepoints this kernel lacks: their programs are not loaded, their calls reported missing. */
	struct fixed {
		struct bpf_program *prog;
		const char *category, *name, *label;
	} fixed[] = {
		{skel->progs.enter_execve, "syscalls", "sys_enter_execve", "execve"},
		{skel->progs.exit_execve, "syscalls", "sys_exit_execve", "execve"},
		{skel->progs.enter_execveat, "syscalls", "sys_enter_execveat", "execveat"},
		{skel->progs.exit_execveat, "syscalls", "sys_exit_execveat", "execveat"},
		{skel->progs.process_exec, "sched", "sched_process_exec", "sched_process_exec"},
		{skel->progs.enter_connect, "syscalls", "sys_enter_connect", "connect"},
		{skel->progs.enter_sendto, "syscalls", "sys_enter_sendto", "sendto"},
		{skel->progs.enter_clone, "syscalls", "sys_enter_clone", NULL},
		{skel->progs.enter_clone3, "syscalls", "sys_enter_clone3", NULL},
		{skel->progs.enter_fork, "syscalls", "sys_enter_fork", NULL},
		{skel->progs.enter_vfork, "syscalls", "sys_enter_vfork", NULL},
		{skel->progs.process_fork, "sched", "sched_process_fork", "sched_process_fork"},
		{skel->progs.process_exit, "sched", "sched_process_exit", "sched_process_exit"},
		{skel->progs.raw_enter, "raw_syscalls", "sys_enter", "raw_syscalls"},
		{skel->progs.raw_exit, "raw_syscalls", "sys_exit", "raw_syscalls"},
		{skel->progs.io_uring_submit, "io_uring", "io_uring_submit_req", "io_uring_submit_req"},
		{skel->progs.enter_bind, "syscalls", "sys_enter_bind", "bind"},
		{skel->progs.seccomp_refused, "raw_syscalls", "sys_exit", NULL},
	};
	enum { FIXED_BIND = 16 };
	const size_t nfixed = sizeof(fixed) / sizeof(fixed[0]);
	bool enabled[sizeof(fixed) / sizeof(fixed[0])];
	for (size_t i = 0; i < nfixed; i++) {
		enabled[i] = has_tracepoint(events, fixed[i].category, fixed[i].name);
#ifndef __x86_64__
		if (fixed[i].prog == skel->progs.raw_enter || fixed[i].prog == skel->progs.raw_exit ||
		    fixed[i].prog == skel->progs.seccomp_refused)
			enabled[i] = false; /* the compat probes know only x86's TS_COMPAT and i386 numbers */
#endif
	}
	/* An exec or a raw_syscalls pair goes together. */
	for (size_t i = 0; i + 1 < nfixed; i++) {
		if (fixed[i].label && fixed[i + 1].label && strcmp(fixed[i].label, fixed[i + 1].label) == 0 &&
		    fixed[i].prog != skel->progs.process_exec) {
			bool both = enabled[i] && enabled[i + 1];
			enabled[i] = enabled[i + 1] = both;
		}
	}
	for (size_t i = 0; i < nfixed; i++) {
		if (enabled[i])
			continue;
		bpf_program__set_autoload(fixed[i].prog, false);
		if (fixed[i].label && !(i > 0 && fixed[i - 1].label && strcmp(fixed[i - 1].label, fixed[i].label) == 0))
			add_missing(fixed[i].label);
	}
	/*
	 * Calls without their own tracepoints: raw_syscalls serves those with a native number, when it
	 * is attached (x86); the rest are reported missing.
	 */
	bool raw_attached = false;
	for (size_t i = 0; i < nfixed; i++)
		if (fixed[i].prog == skel->progs.raw_enter)
			raw_attached = enabled[i];
	bool by_raw[TRACED_CALL_COUNT];
	__u32 raw_count = 0;
	for (__u32 i = 0; i < TRACED_CALL_COUNT; i++) {
		bool own = has_syscall(events, TRACED_CALLS[i].tracepoint);
		by_raw[i] = !own && raw_attached && TRACED_CALLS[i].nr >= 0 && TRACED_CALLS[i].nr < RAW_CALL_SLOTS;
		if (by_raw[i])
			raw_count++;
		else if (!own)
			add_missing(TRACED_CALLS[i].name);
	}
	skel->rodata->raw_call_count = raw_count;

	bool net_exit_used = enabled[5] || enabled[6] || enabled[FIXED_BIND];
	bool fork_exit_used = enabled[7] || enabled[8] || enabled[9] || enabled[10];
	if (!net_exit_used)
		bpf_program__set_autoload(skel->progs.sys_exit_net, false);
	if (!fork_exit_used)
		bpf_program__set_autoload(skel->progs.sys_exit_fork, false);

	int err = agentguard_bpf__load(skel);
	if (err == -E2BIG && env) {
		/* The exec-environment scan is what grows past an older verifier's limit: the caller retries without it. */
		agentguard_bpf__destroy(skel);
		skel = NULL;
		missing[0] = 0;
		return err;
	}
	if (err)
		fail("loading the BPF programs", -err);

	for (__u32 i = 0; i < TRACED_CALL_COUNT; i++) {
		if (bpf_map__update_elem(skel->maps.calls, &i, sizeof(i), &TRACED_CALLS[i].desc,
					 sizeof(TRACED_CALLS[i].desc), BPF_ANY))
			fail("filling the call table", errno);
	}
	for (size_t i = 0; i < EXEC_ENV_NAME_COUNT + EXEC_ENV_PREFIX_COUNT; i++) {
		bool prefix = i >= EXEC_ENV_NAME_COUNT;
		const char *name = prefix ? EXEC_ENV_PREFIXES[i - EXEC_ENV_NAME_COUNT] : EXEC_ENV_NAMES[i];
		struct env_name key = {0};
		__u8 kind = prefix ? ENV_PREFIX : ENV_EXACT;
		strncpy(key.s, name, sizeof(key.s) - 1);
		if (bpf_map__update_elem(skel->maps.env_names, &key, sizeof(key), &kind, sizeof(kind), BPF_ANY))
			fail("filling the environment names", errno);
	}
	for (__u32 i = 0; i < TRACED_CALL_COUNT; i++) {
		if (!by_raw[i])
			continue;
		__u32 nr = TRACED_CALLS[i].nr, slot = i + 1;
		if (bpf_map__update_elem(skel->maps.raw_calls, &nr, sizeof(nr), &slot, sizeof(slot), BPF_ANY))
			fail("filling the raw call table", errno);
	}
	for (size_t i = 0; i < nfixed; i++) {
		if (!enabled[i])
			continue;
		err = attach_tp(fixed[i].prog, fixed[i].category, fixed[i].name, 0);
		if (err)
			fail(fixed[i].name, -err);
	}
	if (enabled[5] && attach_tp(skel->progs.sys_exit_net, "syscalls", "sys_exit_connect", 0))
		fail("sys_exit_connect", errno);
	if (enabled[6] && attach_tp(skel->progs.sys_exit_net, "syscalls", "sys_exit_sendto", 0))
		fail("sys_exit_sendto", errno);
	if (enabled[FIXED_BIND] && attach_tp(skel->progs.sys_exit_net, "syscalls", "sys_exit_bind", 0))
		fail("sys_exit_bind", errno);
	static const char *forks[] = {"clone", "clone3", "fork", "vfork"};
	for (int i = 0; i < 4; i++) {
		char tp[64];
		snprintf(tp, sizeof(tp), "sys_exit_%s", forks[i]);
		if (enabled[7 + i] && attach_tp(skel->progs.sys_exit_fork, "syscalls", tp, 0))
			fail(tp, errno);
	}
	for (__u32 i = 0; i < TRACED_CALL_COUNT; i++) {
		if (!has_syscall(events, TRACED_CALLS[i].tracepoint))
			continue;
		err = attach_syscall(skel->progs.sys_enter_call, skel->progs.sys_exit_call, TRACED_CALLS[i].tracepoint, i);
		if (err)
			fail(TRACED_CALLS[i].tracepoint, -err);
	}
	snprintf(version, sizeof(version), "agentguard-collector %s libbpf %u.%u%s", VERSION, libbpf_major_version(),
		 libbpf_minor_version(), env ? "" : ", no exec environment");
	return 0;
}

/*
 * Load and attach every program. A kernel whose verifier refuses the exec-environment scan as too
 * large (Debian 12's 6.1 reaches its million-instruction limit) gets the collector without it,
 * said on stderr and in the version line; execs then carry no environment, as under bpftrace.
 */
void load(uint64_t ring_bytes)
{
	if (try_load(ring_bytes, true) == 0)
		return;
	fprintf(stderr, "agentguard-collector: this kernel's verifier refused the exec-environment scan "
			"(program too large); loading without it: execs' environments are not recorded\n");
	try_load(ring_bytes, false);
}

/*
 * Detaching a tracepoint waits for an RCU grace period (about 50 ms each, 5 s for all of them in
 * a row); detaching from several threads lets the waits overlap.
 */
#define DETACH_THREADS 16

static void *detach_slice(void *arg)
{
	long first = (long)arg;
	for (int i = first; i < link_count; i += DETACH_THREADS)
		bpf_link__destroy(links[i]);
	return NULL;
}

void detach_all(void)
{
	pthread_t threads[DETACH_THREADS];
	int started = 0;
	for (long i = 0; i < DETACH_THREADS; i++) {
		if (pthread_create(&threads[started], NULL, detach_slice, (void *)i) == 0)
			started++;
		else
			detach_slice((void *)i);
	}
	for (int i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	link_count = 0;
}
