import { REFUSAL_ERRNO, SECCOMP_REFUSED_NAMES } from '../../evidence/seccomp-policy.js';
import { probe } from './bpftrace-snippets.js';
import { REC_CALL, TS_COMPAT, WALK_NONE } from './record-format.js';
import { CODE_SECCOMP_REFUSED } from './syscall-table.js';

/** Maps of the refused-call probe, cleared at END. */
export const REFUSED_MAPS = ['@rfseen'];

/**
 * The bwrap and container sandboxes' seccomp filter refuses its dangerous calls with
 * SECCOMP_RET_TRACE: with no ptrace tracer attached the kernel skips the call with -ENOSYS, before
 * the sys_enter tracepoints, so no `syscalls:` probe sees it; `raw_syscalls:sys_exit` still fires.
 * As the collector's refused.bpf.h: a native call of the filter's list ending in ENOSYS (every
 * kernel here has them, so ENOSYS is the filter's) is recorded once per process and number, the
 * number in the flags word. The filter tests the run's cgroup, then the result (one load): every call of
 * the machine pays the cgroup test and that.
 */
export function refusedBlocks(inCgroup: string): string[] {
  const numbers = Object.keys(SECCOMP_REFUSED_NAMES).map(Number);
  const listed = numbers.map((nr) => `$nr == ${nr}`).join(' || ');
  return [
    probe(
      'tracepoint:raw_syscalls:sys_exit',
      `${inCgroup} && args->ret == -${REFUSAL_ERRNO} && (curtask->thread_info.status & ${TS_COMPAT}) == 0`,
      `$nr = args->id;
if ((${listed}) && @rfseen[pid, $nr] == 0) {
  @rfseen[pid, $nr] = 1;
  print((${REC_CALL}, tid, nsecs, pid, curtask->real_parent->tgid, ${CODE_SECCOMP_REFUSED}, args->ret, $nr, ${WALK_NONE}, ${WALK_NONE}, 0, 0, comm));
}`,
    ),
  ];
}
