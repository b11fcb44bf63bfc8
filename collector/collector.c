/*
 * agentguard-collector: loads the compiled BPF programs once and serves every run on the host.
 *
 *   agentguard-collector --socket PATH [--idle-exit SECONDS] [--log FILE] [--ring-mib N | --ring-kib N]
 *
 * A run connects to the UNIX socket and sends `WATCH <cgroup-id> <file>`: the collector opens the
 * file, adds the cgroup and every cgroup below it to the kernel filter, writes READY to the file and replies
 * `OK <version> <missing calls, comma-separated, or ->`. Every record of the cgroup's tasks is then
 * written to that file as the line bpftrace would print, with a TICK every 100 ms. `STOP` (or the
 * connection closing) removes the cgroup, drains the ring, writes the last lost count and TICK,
 * closes the file and replies `DONE <lost-total>`. Errors reply `ERR <sentence>` and close.
 * Programs are attached by links this process owns (nothing pinned): when it dies, they go too.
 */
#define _GNU_SOURCE
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/types.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "agentguard.skel.h"
#include "output.h"
#include "protocol.h"
#include "loader.h"
#include "records.h"

#define MAX_CLIENTS 256
#define CONSUME_MS 20
#define TICK_NS 100000000ULL
/* A TICK's time is the last consume's start minus this: a record stamped before it is committed. */
#define TICK_MARGIN_NS 5000000ULL
#define OUT_BUFFER (256 * 1024)
#define EXIT_EXISTS 3

struct client {
	int fd;
	char in[COMMAND_MAX + 1];
	size_t in_len;
	bool watching;
	uint64_t cgid;
	/* The cgroup's ancestors, parent first up to the root cgroup: their count is its depth. */
	uint64_t ancestors[MAX_CGROUP_DEPTH];
	int depth;
	FILE *out;
	uint64_t lost_reported;
	bool dirty;
};

