/* Operations an io_uring runs (io-uring-probes.ts). Included by agentguard.bpf.c. */
#ifndef AGENTGUARD_IO_URING_BPF_H
#define AGENTGUARD_IO_URING_BPF_H

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
		once_per_process(cgid, opcode, CODE_IO_URING_OP, 0, opcode);
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
	r->v[11] = 0;
	r->v[12] = 0;
	if (bpf_probe_read_kernel_str(r->s, STRLEN, sb->path[0]) < 0)
		r->s[0] = 0;
	bpf_ringbuf_submit(r, wake_flags());
	return 0;
}

#endif
