/* connect, sendto and bind with their socket address (net-probes.ts). Included by agentguard.bpf.c. */
#ifndef AGENTGUARD_NET_BPF_H
#define AGENTGUARD_NET_BPF_H

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

/* The local address a socket takes: which loopback ports the run's own servers hold. */
SEC("tp/syscalls/sys_enter_bind")
int enter_bind(struct trace_event_raw_sys_enter *ctx)
{
	net_enter(ctx->args[1], CODE_BIND);
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

#endif
