import { chunkedString, indent, probe, walk } from './bpftrace-snippets.js';
import { BPFTRACE_MAX_CHUNKS, REC_CALL, SLOT_PATH, SLOT_WALK1, WALK_NONE } from './record-format.js';
import {
  CODE_IO_URING_OP,
  CODE_IO_URING_OPEN,
  IORING_OP_OPENAT,
  IORING_OP_OPENAT2,
} from './syscall-table.js';

/** Maps of the io_uring probe, cleared at END. */
export const IO_URING_MAPS = ['@iouseen'];

/**
 * A probe for the operations an io_uring runs for the process. An OPENAT or READ submitted on a
 * ring makes no open or read system call, so the syscall probes never see it; the io_uring
 * submit_req tracepoint fires once per request, in the submitting task (or the ring's SQPOLL thread,
 * which shares its cgroup), after the request's prep step. For an open, prep has already copied
 * the file name into the kernel (`struct io_open` at the start of `struct io_kiocb`, BTF), so the
 * path is read from kernel memory and walked like an openat's against its dirfd. The open's result
 * is not known yet at submission: the record carries none. Other operations are recorded once per
 * process and opcode, enough for the evasion rule without one record per read.
 */
export function ioUringBlocks(inCgroup: string): string[] {
  const open = '((struct io_open *)args->req)';
  return [
    probe(
      'tracepoint:io_uring:io_uring_submit_req',
      `${inCgroup} && (args->opcode == ${IORING_OP_OPENAT} || args->opcode == ${IORING_OP_OPENAT2})`,
      `$t = nsecs;
$w1 = ${WALK_NONE};
$s1 = 0;
$p = (uint64)${open}->filename->name;
if ($p != 0) {
${indent(chunkedString('$p', SLOT_PATH, BPFTRACE_MAX_CHUNKS, false, false))}
  $dfd = (int64)${open}->dfd;
  if (*(uint8 *)$p != 47) {
${indent(walk('$dfd', SLOT_WALK1, '$w1', '$s1'), 4)}
  }
  print((${REC_CALL}, tid, $t, pid, curtask->real_parent->tgid, ${CODE_IO_URING_OPEN}, 0, (int64)${open}->how.flags, $w1, ${WALK_NONE}, $s1, 0, str($p)));
}`,
    ),
    probe(
      'tracepoint:io_uring:io_uring_submit_req',
      `${inCgroup} && args->opcode != ${IORING_OP_OPENAT} && args->opcode != ${IORING_OP_OPENAT2} && @iouseen[pid, args->opcode] == 0`,
      `@iouseen[pid, args->opcode] = 1;
print((${REC_CALL}, tid, nsecs, pid, curtask->real_parent->tgid, ${CODE_IO_URING_OP}, 0, (int64)args->opcode, ${WALK_NONE}, ${WALK_NONE}, 0, 0, comm));`,
    ),
  ];
}
