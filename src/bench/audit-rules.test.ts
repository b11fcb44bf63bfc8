import { describe, expect, it } from 'vitest';
import {
  AUDIT_KEY,
  AuditLogCounter,
  auditedSyscalls,
  auditRules,
  endMarker,
  parseAuditStatus,
  parseRuleList,
  parseSyscallTable,
} from './audit-rules.js';

describe('audit rules for the peer', () => {
  it('covers the calls the ebpf engines follow, and process creation', () => {
    const names = auditedSyscalls();
    for (const n of ['execve', 'execveat', 'open', 'openat', 'openat2', 'connect', 'unlinkat', 'renameat2'])
      expect(names).toContain(n);
    for (const n of ['setuid', 'setresuid', 'ptrace', 'kill', 'bind', 'clone', 'clone3', 'memfd_create'])
      expect(names).toContain(n);
  });

  it('writes one rule per ABI, keeping only the names that ABI has, filtered on the login uid', () => {
    const tables = {
      b64: new Set(['openat', 'execve', 'setuid', 'connect']),
      b32: new Set(['openat', 'execve', 'setuid', 'setuid32', 'socketcall']),
    };
    const rules = auditRules(tables, 901234);
    expect(rules).toEqual([
      `always,exit -F arch=b64 -S connect,execve,openat,setuid -F auid=901234 -k ${AUDIT_KEY}`,
      `always,exit -F arch=b32 -S execve,openat,setuid,setuid32,socketcall -F auid=901234 -k ${AUDIT_KEY}`,
    ]);
  });

  it('leaves out an ABI the host has no table for', () => {
    expect(auditRules({ b64: new Set(['openat']), b32: new Set() }, 1)).toHaveLength(1);
  });

  it('reads ausyscall --dump', () => {
    const table = parseSyscallTable('Using x86_64 syscall table:\n0\tread\n257\topenat\n');
    expect([...table]).toEqual(['read', 'openat']);
  });

  it('reads auditctl -s and -l', () => {
    const status = parseAuditStatus(
      'enabled 1\nfailure 1\npid 4242\nrate_limit 0\nbacklog_limit 8192\nlost 7\nbacklog 0\nbacklog_wait_time 60000\nbacklog_wait_time_actual 0\nloginuid_immutable 0 unlocked\n',
    );
    expect(status).toEqual({
      enabled: 1,
      failure: 1,
      pid: 4242,
      rate_limit: 0,
      backlog_limit: 8192,
      lost: 7,
      backlog_wait_time: 60000,
    });
    expect(parseAuditStatus('enabled 1\n')).toBeNull();
    expect(parseRuleList('No rules\n')).toEqual([]);
    expect(parseRuleList('-a always,exit -F arch=b64 -S openat -F key=x\n')).toEqual([
      '-a always,exit -F arch=b64 -S openat -F key=x',
    ]);
  });
});

describe('counting the bench records in auditd’s log', () => {
  const syscall = (key: string) =>
    `type=SYSCALL msg=audit(1.2:10): arch=c000003e syscall=257 success=yes exit=3 comm="open-loop" key="${key}"\x1dARCH=x86_64`;
  const pathRecord = (name: string, nametype = 'NORMAL') =>
    `type=PATH msg=audit(1.2:10): item=0 name="${name}" inode=5 dev=fe:00 mode=0100644 nametype=${nametype} cap_fp=0`;

  it('counts keyed syscall records and the target’s path records up to the end marker', () => {
    const counter = new AuditLogCounter('t.txt', endMarker('run-1'));
    counter.line(syscall(AUDIT_KEY));
    counter.line(pathRecord('t.txt'));
    counter.line(syscall('someone-else'));
    counter.line(pathRecord('other.txt'));
    counter.line(pathRecord('t.txt', 'CREATE'));
    counter.line(`type=CONFIG_CHANGE msg=audit(1.3:11): op=add_rule key="${AUDIT_KEY}" list=4 res=1`);
    expect(counter.sawMarker).toBe(false);
    counter.line(
      `type=USER msg=audit(1.4:12): pid=1 uid=0 auid=4294967295 msg='text=${endMarker('run-1')} exe="/usr/sbin/auditctl" res=success'`,
    );
    counter.line(syscall(AUDIT_KEY));
    expect(counter).toMatchObject({ syscalls: 1, targetOpens: 1, sawMarker: true });
  });

  it('does not take another run’s marker for its own', () => {
    const counter = new AuditLogCounter('t.txt', endMarker('run-1'));
    counter.line(`type=USER msg=audit(1.4:12): msg='text=${endMarker('run-10')} exe="/usr/sbin/auditctl"'`);
    expect(counter.sawMarker).toBe(false);
  });
});
