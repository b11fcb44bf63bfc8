import { describe, expect, it } from 'vitest';
import type { NetworkRecord, SysEvent } from '../evidence/types.js';
import { ACTIVITY_LIST_LIMIT, summariseActivity } from './activity.js';
import { FIXTURE_REPO, fixtureBundle } from './test-fixture.js';

let seq = 0;
function ev(event: Omit<SysEvent, 'seq' | 'ts' | 'ppid' | 'exe' | 'syscall'> & Partial<SysEvent>): SysEvent {
  seq += 1;
  return { seq, ts: seq, ppid: 1, exe: '/usr/bin/node', syscall: 'openat', ...event };
}

const events: SysEvent[] = [
  ev({ pid: 10, kind: 'exec', syscall: 'execve', path: '/usr/bin/git', argv: ['git', 'status'] }),
  ev({ pid: 11, kind: 'exec', syscall: 'execve', path: '/usr/bin/git', argv: ['git', 'diff'] }),
  ev({ pid: 12, kind: 'exec', syscall: 'execve', path: '/usr/local/bin/curl', result: -2 }),
  ev({ pid: 12, kind: 'exec', syscall: 'execve', argv: ['curl', 'http://x'] }),
  ev({ pid: 10, kind: 'open', path: '/root/.ssh/id_rsa', access: 'read', result: 3 }),
  ev({ pid: 11, kind: 'open', path: '/root/.ssh/id_rsa', access: 'read', result: 3 }),
  ev({ pid: 11, kind: 'open', path: '/root/.aws/credentials', access: 'read', result: -2 }),
  ev({ pid: 10, kind: 'open', path: '/usr/lib/x86_64-linux-gnu/libc.so.6', access: 'read', result: 3 }),
  ev({ pid: 10, kind: 'open', path: '/dev/null', access: 'write', result: 1 }),
  ev({ pid: 10, kind: 'open', path: `${FIXTURE_REPO}/README.md`, access: 'read', result: 3 }),
  ev({ pid: 10, kind: 'open', path: 'src/a.ts', cwd: FIXTURE_REPO, access: 'create', result: 4 }),
  ev({ pid: 10, kind: 'open', path: `${FIXTURE_REPO}/../escape.txt`, access: 'write', result: 4 }),
  ev({
    pid: 10,
    kind: 'write-meta',
    syscall: 'rename',
    path: `${FIXTURE_REPO}/src/a.ts`,
    path2: '/home/user/.bashrc',
  }),
  ev({
    pid: 13,
    kind: 'connect',
    syscall: 'connect',
    addr: { family: 'inet', ip: '10.0.0.5', port: 443 },
    result: -115,
  }),
  ev({ pid: 13, kind: 'connect', syscall: 'connect', addr: { family: 'inet', ip: '10.0.0.5', port: 443 } }),
  ev({ pid: 13, kind: 'connect', syscall: 'connect', addr: { family: 'unix', path: '/run/dbus' } }),
];

const network: NetworkRecord[] = [
  {
    ts: 1,
    host: 'registry.npmjs.org',
    port: 443,
    protocol: 'connect',
    decision: 'allowed',
    reason: 'allow list',
  },
  { ts: 2, host: 'evil.example', port: 443, protocol: 'connect', decision: 'denied', reason: 'not allowed' },
];

describe('summariseActivity', () => {
  it('counts processes, programs, files by place and destinations', () => {
    const summary = summariseActivity(fixtureBundle({ syscalls: events, network }));
    expect(summary.syscall_evidence).toBe(true);
    expect(summary.processes).toBe(4);
    expect(summary.execs).toEqual([
      { command: 'git', count: 2 },
      { command: 'curl', count: 1 },
    ]);
    expect(summary.files_read_outside_workspace).toEqual([{ path: '/root/.ssh/id_rsa', count: 2 }]);
    expect(summary.files_written_outside_workspace).toEqual([
      { path: '/home/user/.bashrc', count: 1 },
      { path: '/tmp/agentguard-fixture-91b2/.agentguard/runs/20250301T101500Z-7f3a9c/escape.txt', count: 1 },
    ]);
    expect(summary.files_written_inside_workspace).toEqual([{ path: 'src/a.ts', count: 2 }]);
    expect(summary.runtime_files).toBe(2);
    expect(summary.hosts).toEqual([
      { host: 'evil.example', port: 443, count: 1, decision: 'denied', source: 'proxy' },
      { host: 'registry.npmjs.org', port: 443, count: 1, decision: 'allowed', source: 'proxy' },
      { host: '10.0.0.5', port: 443, count: 2, decision: 'observed', source: 'connect' },
    ]);
    expect(Object.values(summary.omitted).every((n) => n === 0)).toBe(true);
  });

  it('ignores syscall events when no tracer ran but keeps the proxy record', () => {
    const bundle = fixtureBundle({ syscalls: events, network });
    const summary = summariseActivity({
      ...bundle,
      observation: { ...bundle.observation, tracer: { requested: 'off', kind: 'off', lost_events: 0 } },
    });
    expect(summary.syscall_evidence).toBe(false);
    expect(summary.processes).toBe(0);
    expect(summary.execs).toEqual([]);
    expect(summary.files_read_outside_workspace).toEqual([]);
    expect(summary.hosts.map((h) => h.source)).toEqual(['proxy', 'proxy']);
  });

  it('bounds each list and counts what it left off', () => {
    const many = Array.from({ length: ACTIVITY_LIST_LIMIT + 7 }, (_, i) =>
      ev({ pid: 20, kind: 'open', path: `/etc/conf-${String(i).padStart(3, '0')}`, access: 'read' }),
    );
    const summary = summariseActivity(fixtureBundle({ syscalls: many, network: [] }));
    expect(summary.files_read_outside_workspace).toHaveLength(ACTIVITY_LIST_LIMIT);
    expect(summary.files_read_outside_workspace[0]?.path).toBe('/etc/conf-000');
    expect(summary.omitted.files_read_outside_workspace).toBe(7);
  });
});
