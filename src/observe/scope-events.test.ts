import { describe, expect, it } from 'vitest';
import type { SysEvent } from '../evidence/types.js';
import { scopeToAgent } from './scope-events.js';

let seq = 0;
const ev = (e: Partial<SysEvent> & Pick<SysEvent, 'pid' | 'ppid' | 'kind'>): SysEvent => ({
  seq: seq++,
  ts: seq,
  exe: 'x',
  syscall: e.kind,
  ...e,
});

describe('scopeToAgent', () => {
  it('keeps the agent and its descendants, and drops the launchers around it', () => {
    seq = 0;
    const events = [
      ev({ pid: 10, ppid: 1, kind: 'exec', argv: ['/bin/sh', '-c', 'echo 0 > cg; exec "$@"'] }),
      ev({ pid: 10, ppid: 1, kind: 'exec', argv: ['bwrap', '--ro-bind', '/', '/'] }),
      ev({ pid: 10, ppid: 1, kind: 'privilege', syscall: 'mount' }),
      ev({ pid: 11, ppid: 10, kind: 'fork' }),
      ev({ pid: 11, ppid: 10, kind: 'exec', argv: ['/usr/bin/node', '/opt/agent.js', '--go'] }),
      ev({ pid: 12, ppid: 11, kind: 'fork' }),
      ev({ pid: 12, ppid: 11, kind: 'open', path: '/repo/a' }),
      ev({ pid: 13, ppid: 12, kind: 'open', path: '/repo/b' }),
      ev({ pid: 99, ppid: 10, kind: 'open', path: '/elsewhere' }),
    ];
    const scoped = scopeToAgent(events, ['node', '/opt/agent.js', '--go']);
    expect(scoped.rootPid).toBe(11);
    expect(scoped.events.map((e) => e.path ?? e.kind)).toEqual(['exec', 'fork', '/repo/a', '/repo/b']);
    expect(scoped.events.filter((e) => e.pid === 11).every((e) => e.ppid === 0)).toBe(true);
    expect(scoped.dropped).toBe(5);
  });

  it('matches an argv the tracer cut short', () => {
    seq = 0;
    const long = 'p'.repeat(300);
    const events = [
      ev({ pid: 5, ppid: 1, kind: 'exec', argv: ['agent', long.slice(0, 199)], truncated: true }),
    ];
    expect(scopeToAgent(events, ['agent', long]).rootPid).toBe(5);
  });

  it('returns nothing when the agent never ran', () => {
    seq = 0;
    const events = [ev({ pid: 5, ppid: 1, kind: 'exec', argv: ['other'] })];
    expect(scopeToAgent(events, ['agent'])).toEqual({ events: [], rootPid: null, dropped: 1 });
  });
});
