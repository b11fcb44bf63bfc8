/**
 * The symbolic flags a SysEvent carries in `flags`, one vocabulary for every tracer: strace prints
 * the names itself, a tracer that records raw numbers (eBPF) decodes them here. Only the flags the
 * rules judge are named: the namespace flags of clone, clone3, unshare and setns, and the domain,
 * type and protocol of socket.
 */

/** CLONE_NEW* bits (linux/sched.h). */
const NAMESPACE_BITS: ReadonlyArray<readonly [string, number]> = [
  ['CLONE_NEWNS', 0x00020000],
  ['CLONE_NEWCGROUP', 0x02000000],
  ['CLONE_NEWUTS', 0x04000000],
  ['CLONE_NEWIPC', 0x08000000],
  ['CLONE_NEWUSER', 0x10000000],
  ['CLONE_NEWPID', 0x20000000],
  ['CLONE_NEWNET', 0x40000000],
];
// clone(2) keeps the exit signal in its low byte, where clone3 and unshare have CLONE_NEWTIME.
const CLONE_NEWTIME = 0x80;

/** Whether a symbolic flag is a namespace flag: `CLONE_NEWUSER`, `CLONE_NEWNS`, ... */
export function isNamespaceFlag(name: string): boolean {
  return name.startsWith('CLONE_NEW');
}

/** The CLONE_NEW* names set in `bits`; `call` is the syscall (clone's low byte is a signal). */
export function namespaceFlagNames(bits: number, call: string): string[] {
  const out = NAMESPACE_BITS.filter(([, bit]) => (bits & bit) !== 0).map(([name]) => name);
  if (call !== 'clone' && (bits & CLONE_NEWTIME) !== 0) out.push('CLONE_NEWTIME');
  return out;
}

const DOMAINS: Readonly<Record<number, string>> = {
  1: 'AF_UNIX',
  2: 'AF_INET',
  10: 'AF_INET6',
  16: 'AF_NETLINK',
  17: 'AF_PACKET',
  40: 'AF_VSOCK',
};
const TYPES: Readonly<Record<number, string>> = {
  1: 'SOCK_STREAM',
  2: 'SOCK_DGRAM',
  3: 'SOCK_RAW',
  4: 'SOCK_RDM',
  5: 'SOCK_SEQPACKET',
  10: 'SOCK_PACKET',
};
const PROTOCOLS: Readonly<Record<number, string>> = { 1: 'IPPROTO_ICMP', 58: 'IPPROTO_ICMPV6' };

/** socket(domain, type, protocol) as names: `[AF_PACKET, SOCK_RAW]`; numbers without a name stay numbers. */
export function socketFlagNames(domain: number, type: number, protocol: number): string[] {
  const out = [DOMAINS[domain] ?? String(domain), TYPES[type & 0xf] ?? String(type & 0xf)];
  const proto = PROTOCOLS[protocol];
  if (proto !== undefined) out.push(proto);
  return out;
}

/** The setuid and setgid bits of a file mode (S_ISUID | S_ISGID). */
export const SETID_BITS = 0o6000;
