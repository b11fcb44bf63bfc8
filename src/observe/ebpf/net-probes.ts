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

/**
 * The calls with a socket address: the tracepoint field that points at it, and whether a null one
 * is skipped in the kernel (sendto on a connected socket has no address: nothing new to report).
 * bind gives the local address: which loopback ports the run's own servers hold.
 */
const NET_CALLS = [
  { name: 'connect', field: 'uservaddr', code: CODE_CONNECT, skipNull: false },
  { name: 'sendto', field: 'addr', code: CODE_SENDTO, skipNull: true },
  { name: 'bind', field: 'umyaddr', code: CODE_BIND, skipNull: false },
] as const;

/** Probes for the calls with a socket address: the address, read at sys_exit with the result. */
export function netBlocks(inCgroup: string, has: (name: string) => boolean, missing: string[]): string[] {
  const blocks: string[] = [];
  const exits: string[] = [];
  for (const call of NET_CALLS) {
    if (!has(call.name)) {
      missing.push(call.name);
      continue;
    }
    const filter = call.skipNull ? `${inCgroup} && args->${call.field} != 0` : inCgroup;
    const body = `@sa[tid] = (uint64)args->${call.field};\n@sac[tid] = ${call.code};`;
    blocks.push(probe(`tracepoint:syscalls:sys_enter_${call.name}`, filter, body));
    exits.push(`tracepoint:syscalls:sys_exit_${call.name}`);
  }
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
