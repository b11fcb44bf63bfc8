import {
  AT_FDCWD,
  DIR_ID_MASK,
  KEY_CHUNK,
  KEY_TID,
  MAX_STRING_BYTES,
  MAX_WALK,
  REC_PART,
  WALK_ANCESTOR,
  WALK_INCOMPLETE,
  WALK_NONE,
} from './record-format.js';

// Pieces of bpftrace source shared by the probes of the generated script.

/** offsetof(struct mount, mnt): mnt_hash (hlist_node), mnt_parent and mnt_mountpoint come first. */
const MOUNT_TO_VFSMOUNT = 32;

export function probe(attach: string, filter: string | null, body: string): string {
  return `${attach}\n${filter ? `/${filter}/\n` : ''}{\n${indent(body)}\n}`;
}

export function partKey(slot: number, chunk = 0): string {
  return `tid * ${KEY_TID} + ${chunk * KEY_CHUNK + slot}`;
}

/**
 * Prints a string in chunks of MAX_STRING_BYTES. bpftrace 0.17 has no strlen, so the length is
 * found a word at a time (a word holding a NUL byte ends the string); the bytes after a NUL are
 * whatever the memory holds, so testing single bytes would send chunks of garbage.
 */
export function chunkedString(
  pointer: string,
  slot: number,
  chunks: number,
  user = true,
  /** False when the event's own record carries the first chunk. */
  firstChunk = true,
): string {
  const word = (offset: string) => (user ? `*(uint64 *)uptr(${offset})` : `*(uint64 *)(${offset})`);
  const at = (offset: number) => (user ? `uptr(${pointer} + ${offset})` : `(${pointer} + ${offset})`);
  const words = Math.ceil((chunks * MAX_STRING_BYTES) / 8);
  const first = firstChunk ? `print((${REC_PART}, ${partKey(slot)}, $t, str(${pointer})));\n` : '';
  let code = `${first}$i = (uint64)0;
while ($i < ${words}) {
  $v = ${word(`${pointer} + 8 * $i`)};
  if ((($v - 0x0101010101010101) & ~$v & 0x8080808080808080) != 0) {
    break;
  }
  $i++;
}`;
  // The NUL is in word $i, so the string is at least 8 * $i and at most 8 * $i + 7 bytes long.
  for (let chunk = 1; chunk < chunks; chunk++) {
    const start = chunk * MAX_STRING_BYTES;
    code += `\nif (8 * $i + 7 >= ${start}) {\n  print((${REC_PART}, ${partKey(slot, chunk)}, $t, str(${at(start)})));\n}`;
  }
  return code;
}

/**
 * Walks from the cwd (dirfd AT_FDCWD) or an open directory up to the task's root, printing one PART
 * per component, leaf first, and crossing mount points through struct mount (no d_path helper on
 * tracepoints). Stops at the task's fs root, so a chrooted or pivot_root'ed process gets the path
 * as it sees it. A mount crossing sends an empty PART, so that every step has one and a lost record
 * shows as a gap. One counter only: two would multiply the verifier's states.
 *
 * Every record costs a wakeup of bpftrace, so a walked directory is remembered in @wc and a later
 * walk stops at the first remembered ancestor (for `find`, one component per directory). The
 * remembered key holds the dentry's mount, name, parent and the task's root, and a generation
 * that renames, rmdir and mounts in the cgroup bump: a stale entry does not match.
 */
export function walk(dirfd: string, slot: number, result: string, dirId: string): string {
  const key = '((uint64)$wvm ^ $wd->d_name.hash_len ^ (uint64)$wd->d_parent ^ $wr ^ (uint64)@gen[0])';
  return `$wd = (struct dentry *)0;
$wvm = (struct vfsmount *)0;
if (${dirfd} == ${AT_FDCWD}) {
  $wd = curtask->fs->pwd.dentry;
  $wvm = curtask->fs->pwd.mnt;
} else if (${dirfd} >= 0 && ${dirfd} < (int64)curtask->files->fdt->max_fds) {
  $wf = (struct file *)*(uint64 *)((uint64)curtask->files->fdt->fd + 8 * (uint64)${dirfd});
  if ($wf != 0) {
    $wd = $wf->f_path.dentry;
    $wvm = $wf->f_path.mnt;
  }
}
if ($wd != 0) {
  $wrd = curtask->fs->root.dentry;
  $wrm = curtask->fs->root.mnt;
  $wr = (uint64)$wrd ^ ((uint64)$wrm << 1);
  ${dirId} = (int64)(((uint64)$wd >> 3) & ${DIR_ID_MASK});
  $wk = ${key};
  $wm = (struct mount *)((uint64)$wvm - ${MOUNT_TO_VFSMOUNT});
  $i = (uint64)0;
  while ($i < ${MAX_WALK}) {
    if ($wd == $wrd && $wvm == $wrm) {
      ${result} = (int64)$i;
      break;
    }
    // Before the mount check: a workspace bind-mounted into a sandbox is a mount root.
    if (@wc[((uint64)$wd >> 3) & ${DIR_ID_MASK}] == ${key}) {
      ${result} = (int64)(${WALK_ANCESTOR} * ((((uint64)$wd >> 3) & ${DIR_ID_MASK}) + 1) + $i);
      break;
    }
    if ($wd == $wvm->mnt_root) {
      if ($wm->mnt_parent == $wm) {
        ${result} = (int64)$i;
        break;
      }
      print((${REC_PART}, tid * ${KEY_TID} + ${slot} + $i, $t, ""));
      $wd = $wm->mnt_mountpoint;
      $wm = $wm->mnt_parent;
      $wvm = (struct vfsmount *)((uint64)$wm + ${MOUNT_TO_VFSMOUNT});
    } else {
      if ($wd == $wd->d_parent) {
        break;
      }
      print((${REC_PART}, tid * ${KEY_TID} + ${slot} + $i, $t, str($wd->d_name.name)));
      if ($wd->d_name.len > ${MAX_STRING_BYTES}) {
        print((${REC_PART}, tid * ${KEY_TID} + ${KEY_CHUNK + slot} + $i, $t, str($wd->d_name.name + ${MAX_STRING_BYTES})));
      }
      $wd = $wd->d_parent;
    }
    $i++;
  }
  if (${result} == ${WALK_NONE}) {
    ${result} = ${WALK_INCOMPLETE} + (int64)$i;
  } else {
    @wc[(uint64)${dirId}] = $wk;
  }
}`;
}

export function indent(text: string, spaces = 2): string {
  const pad = ' '.repeat(spaces);
  return text
    .split('\n')
    .map((line) => (line.length > 0 ? pad + line : line))
    .join('\n');
}
