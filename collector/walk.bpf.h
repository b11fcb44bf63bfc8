/* The directory walk of a relative path's base directory (bpftrace-snippets.ts walk). Included by agentguard.bpf.c. */
#ifndef AGENTGUARD_WALK_BPF_H
#define AGENTGUARD_WALK_BPF_H

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

/* A dentry's name as PARTs from `slot`: one per MAX_STRING_BYTES, up to NAME_MAX. */
static __always_inline void name_parts(__u64 cgid, __u32 tid, __u32 slot, __u64 t, struct dentry *d)
{
	const unsigned char *name = BPF_CORE_READ(d, d_name.name);
	__u32 len = BPF_CORE_READ(d, d_name.len);
	part(cgid, part_key(tid, slot, 0), t, name, STRLEN, SRC_KERNEL);
	for (__u32 chunk = 1; chunk < NAME_CHUNKS; chunk++) {
		if (len >= chunk * MAX_STRING_BYTES)
			part(cgid, part_key(tid, slot, chunk), t, name + chunk * MAX_STRING_BYTES, STRLEN, SRC_KERNEL);
	}
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
		name_parts(w->cgid, w->tid, w->slot + i, w->t, wd);
		w->wd = up;
	}
	w->steps = i + 1;
	return 0;
}

/*
 * Walks directory `wd` on mount `wvm` up to the task's root, one PART per step from `slot`; sets
 * the walk result and the directory id.
 */
static __always_inline void walk_from(__u64 cgid, __u32 tid, __u64 t, struct dentry *wd, struct vfsmount *wvm,
				      __u32 slot, __s64 *result, __s64 *dirid, int remember)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
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
		if (remember)
			bpf_map_update_elem(&wc, &key, &start_key, BPF_ANY);
		*result = w.result;
	}
}

/* The open file behind descriptor `fd` of the current task, or NULL. */
static __always_inline struct file *fd_file(__s64 fd)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	if (fd < 0 || fd >= BPF_CORE_READ(task, files, fdt, max_fds))
		return NULL;
	struct file **fds = BPF_CORE_READ(task, files, fdt, fd);
	struct file *f = NULL;
	bpf_probe_read_kernel(&f, sizeof(f), fds + fd);
	return f;
}

/*
 * Walks the base directory of a relative path (the cwd for AT_FDCWD, else the directory fd) up
 * to the task's root, one PART per step from `slot`; sets the walk result and the directory id.
 */
static __always_inline void walk(__u64 cgid, __u32 tid, __u64 t, __s64 dfd, __u32 slot, __s64 *result,
				 __s64 *dirid)
{
	struct dentry *wd = NULL;
	struct vfsmount *wvm = NULL;
	if (dfd == AT_FDCWD_VALUE) {
		struct task_struct *task = (struct task_struct *)bpf_get_current_task();
		wd = BPF_CORE_READ(task, fs, pwd.dentry);
		wvm = BPF_CORE_READ(task, fs, pwd.mnt);
	} else {
		struct file *f = fd_file(dfd);
		if (f) {
			wd = BPF_CORE_READ(f, f_path.dentry);
			wvm = BPF_CORE_READ(f, f_path.mnt);
		}
	}
	if (wd)
		walk_from(cgid, tid, t, wd, wvm, slot, result, dirid, 1);
}

/* What the kernel resolved a path to: the file's identity and its path (walk_file). */
struct resolved {
	__s64 walk;
	__s64 dir;
	__s64 ino;
	__s64 dev;
};

/*
 * The path of an open file as the task's root sees it: its name in SLOT_RESOLVED_NAME and its
 * directory walked into SLOT_WALK2 (remembered like any walked directory, so a second file of the
 * same directory costs one PART, unless `remember` is 0: a walk whose record may be dropped must not
 * be one a later walk stops at). A file that is a mount root (a bind-mounted file) sends an empty
 * name and walks from the file itself, which crosses to its mount point. Also its inode and device.
 */
static __always_inline void walk_file(__u64 cgid, __u32 tid, __u64 t, struct file *f, struct resolved *out,
				     int remember)
{
	out->walk = WALK_NONE;
	out->dir = 0;
	out->ino = 0;
	out->dev = 0;
	if (!f)
		return;
	struct dentry *d = BPF_CORE_READ(f, f_path.dentry);
	struct vfsmount *mnt = BPF_CORE_READ(f, f_path.mnt);
	if (!d || !mnt)
		return;
	struct inode *inode = BPF_CORE_READ(f, f_inode);
	out->ino = BPF_CORE_READ(inode, i_ino);
	out->dev = BPF_CORE_READ(inode, i_sb, s_dev);
	struct dentry *up = BPF_CORE_READ(d, d_parent);
	int mount_root = d == BPF_CORE_READ(mnt, mnt_root);
	if (up == d && !mount_root) {
		/* A file outside any directory tree (a pipe, socket or memfd): no path, as fchmod's. */
		out->walk = WALK_INCOMPLETE;
		return;
	}
	if (mount_root) {
		part(cgid, part_key(tid, SLOT_RESOLVED_NAME, 0), t, NULL, STRLEN, SRC_NONE);
		walk_from(cgid, tid, t, d, mnt, SLOT_WALK2, &out->walk, &out->dir, remember);
		return;
	}
	name_parts(cgid, tid, SLOT_RESOLVED_NAME, t, d);
	walk_from(cgid, tid, t, up, mnt, SLOT_WALK2, &out->walk, &out->dir, remember);
}

#endif