static struct ring_buffer *ring;
static struct client clients[MAX_CLIENTS];
static int epfd = -1;
static int listen_fd = -1;
static const char *socket_path;
static volatile sig_atomic_t stop_requested;
static int cgroup_mount_fd = -1;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void log_line(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("agentguard-collector: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* ---- the cgroup filter ---- */

/*
 * Opens a cgroup by its id (a kernfs file id) and fills its ancestors, parent first, up to the root
 * cgroup: their count is its depth, at which the kernel filter looks the task's ancestor up. Returns
 * 0, or a sentence in `why`.
 */
static int cgroup_ancestors(uint64_t id, uint64_t *ancestors, int *depth, char *why, size_t why_len)
{
	if (cgroup_mount_fd < 0) {
		snprintf(why, why_len, "no cgroup v2 hierarchy is mounted where the collector runs");
		return -1;
	}
	struct stat root;
	if (fstat(cgroup_mount_fd, &root) != 0 || root.st_ino != 1) {
		snprintf(why, why_len,
			 "the collector's cgroup v2 mount is not the root cgroup (a cgroup namespace?), so it cannot tell "
			 "a cgroup's depth; run it in the host's cgroup namespace");
		return -1;
	}
	struct {
		struct file_handle handle;
		uint64_t id;
	} h = {.handle = {.handle_bytes = sizeof(uint64_t), .handle_type = 0xfe /* FILEID_KERNFS */}, .id = id};
	int fd = open_by_handle_at(cgroup_mount_fd, &h.handle, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ESTALE || errno == ENOENT)
			snprintf(why, why_len, "no cgroup has id %llu", (unsigned long long)id);
		else
			snprintf(why, why_len, "cannot open cgroup %llu by its id: %s", (unsigned long long)id,
				 strerror(errno));
		return -1;
	}
	*depth = 0;
	for (;;) {
		struct stat st;
		if (fstat(fd, &st) != 0 || st.st_dev != root.st_dev) {
			close(fd);
			snprintf(why, why_len, "cgroup %llu is not in the collector's cgroup v2 mount", (unsigned long long)id);
			return -1;
		}
		if (st.st_ino == root.st_ino)
			break;
		int up = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		close(fd);
		fd = up;
		if (fd < 0 || *depth >= MAX_CGROUP_DEPTH) {
			if (fd >= 0)
				close(fd);
			snprintf(why, why_len, "cgroup %llu is deeper than %d levels", (unsigned long long)id,
				 MAX_CGROUP_DEPTH);
			return -1;
		}
		struct stat parent;
		if (fstat(fd, &parent) != 0) {
			close(fd);
			snprintf(why, why_len, "cannot read cgroup %llu's ancestors", (unsigned long long)id);
			return -1;
		}
		ancestors[(*depth)++] = parent.st_ino;
	}
	close(fd);
	return 0;
}

/* Watches per depth slot (the kernel's watch_depths holds depth + 1 while its count is nonzero). */
static unsigned depth_watches[WATCH_DEPTHS];

static int take_depth(int depth)
{
	int free_slot = -1;
	for (int i = 0; i < WATCH_DEPTHS; i++) {
		if (depth_watches[i] && skel->bss->watch_depths[i] == (__u32)depth + 1) {
			depth_watches[i]++;
			return i;
		}
		if (!depth_watches[i] && free_slot < 0)
			free_slot = i;
	}
	if (free_slot >= 0) {
		depth_watches[free_slot] = 1;
		skel->bss->watch_depths[free_slot] = depth + 1;
	}
	return free_slot;
}

static void release_depth(int depth)
{
	for (int i = 0; i < WATCH_DEPTHS; i++) {
		if (depth_watches[i] && skel->bss->watch_depths[i] == (__u32)depth + 1) {
			if (--depth_watches[i] == 0)
				skel->bss->watch_depths[i] = 0;
			return;
		}
	}
}

static void open_cgroup_mount(void)
{
	FILE *mounts = fopen("/proc/self/mounts", "re");
	if (!mounts)
		return;
	char dev[256], dir[4096], type[64];
	while (fscanf(mounts, "%255s %4095s %63s %*[^\n]", dev, dir, type) == 3) {
		if (strcmp(type, "cgroup2") == 0) {
			cgroup_mount_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			break;
		}
	}
	fclose(mounts);
}

static int find_watch(uint64_t cgid)
{
	static int last = -1;
	if (last >= 0 && clients[last].watching && clients[last].cgid == cgid)
		return last;
	for (int i = 0; i < MAX_CLIENTS; i++) {
		if (clients[i].fd >= 0 && clients[i].watching && clients[i].cgid == cgid)
			return last = i;
	}
	return -1;
}

static int on_record(void *ctx, void *data, size_t size)
{
	(void)ctx;
	if (size < sizeof(struct rec_head))
		return 0;
	int i = find_watch(((struct rec_head *)data)->cgid);
	if (i < 0)
		return 0; /* a run that stopped while its last records were in flight */
	if (write_record(clients[i].out, data, size) == 0)
		clients[i].dirty = true;
	return 0;
}

static uint64_t lost_total(uint64_t cgid)
{
	uint64_t n = 0;
	bpf_map__lookup_elem(skel->maps.lost, &cgid, sizeof(cgid), &n, sizeof(n), 0);
	return n;
}

static void report_lost(struct client *c)
{
	uint64_t total = lost_total(c->cgid);
	if (total > c->lost_reported) {
		write_lost(c->out, total - c->lost_reported);
		c->lost_reported = total;
		c->dirty = true;
	}
}

/* ---- clients ---- */

static void reply(struct client *c, const char *fmt, ...)
{
	char line[COMMAND_MAX + 128];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	/* Replies are a line each and the client waits for them: the socket buffer has room. */
	(void)send(c->fd, line, n, MSG_NOSIGNAL | MSG_DONTWAIT);
}

/* Ends a watch: out of the filter, ring drained, last lost count and TICK written, file closed. */
static uint64_t end_watch(struct client *c)
{
	bpf_map__delete_elem(skel->maps.cgroups, &c->cgid, sizeof(c->cgid), 0);
	skel->bss->watches--;
	release_depth(c->depth);
	/* A program that passed the filter just before may still be writing its record. */
	ring_buffer__consume(ring);
	usleep(2000);
	uint64_t t = now_ns();
	ring_buffer__consume(ring);
	report_lost(c);
	write_clock(c->out, REC_TICK, t);
	fclose(c->out);
	c->out = NULL;
	uint64_t total = c->lost_reported;
	bpf_map__delete_elem(skel->maps.lost, &c->cgid, sizeof(c->cgid), 0);
	bpf_map__delete_elem(skel->maps.gens, &c->cgid, sizeof(c->cgid), 0);
	c->watching = false;
	return total;
}

static void drop_client(struct client *c)
{
	if (c->watching)
		end_watch(c);
	epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->fd = -1;
	c->in_len = 0;
}

static void refuse(struct client *c, const char *fmt, ...)
{
	char sentence[COMMAND_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(sentence, sizeof(sentence), fmt, ap);
	va_end(ap);
	reply(c, "ERR %s", sentence);
	drop_client(c);
}

static void watch(struct client *c, uint64_t cgid, const char *path)
{
	if (c->watching) {
		refuse(c, "this connection already watches cgroup %llu (one connection, one watch)",
		       (unsigned long long)c->cgid);
		return;
	}
	if (find_watch(cgid) >= 0) {
		refuse(c, "cgroup %llu is already watched by another run", (unsigned long long)cgid);
		return;
	}
	char why[256];
	uint64_t ancestors[MAX_CGROUP_DEPTH];
	int depth = 0;
	if (cgroup_ancestors(cgid, ancestors, &depth, why, sizeof(why)) != 0) {
		refuse(c, "%s", why);
		return;
	}
	/* A task is one run's: a watched cgroup never holds, nor lies below, another watched one. */
	for (int i = 0; i < depth; i++) {
		if (find_watch(ancestors[i]) >= 0) {
			refuse(c, "cgroup %llu lies below cgroup %llu, which another run watches",
			       (unsigned long long)cgid, (unsigned long long)ancestors[i]);
			return;
		}
	}
	for (int i = 0; i < MAX_CLIENTS; i++) {
		struct client *o = &clients[i];
		if (o->fd < 0 || !o->watching)
			continue;
		for (int k = 0; k < o->depth; k++) {
			if (o->ancestors[k] == cgid) {
				refuse(c, "cgroup %llu holds cgroup %llu, which another run watches",
				       (unsigned long long)cgid, (unsigned long long)o->cgid);
				return;
			}
		}
	}
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		refuse(c, "cannot open %s: %s", path, strerror(errno));
		return;
	}
	FILE *out = fdopen(fd, "w");
	if (!out) {
		close(fd);
		refuse(c, "cannot open %s: %s", path, strerror(errno));
		return;
	}
	setvbuf(out, NULL, _IOFBF, OUT_BUFFER);
	if (take_depth(depth) < 0) {
		fclose(out);
		refuse(c, "watched cgroups already sit at %d different depths (the most the kernel filter looks at)",
		       WATCH_DEPTHS);
		return;
	}
	uint64_t zero = 0;
	__u8 one = 1;
	if (bpf_map__update_elem(skel->maps.lost, &cgid, sizeof(cgid), &zero, sizeof(zero), BPF_ANY) ||
	    bpf_map__update_elem(skel->maps.gens, &cgid, sizeof(cgid), &zero, sizeof(zero), BPF_ANY) ||
	    bpf_map__update_elem(skel->maps.cgroups, &cgid, sizeof(cgid), &one, sizeof(one), BPF_ANY)) {
		int err = errno;
		bpf_map__delete_elem(skel->maps.cgroups, &cgid, sizeof(cgid), 0);
		release_depth(depth);
		fclose(out);
		refuse(c, "cannot add cgroup %llu to the filter: %s", (unsigned long long)cgid, strerror(err));
		return;
	}
	skel->bss->watches++;
	/* READY's time is taken after the filter has the cgroup: every later event is traced. */
	write_clock(out, REC_READY, now_ns());
	fflush(out);
	c->watching = true;
	c->cgid = cgid;
	c->depth = depth;
	memcpy(c->ancestors, ancestors, depth * sizeof(ancestors[0]));
	c->out = out;
	c->lost_reported = 0;
	c->dirty = false;
	reply(c, "OK %s %s", version, missing[0] ? missing : "-");
}

static void on_line(struct client *c, char *line)
{
	struct command cmd = parse_command(line);
	switch (cmd.kind) {
	case CMD_WATCH:
		watch(c, cmd.cgroup_id, cmd.path);
		break;
	case CMD_STOP:
		if (!c->watching) {
			refuse(c, "STOP without a WATCH");
			return;
		}
		uint64_t lost_count = end_watch(c);
		reply(c, "DONE %llu", (unsigned long long)lost_count);
		drop_client(c);
		break;
	case CMD_INVALID:
		refuse(c, "%s", cmd.error);
		break;
	}
}

static void on_readable(struct client *c)
{
	for (;;) {
		ssize_t n = recv(c->fd, c->in + c->in_len, sizeof(c->in) - 1 - c->in_len, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
			drop_client(c); /* closed without STOP: the run was killed */
			return;
		}
		if (n < 0)
			return;
		c->in_len += n;
		char *start = c->in;
		char *nl;
		while (c->fd >= 0 && (nl = memchr(start, '\n', c->in + c->in_len - start))) {
			*nl = 0;
			on_line(c, start);
			start = nl + 1;
		}
		if (c->fd < 0)
			return;
		c->in_len -= start - c->in;
		memmove(c->in, start, c->in_len);
		if (c->in_len >= sizeof(c->in) - 1) {
			refuse(c, "command line too long (at most %d bytes)", COMMAND_MAX);
			return;
		}
	}
}

static void on_accept(void)
{
	for (;;) {
		int fd = accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		int slot = -1;
		for (int i = 0; i < MAX_CLIENTS; i++) {
			if (clients[i].fd < 0) {
				slot = i;
				break;
			}
		}
		if (slot < 0) {
			static const char busy[] = "ERR too many clients\n";
			(void)send(fd, busy, sizeof(busy) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
			close(fd);
			continue;
		}
		struct client *c = &clients[slot];
		memset(c, 0, sizeof(*c));
		c->fd = fd;
		struct epoll_event ev = {.events = EPOLLIN, .data.u32 = slot};
		epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
	}
}

/* ---- the socket ---- */

static void bind_socket(const char *path)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof(addr.sun_path)) {
		fprintf(stderr, "agentguard-collector: socket path too long: %s\n", path);
		exit(1);
	}
	strcpy(addr.sun_path, path);
	struct stat st;
	if (lstat(path, &st) == 0) {
		int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (probe >= 0 && connect(probe, (struct sockaddr *)&addr, sizeof(addr)) == 0) {
			fprintf(stderr, "agentguard-collector: already running (socket %s answers)\n", path);
			exit(EXIT_EXISTS);
		}
		if (probe >= 0)
			close(probe);
		if (!S_ISSOCK(st.st_mode)) {
			fprintf(stderr, "agentguard-collector: %s exists and is not a socket\n", path);
			exit(1);
		}
		unlink(path); /* stale: its collector is gone */
	}
	listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	mode_t old = umask(0177);
	int err = bind(listen_fd, (struct sockaddr *)&addr, sizeof(addr));
	umask(old);
	if (err || listen(listen_fd, 64)) {
		if (errno == EADDRINUSE) {
			fprintf(stderr, "agentguard-collector: already running (socket %s was bound meanwhile)\n", path);
			exit(EXIT_EXISTS);
		}
		fprintf(stderr, "agentguard-collector: cannot listen on %s: %s\n", path, strerror(errno));
		exit(1);
	}
	chmod(path, 0600);
}

