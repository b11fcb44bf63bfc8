/*
 * An exec's loader and interpreter variables (src/evidence/exec-env.ts), read from the caller's
 * envp at the exec's entry: each entry whose name the env_names map holds (by exact name, or by
 * its first EXEC_ENV_PREFIX_LEN bytes for a prefix) is sent whole, chunked like a path, in slot
 * SLOT_ENV + n. Bounded: MAX_ENV_SCANNED entries, MAX_ENV recorded; over either, EXEC_ENV_CUT.
 * Included by agentguard.bpf.c.
 */
#ifndef AGENTGUARD_ENV_BPF_H
#define AGENTGUARD_ENV_BPF_H

struct env_scan {
	__u64 envp;
	__u64 cgid;
	__u64 t;
	__u32 tid;
	__u32 count;
	__u32 cut;
	__u32 end;
};

/* Whether an entry's name is recorded: `name` holds its first bytes, zero-padded from `eq` (the '='). */
static __always_inline int env_recorded(struct env_name *name, int eq)
{
	if (bpf_map_lookup_elem(&env_names, name))
		return 1;
	if (eq <= EXEC_ENV_PREFIX_LEN)
		return 0;
	struct env_name prefix = {};
	for (int k = 0; k < EXEC_ENV_PREFIX_LEN && k < ENV_NAME_BYTES; k++)
		prefix.s[k] = name->s[k];
	__u8 *kind = bpf_map_lookup_elem(&env_names, &prefix);
	return kind && *kind == ENV_PREFIX;
}

static long env_step(__u32 i, void *data)
{
	struct env_scan *s = data;
	const char *entry = NULL;
	if (bpf_probe_read_user(&entry, sizeof(entry), (const void *)(s->envp + (__u64)i * sizeof(entry))) ||
	    !entry) {
		s->end = 1;
		return 1;
	}
	struct env_name name = {};
	if (bpf_probe_read_user_str(name.s, sizeof(name.s), entry) <= 0)
		return 0;
	int eq = -1;
	for (int k = 0; k < ENV_NAME_BYTES; k++) {
		if (name.s[k] == '=') {
			eq = k;
			break;
		}
		if (name.s[k] == 0)
			break;
	}
	/* No '=' within the first bytes: a name longer than any recorded one. */
	if (eq <= 0)
		return 0;
	for (int k = 0; k < ENV_NAME_BYTES; k++)
		if (k >= eq)
			name.s[k] = 0;
	if (!env_recorded(&name, eq))
		return 0;
	if (s->count >= MAX_ENV) {
		s->cut = 1;
		return 1;
	}
	__u32 zero = 0;
	struct scratch *sb = bpf_map_lookup_elem(&scratch, &zero);
	if (!sb)
		return 1;
	chunked(sb, 0, s->cgid, s->tid, SLOT_ENV + (s->count & (MAX_ENV - 1)), s->t, entry, SRC_USER, 1);
	s->count++;
	return 0;
}

/* The flags-word bits of the environment at `envp` (records.h), its entries sent as PARTs at `t`. */
static __always_inline __s64 exec_env(__u64 cgid, __u32 tid, __u64 t, __u64 envp)
{
	struct env_scan s = {.envp = envp, .cgid = cgid, .t = t, .tid = tid};
	if (!record_env)
		return 0;
	if (envp) {
		bpf_loop(MAX_ENV_SCANNED, env_step, &s, 0);
		if (!s.end)
			s.cut = 1;
	}
	return ((__s64)s.count << EXEC_ENV_SHIFT) | EXEC_ENV_RECORDED | (s.cut ? EXEC_ENV_CUT : 0);
}

#endif
