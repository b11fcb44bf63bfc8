import { buildRuleContext } from '../analysis/rules/context.js';
import { loadRuleSet } from '../analysis/rules/load-rules.js';
import { createMatcher } from '../analysis/rules/matcher.js';
import type { NetworkRecord, SysEvent } from '../evidence/types.js';

/**
 * Rule-engine throughput with the default rules: a synthetic stream of 1,000,000 events shaped like
 * a coding agent's run (mostly library and source reads, some workspace writes, process starts,
 * proxy connections, a few proxy records and a handful of attacks) fed to one streaming matcher.
 * Prints one JSON line. Target: at least 200,000 events per second on one core.
 */
const TOTAL = Number(process.env.RULES_BENCH_EVENTS ?? 1_000_000);
const WS = '/home/dev/.agentguard/runs/bench/repo';
const HOME = '/root';

const LIBS = [
  '/etc/ld.so.cache',
  '/lib/x86_64-linux-gnu/libc.so.6',
  '/lib/x86_64-linux-gnu/libm.so.6',
  '/lib/x86_64-linux-gnu/libpthread.so.0',
  '/usr/lib/x86_64-linux-gnu/libssl.so.3',
  '/usr/lib/x86_64-linux-gnu/libcrypto.so.3',
  '/usr/lib/python3.11/os.py',
  '/usr/lib/python3.11/__pycache__/os.cpython-311.pyc',
  '/usr/lib/python3.11/encodings/__init__.py',
  '/usr/lib/node_modules/npm/lib/npm.js',
  '/etc/ssl/openssl.cnf',
  '/etc/ssl/certs/ca-certificates.crt',
  '/proc/self/maps',
  '/proc/self/status',
  '/sys/fs/cgroup/memory/memory.limit_in_bytes',
  `${HOME}/.gitconfig`,
  '/etc/gitconfig',
  '/dev/null',
];
const PROGRAMS: [string, string[]][] = [
  ['/usr/bin/python3', ['python3', '-m', 'pytest', '-q']],
  ['/usr/bin/git', ['git', 'status', '--short']],
  ['/usr/bin/node', ['node', '/usr/bin/npm', 'test']],
  ['/usr/bin/sed', ['sed', '-i', 's/a/b/', 'src/app.py']],
  ['/usr/bin/grep', ['grep', '-rn', 'TODO', 'src']],
];