/*
 * One collector per socket: `PATH.lock` is held (flock) from before loading until the socket is
 * gone, so two starting at once cannot both replace a stale socket, and the loser learns it
 * before loading anything. The kernel drops the lock when the holder dies, even by kill -9.
 */
static int lock_fd = -1;

static void take_lock(const char *path)
{
	char lock_path[PATH_MAX];
	if (snprintf(lock_path, sizeof(lock_path), "%s.lock", path) >= (int)sizeof(lock_path)) {
		fprintf(stderr, "agentguard-collector: socket path too long: %s\n", path);
		exit(1);
	}
	lock_fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (lock_fd < 0) {
		fprintf(stderr, "agentguard-collector: cannot open %s: %s\n", lock_path, strerror(errno));
		exit(1);
	}
	if (flock(lock_fd, LOCK_EX | LOCK_NB) != 0) {
		if (errno == EWOULDBLOCK) {
			fprintf(stderr, "agentguard-collector: already running (%s is locked)\n", lock_path);
			exit(EXIT_EXISTS);
		}
		fprintf(stderr, "agentguard-collector: cannot lock %s: %s\n", lock_path, strerror(errno));
		exit(1);
	}
}

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void usage(void)
{
	fprintf(stderr, "usage: agentguard-collector --socket PATH [--idle-exit SECONDS] [--log FILE] "
			"[--ring-mib N | --ring-kib N]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static struct option options[] = {
		{"socket", required_argument, 0, 's'},   {"idle-exit", required_argument, 0, 'i'},
		{"log", required_argument, 0, 'l'},      {"ring-mib", required_argument, 0, 'm'},
		{"ring-kib", required_argument, 0, 'k'}, {0, 0, 0, 0},
	};
	double idle_exit = 30;
	uint64_t ring_bytes = 16ULL << 20;
	const char *log_path = NULL;
	int opt;
	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (opt) {
		case 's': socket_path = optarg; break;
		case 'i': idle_exit = atof(optarg); break;
		case 'l': log_path = optarg; break;
		case 'm': ring_bytes = strtoull(optarg, NULL, 10) << 20; break;
		case 'k': ring_bytes = strtoull(optarg, NULL, 10) << 10; break;
		default: usage();
		}
	}
	if (!socket_path || optind != argc || idle_exit <= 0)
		usage();
	if (ring_bytes < 4096 || (ring_bytes & (ring_bytes - 1))) {
		fprintf(stderr, "agentguard-collector: the ring size must be a power of two of at least 4 KiB\n");
		exit(2);
	}
	for (int i = 0; i < MAX_CLIENTS; i++)
		clients[i].fd = -1;
	signal(SIGPIPE, SIG_IGN);
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	take_lock(socket_path);
	load(ring_bytes);
	ring = ring_buffer__new(bpf_map__fd(skel->maps.rb), on_record, NULL, NULL);
	if (!ring)
		fail("creating the ring buffer reader", errno);
	bind_socket(socket_path);
	open_cgroup_mount();
	if (log_path) {
		int fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
		if (fd >= 0) {
			dup2(fd, STDERR_FILENO);
			close(fd);
		}
	}
	epfd = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event ev = {.events = EPOLLIN, .data.u32 = MAX_CLIENTS};
	epoll_ctl(epfd, EPOLL_CTL_ADD, listen_fd, &ev);
	ev.data.u32 = MAX_CLIENTS + 1;
	epoll_ctl(epfd, EPOLL_CTL_ADD, ring_buffer__epoll_fd(ring), &ev);
	printf("READY %d\n", getpid());
	fflush(stdout);
	log_line("serving on %s (%s; not traced: %s)", socket_path, version, missing[0] ? missing : "-");

	uint64_t last_tick = now_ns();
	uint64_t idle_since = now_ns();
	struct epoll_event events[64];
	while (!stop_requested) {
		int n = epoll_wait(epfd, events, 64, CONSUME_MS);
		for (int i = 0; i < n; i++) {
			__u32 id = events[i].data.u32;
			if (id == MAX_CLIENTS)
				on_accept();
			else if (id < MAX_CLIENTS && clients[id].fd >= 0)
				on_readable(&clients[id]);
		}
		uint64_t before = now_ns();
		ring_buffer__consume(ring);
		bool any = false;
		bool tick = now_ns() - last_tick >= TICK_NS;
		if (tick)
			last_tick = now_ns();
		for (int i = 0; i < MAX_CLIENTS; i++) {
			struct client *c = &clients[i];
			if (c->fd < 0)
				continue;
			any = true;
			if (!c->watching)
				continue;
			if (tick) {
				report_lost(c);
				write_clock(c->out, REC_TICK, before - TICK_MARGIN_NS);
				c->dirty = true;
			}
			if (c->dirty) {
				fflush(c->out);
				c->dirty = false;
			}
		}
		if (any)
			idle_since = now_ns();
		else if ((double)(now_ns() - idle_since) / 1e9 >= idle_exit)
			break;
	}
	for (int i = 0; i < MAX_CLIENTS; i++) {
		if (clients[i].fd >= 0)
			drop_client(&clients[i]);
	}
	unlink(socket_path);
	/* A successor may start now, while the links are detached (that takes seconds). */
	close(lock_fd);
	ring_buffer__free(ring);
	detach_all();
	agentguard_bpf__destroy(skel);
	log_line("exiting (%s)", stop_requested ? "signal" : "idle");
	return 0;
}
