import { describe, expect, it } from 'vitest';
import { evaluateRules } from './evaluate.js';
import { buildRuleSet } from './ruleset.js';
import { CTX, Trace } from './test-events.js';

const rules = buildRuleSet(
  [
    {
      file: 'net.yaml',
      text: 'rules:\n  - {id: n, description: d, class: network, severity: error, condition: kind = net}\n',
    },
  ],
  {},
);
const BRIDGE = { family: 'inet' as const, ip: '127.0.0.1', port: 3128 };

// The agent (pid 1) starts a python helper (3) and curl (4); both connect to the bridge before
// either request is recorded, so "the last process that connected" is curl for both.
function overlapping(): Trace {
  return new Trace()
    .exec(3, 1, '/usr/bin/python3', ['python3', 'helper.py'])
    .exec(4, 1, '/usr/bin/curl', ['curl', 'http://b.evil'])
    .connect(3, BRIDGE, -115)
    .connect(4, BRIDGE, -115);
}

function alertsFor(t: Trace) {
  return evaluateRules({ syscalls: t.events, network: t.records }, rules, CTX);
}

describe('the process behind a proxy or DNS record', () => {
  it('is the client the record names, not the last process that used the proxy', () => {
    const t = overlapping()
      .record({ host: 'a.evil', port: 80, protocol: 'http', client: { pid: 3, exe: '/usr/bin/python3.11' } })
      .record({ host: 'b.evil', port: 80, protocol: 'http', client: { pid: 4, exe: '/usr/bin/curl' } })
      .record({ host: 'a.evil', port: 53, protocol: 'dns', client: { pid: 3 } });
    const byHost = alertsFor(t).map((a) => [a.syscall, a.host, a.process.chain.map((p) => p.pid)]);
    expect(byHost).toEqual([
      ['proxy-http', 'a.evil', [3, 1]],
      ['proxy-http', 'b.evil', [4, 1]],
      ['dns', 'a.evil', [3, 1]],
    ]);
    expect(alertsFor(t)[0]?.process).toMatchObject({
      pid: 3,
      exe: '/usr/bin/python3',
      argv: ['python3', 'helper.py'],
    });
  });

  it('is a process the tracer has not shown yet, named by what the bridge saw', () => {
    const t = overlapping().record({
      host: 'c.evil',
      port: 80,
      protocol: 'http',
      client: { pid: 9, exe: '/usr/bin/wget' },
    });
    expect(alertsFor(t)[0]?.process).toEqual({
      pid: 9,
      exe: '/usr/bin/wget',
      argv: [],
      chain: [{ pid: 9, exe: '/usr/bin/wget', argv: [] }],
    });
  });

  it('is nobody when the client could not be identified: never a guess', () => {
    const t = overlapping()
      .record({ host: 'd.evil', port: 80, protocol: 'http', client: { pid: null, reason: 'gone', port: 5 } })
      .record({
        host: 'e.evil',
        port: 80,
        protocol: 'http',
        client: { pid: null, reason: 'exited', exe: '/usr/bin/python3.11', ns_pid: 7 },
      });
    const [unknown, exeOnly] = alertsFor(t);
    expect(unknown?.process).toEqual({ pid: 0, exe: 'unknown', argv: [], chain: [] });
    expect(exeOnly?.process).toMatchObject({ pid: 0, exe: '/usr/bin/python3.11' });
  });

  it('is still the last bridge client for records without a client (older runs)', () => {
    const t = overlapping().record({ host: 'f.evil', port: 80, protocol: 'http' });
    expect(alertsFor(t)[0]?.process.pid).toBe(4);
  });
});
