import { partKey, probe } from './bpftrace-snippets.js';
import {
  AF_INET,
  AF_INET6,
  AF_UNIX,
  REC_NET,
  REC_PART,
  SLOT_UNIX_ABSTRACT,
  SLOT_UNIX_PATH,
} from './record-format.js';
import { CODE_BIND, CODE_CONNECT, CODE_SENDTO } from './syscall-table.js';

/** Probes for connect, sendto and bind: the socket address, read at sys_exit with the result. */
export function netBlocks(inCgroup: string, has: (name: string) => boolean, missing: string[]): string[] {
  const blocks: string[] = [];
  const exits: string[] = [];
  if (has('connect')) {
    blocks.push(
      probe(
        'tracepoint:syscalls:sys_enter_connect',
        inCgroup,
        `@sa[tid] = (uint64)args->uservaddr;\n@sac[tid] = ${CODE_CONNECT};`,
      ),
    );
    exits.push('tracepoint:syscalls:sys_exit_connect');
  } else missing.push('connect');
  if (has('sendto')) {
    // sendto on a connected socket has no address: nothing new to report.
    blocks.push(
      probe(
        'tracepoint:syscalls:sys_enter_sendto',
        `${inCgroup} && args->addr != 0`,
        `@sa[tid] = (uint64)args->addr;\n@sac[tid] = ${CODE_SENDTO};`,
      ),
    );
    exits.push('tracepoint:syscalls:sys_exit_sendto');
  } else missing.push('sendto');
  if (has('bind')) {
    // The local address: which loopback ports the run's own servers hold.
    blocks.push(
      probe(
        'tracepoint:syscalls:sys_enter_bind',
        inCgroup,
        `@sa[tid] = (uint64)args->umyaddr;\n@sac[tid] = ${CODE_BIND};`,
      ),
    );
    exits.push('tracepoint:syscalls:sys_exit_bind');
  } else missing.push('bind');
  if (exits.length === 0) return blocks;
  blocks.push(probe(exits.join(',\n'), `${inCgroup} && @sa[tid] != 0`, netExitBody()));
  return blocks;
}

/**
 * The exit of a call with a socket address remembered in @sa (its code in @sac): one NET record,
 * preceded by the unix socket path if any. Shared with the i386 connect (compat-probes.ts).
 */
export function netExitBody(): string {
  const head = `${REC_NET}, tid, $t, pid, curtask->real_parent->tgid, @sac[tid], args->ret`;
  const in4 = '((struct sockaddr_in *)@sa[tid])';
  const in6 = '((struct sockaddr_in6 *)@sa[tid])';
  const word = (index: number) => `${in6}->sin6_addr.in6_u.u6_addr32[${index}]`;
  return `$t = nsecs;
$fam = *(uint16 *)uptr(@sa[tid]);
if ($fam == ${AF_INET}) {
  print((${head}, ${AF_INET}, ${in4}->sin_port, ${in4}->sin_addr.s_addr, 0, 0, 0, comm));
} else if ($fam == ${AF_INET6}) {
  print((${head}, ${AF_INET6}, ${in6}->sin6_port, ${word(0)}, ${word(1)}, ${word(2)}, ${word(3)}, comm));
} else if ($fam == ${AF_UNIX}) {
  if (*uptr((uint8 *)(@sa[tid] + 2)) != 0) {
    print((${REC_PART}, ${partKey(SLOT_UNIX_PATH)}, $t, str(uptr(@sa[tid] + 2), 108)));
  } else {
    print((${REC_PART}, ${partKey(SLOT_UNIX_ABSTRACT)}, $t, str(uptr(@sa[tid] + 3), 107)));
  }
  print((${head}, ${AF_UNIX}, 0, 0, 0, 0, 0, comm));
}
delete(@sa[tid]);
delete(@sac[tid]);`;
}