function generate(): { events: SysEvent[]; records: NetworkRecord[] } {
  const events: SysEvent[] = [];
  const records: NetworkRecord[] = [];
  let seq = 0;
  let ts = 0;
  let rnd = 42;
  // mulberry32: deterministic, so every run replays the same stream.
  const rand = () => {
    rnd = (rnd + 0x6d2b79f5) | 0;
    let x = Math.imul(rnd ^ (rnd >>> 15), 1 | rnd);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  const push = (e: Omit<SysEvent, 'seq' | 'ts'>) => {
    ts += 0.01;
    events.push({ seq: seq++, ts, ...e });
  };
  push({
    pid: 100,
    ppid: 0,
    exe: '/usr/bin/bash',
    kind: 'exec',
    syscall: 'execve',
    path: '/usr/bin/bash',
    argv: ['bash', '-c', 'agent'],
    cwd: WS,
    result: 0,
  });
  let pid = 100;
  let exe = '/usr/bin/bash';
  let nextPid = 101;
  while (events.length < TOTAL) {
    const r = rand();
    if (r < 0.004) {
      const child = nextPid++;
      const [path, argv] = PROGRAMS[Math.floor(rand() * PROGRAMS.length)] as [string, string[]];
      push({ pid: child, ppid: 100, exe: '/usr/bin/bash', kind: 'fork', syscall: 'clone', result: child });
      push({
        pid: child,
        ppid: 100,
        exe: path,
        kind: 'exec',
        syscall: 'execve',
        path,
        argv,
        cwd: WS,
        result: 0,
      });
      if (pid !== 100) push({ pid, ppid: 100, exe, kind: 'exit', syscall: 'exit', result: 0 });
      pid = child;
      exe = path;
    } else if (r < 0.84) {
      const path = LIBS[Math.floor(rand() * LIBS.length)] as string;
      push({
        pid,
        ppid: 100,
        exe,
        kind: 'open',
        syscall: 'openat',
        path,
        access: 'read',
        result: rand() < 0.1 ? -2 : 3,
      });
    } else if (r < 0.9) {
      push({
        pid,
        ppid: 100,
        exe,
        kind: 'open',
        syscall: 'openat',
        path: `${WS}/src/mod${Math.floor(rand() * 200)}.py`,
        access: 'read',
        result: 3,
      });
    } else if (r < 0.96) {
      const access = rand() < 0.5 ? 'write' : 'create';
      push({
        pid,
        ppid: 100,
        exe,
        kind: 'open',
        syscall: 'openat',
        path: `${WS}/src/mod${Math.floor(rand() * 200)}.py`,
        access,
        result: 3,
      });
    } else if (r < 0.975) {
      const n = Math.floor(rand() * 200);
      const [from, to] = [`${WS}/src/.mod${n}.py.tmp`, `${WS}/src/mod${n}.py`];
      push({ pid, ppid: 100, exe, kind: 'write-meta', syscall: 'rename', path: from, path2: to, result: 0 });
    } else if (r < 0.985) {
      push({
        pid,
        ppid: 100,
        exe,
        kind: 'open',
        syscall: 'openat',
        path: `/tmp/pytest-of-root/f${Math.floor(rand() * 50)}`,
        access: 'create',
        result: 3,
      });
    } else if (r < 0.99) {
      push({
        pid,
        ppid: 100,
        exe,
        kind: 'open',
        syscall: 'openat',
        path: `${HOME}/.cache/pip/http/${Math.floor(rand() * 50)}`,
        access: 'create',
        result: 3,
      });
    } else if (r < 0.995) {
      push({
        pid,
        ppid: 100,
        exe,
        kind: 'connect',
        syscall: 'connect',
        addr: { family: 'inet', ip: '127.0.0.1', port: 3128 },
        result: -115,
      });
      if (rand() < 0.1)
        records.push({
          ts,
          host: 'registry.npmjs.org',
          port: 443,
          protocol: 'connect',
          decision: 'allowed',
          reason: 'allow list',
        });
    } else if (r < 0.99995) {
      push({
        pid,
        ppid: 100,
        exe,
        kind: 'write-meta',
        syscall: 'mkdir',
        path: `${WS}/build/d${Math.floor(rand() * 20)}`,
        result: rand() < 0.5 ? -17 : 0,
      });
    } else {
      // The attacks a benchmark of an honest stream would never exercise.
      push({
        pid,
        ppid: 100,
        exe,
        kind: 'open',
        syscall: 'openat',
        path: `${HOME}/.ssh/id_rsa`,
        access: 'read',
        result: 3,
      });
      push({
        pid,
        ppid: 100,
        exe,
        kind: 'connect',
        syscall: 'connect',
        addr: { family: 'inet', ip: '203.0.113.9', port: 443 },
        result: -101,
      });
    }
  }
  return { events, records };
}

function main(): void {
  const ruleset = loadRuleSet();
  const ctx = buildRuleContext({
    workspace: WS,
    home: HOME,
    canaryPaths: ['.ssh/id_rsa', '.aws/credentials', '.env', '.npmrc'],
    allow: ['registry.npmjs.org'],
  });
  const { events, records } = generate();
  // Warm up the closures on a fresh matcher so the timed run measures steady state.
  const warm = createMatcher(ruleset, ctx);
  for (let i = 0; i < Math.min(50_000, events.length); i++) warm.onEvent(events[i] as SysEvent);

  const matcher = createMatcher(ruleset, ctx);
  let r = 0;
  const t0 = performance.now();
  for (const e of events) {
    while (r < records.length && (records[r] as NetworkRecord).ts < e.ts)
      matcher.onRecord(records[r++] as NetworkRecord);
    matcher.onEvent(e);
  }
  const elapsed = performance.now() - t0;
  const alerts = matcher.alerts();
  if (process.env.RULES_BENCH_DEBUG) {
    const byRule = new Map<string, number>();
    for (const a of alerts) byRule.set(a.rule, (byRule.get(a.rule) ?? 0) + 1);
    console.error(Object.fromEntries(byRule), alerts.slice(0, 3));
  }
  console.log(
    JSON.stringify({
      events_per_second: Math.round((events.length + records.length) / (elapsed / 1000)),
      events: events.length,
      records: records.length,
      rules: ruleset.rules.length,
      alerts: alerts.length,
      alert_hits: alerts.reduce((n, a) => n + a.count, 0),
      elapsed_ms: Math.round(elapsed),
      peak_rss_mb: Math.round(process.memoryUsage().rss / 1024 / 1024),
    }),
  );
}

main();
