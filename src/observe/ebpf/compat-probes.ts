import { indent, probe } from './bpftrace-snippets.js';
import { netExitBody } from './net-probes.js';
import { AT_FDCWD, NO_WALK, REC_CALL, TS_COMPAT, WALK_NONE } from './record-format.js';
import {
  CODE_IA32_CONNECT,
  CODE_IA32_OPEN,
  CODE_IA32_OTHER,
  I386_CONNECT,
  I386_CREAT,
  I386_OPEN,
  I386_OPENAT,
  I386_SOCKETCALL,
  O_CREAT,
  O_TRUNC,
  O_WRONLY,
  SYS_CONNECT,
} from './syscall-table.js';

/** Maps of the compat probes, cleared at END. */
export const COMPAT_MAPS = ['@c32seen'];

/**
 * Probes for 32-bit system calls (`int $0x80` and friends from any process, 64-bit ones included).
 * `tracepoint:syscalls:*` ignores them on x86_64 (ARCH_TRACE_IGNORE_COMPAT_SYSCALLS), but the raw
 * sys_enter/sys_exit tracepoints fire for every call, with the i386 number in `id`; the task's
 * TS_COMPAT status bit says which table the call went through.
 *
 * raw_syscalls fires for every system call on the machine, so each probe's filter tests the
 * run's cgroup first (one helper call) and the compat bit second (one load), and does nothing else
 * for a native call. An i386 open/creat/openat is recorded with its path through the same maps and
 * exit code as the 64-bit opens, an i386 connect with its address; any other 32-bit call once per
 * process and number, enough for the evasion rule without a record per read.
 */
export function compatBlocks(inCgroup: string, pathExitBody: (paths: 0 | 1) => string): string[] {
  const compat = `${inCgroup} && (curtask->thread_info.status & ${TS_COMPAT}) != 0`;
  const decoded = [I386_OPEN, I386_CREAT, I386_OPENAT, I386_CONNECT, I386_SOCKETCALL];
  const creatFlags = O_CREAT | O_WRONLY | O_TRUNC;
  return [
    probe(
      'tracepoint:raw_syscalls:sys_enter',
      compat,
      `$nr = args->id;
if ($nr == ${I386_OPEN} || $nr == ${I386_CREAT}) {
  @sc[tid] = ${CODE_IA32_OPEN};
  @p1[tid] = args->args[0];
  @d1[tid] = ${AT_FDCWD};
  @fl[tid] = $nr == ${I386_OPEN} ? (int64)args->args[1] : ${creatFlags};
  @p2[tid] = 0;
  @d2[tid] = ${NO_WALK};
} else if ($nr == ${I386_OPENAT}) {
  @sc[tid] = ${CODE_IA32_OPEN};
  @p1[tid] = args->args[1];
  @d1[tid] = (int64)(int32)args->args[0];
  @fl[tid] = (int64)args->args[2];
  @p2[tid] = 0;
  @d2[tid] = ${NO_WALK};
} else if ($nr == ${I386_CONNECT}) {
  @sa[tid] = args->args[1];
  @sac[tid] = ${CODE_IA32_CONNECT};
} else if ($nr == ${I386_SOCKETCALL} && args->args[0] == ${SYS_CONNECT}) {
  // socketcall(SYS_CONNECT, args): args points to 32-bit words fd, addr, addrlen.
  @sa[tid] = (uint64)*(uint32 *)uptr(args->args[1] + 4);
  @sac[tid] = ${CODE_IA32_CONNECT};
}`,
    ),
    // One exit program, not one per shape: every program attached here runs on every system call
    // of the machine, and the filter is all a native call pays for.
    probe(
      'tracepoint:raw_syscalls:sys_exit',
      compat,
      `$nr = args->id;
if (($nr == ${I386_OPEN} || $nr == ${I386_CREAT} || $nr == ${I386_OPENAT}) && @sc[tid] == ${CODE_IA32_OPEN}) {
${indent(pathExitBody(1))}
} else if (($nr == ${I386_CONNECT} || $nr == ${I386_SOCKETCALL}) && @sa[tid] != 0) {
${indent(netExitBody())}
} else if (${decoded.map((nr) => `$nr != ${nr}`).join(' && ')} && @c32seen[pid, $nr] == 0) {
  @c32seen[pid, $nr] = 1;
  print((${CALL_RECORD_OTHER}));
}`,
    ),
  ];
}

/** A CALL record for an undecoded 32-bit call: the number in flags, no walks, the process name. */
const CALL_RECORD_OTHER = `${REC_CALL}, tid, nsecs, pid, curtask->real_parent->tgid, ${CODE_IA32_OTHER}, args->ret, args->id, ${WALK_NONE}, ${WALK_NONE}, 0, 0, comm`;
