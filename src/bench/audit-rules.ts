import { TRACED_CALLS } from '../observe/ebpf/syscall-table.js';

/**
 * Linux audit as the benchmark's peer recorder (the one the AgentSpy seed uses): which system calls
 * it is told to record, the rules that say so, and reading what `auditctl -s` and auditd's log say.
 * Pure: audit-peer.ts runs the programs.
 */

/** The key on every rule and record of the bench, so its rules and records are told apart. */
export const AUDIT_KEY = 'agentguard-bench';

/** The user message that marks the end of a run in auditd's log (the kernel queue is in order). */
export const endMarker = (runId: string): string => `agentguard-bench-end ${runId}`;

/**
 * The calls the ebpf engines follow (their syscall table, exec and the network calls), process
 * creation (which they see on sched tracepoints), and bind and kill, which an audit policy for agents
 * watches too.
 */
export function auditedSyscalls(): string[] {
  const names = new Set(TRACED_CALLS.map((c) => c.name));
  for (const extra of ['execve', 'execveat', 'connect', 'sendto', 'bind', 'kill', 'tkill', 'tgkill'])
    names.add(extra);
  for (const creation of ['clone', 'clone3', 'fork', 'vfork']) names.add(creation);
  return [...names];
}

/** i386 spells the 32-bit-uid calls with a suffix and multiplexes sockets through socketcall. */
function i386Variants(name: string): string[] {
  const variants = [name];
  if (/^(set(res|re)?[ug]id|setgroups|l?chown|fchown)$/.test(name)) variants.push(`${name}32`);
  if (name === 'connect' || name === 'bind' || name === 'sendto') variants.push('socketcall');
  return variants;
}

/** Names in `ausyscall <arch> --dump` output ("NUMBER\tNAME" lines after a header). */
export function parseSyscallTable(dump: string): Set<string> {
  const names = new Set<string>();
  for (const line of dump.split('\n')) {
    const m = /^\d+\s+(\S+)$/.exec(line.trim());
    if (m) names.add(m[1] as string);
  }
  return names;
}

export type SyscallTables = { b64: Set<string>; b32: Set<string> };

/**
 * One exit rule per ABI (a rule holds a syscall bitmask, so one rule is one check per call), limited
 * to the processes whose login uid is `auid`: the bench sets it on the workload, the audit analogue
 * of the ebpf engines' in-kernel cgroup filter, so the rules record nothing of the rest of the host.
 * Returns the rule bodies: prefix with `-a ` to add, `-d ` to delete.
 */
export function auditRules(tables: SyscallTables, auid: number): string[] {
  const wanted = auditedSyscalls();
  const rules: string[] = [];
  for (const [arch, table, names] of [
    ['b64', tables.b64, wanted],
    ['b32', tables.b32, [...new Set(wanted.flatMap(i386Variants))]],
  ] as const) {
    const known = names.filter((n) => table.has(n)).sort();
    if (known.length === 0) continue;
    rules.push(`always,exit -F arch=${arch} -S ${known.join(',')} -F auid=${auid} -k ${AUDIT_KEY}`);
  }
  return rules;
}

export type AuditStatus = {
  enabled: number;
  failure: number;
  pid: number;
  rate_limit: number;
  backlog_limit: number;
  lost: number;
  backlog_wait_time: number;
};

/** `auditctl -s` output ("key value" lines); null when a field is missing. */
export function parseAuditStatus(text: string): AuditStatus | null {
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^(\w+) (-?\d+)/.exec(line.trim());
    if (m) values.set(m[1] as string, Number(m[2]));
  }
  const keys = ['enabled', 'failure', 'pid', 'rate_limit', 'backlog_limit', 'lost', 'backlog_wait_time'];
  if (!keys.every((k) => values.has(k))) return null;
  return Object.fromEntries(keys.map((k) => [k, values.get(k)])) as AuditStatus;
}

/** The rule lines of `auditctl -l` (none when it says "No rules"). */
export function parseRuleList(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('-'));
}

/**
 * Counts, line by line, the bench's records in auditd's log up to a run's end marker: syscall
 * records under the bench's key, and the path records of one file (the open loop's target).
 */
export class AuditLogCounter {
  syscalls = 0;
  targetOpens = 0;
  sawMarker = false;
  private readonly key = `key="${AUDIT_KEY}"`;
  private readonly target: string;

  constructor(
    targetName: string,
    private readonly marker: string,
  ) {
    this.target = ` name="${targetName}" `;
  }

  line(text: string): void {
    if (this.sawMarker) return;
    if (text.startsWith('type=SYSCALL ')) {
      if (text.includes(this.key)) this.syscalls++;
    } else if (text.startsWith('type=PATH ')) {
      if (text.includes(this.target) && text.includes(' nametype=NORMAL')) this.targetOpens++;
    } else if (text.startsWith('type=USER ') && text.includes(`text=${this.marker} `)) {
      this.sawMarker = true;
    }
  }
}
