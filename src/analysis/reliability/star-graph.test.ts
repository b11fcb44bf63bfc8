import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { NetworkRecord, SysEvent } from '../../evidence/types.js';
import { parseStarGraph } from './graph-schema.js';
import { viewNodes } from './graph-view.js';
import { buildStarGraph, type StarGraphInput } from './star-graph.js';
import type { StarGraph } from './types.js';

const WS = '/runs/r-0001/repo';
let seq = 0;
function ev(e: Partial<SysEvent> & Pick<SysEvent, 'kind'>): SysEvent {
  return { seq: seq++, ts: seq, pid: 100, ppid: 1, exe: '/usr/bin/node', syscall: 'openat', ...e };
}
const open = (path: string, access: SysEvent['access'] = 'read', result = 3, pid = 100) =>
  ev({ kind: 'open', path, access, result, pid });
const build = (syscalls: SysEvent[], extra: Partial<StarGraphInput> = {}) =>
  buildStarGraph({ runId: 'r-0001', syscalls, workspaceDir: WS, agentHome: '/root', ...extra });
const edgesOf = (g: StarGraph, id: string) =>
  g.edges.filter((e) => e.to === id).map((e) => [e.action, e.count, e.failed]);

describe('buildStarGraph', () => {
  it('links an exec to a command node and to the executable file', () => {
    const g = build([
      ev({
        kind: 'exec',
        syscall: 'execve',
        path: '/usr/bin/git',
        argv: ['git', 'status', '-s'],
        cwd: WS,
        result: 0,
      }),
    ]);
    expect(g.root).toEqual({ id: 'root', label: 'git status' });
    expect(edgesOf(g, 'command:git status')).toEqual([['exec', 1, 0]]);
    expect(edgesOf(g, 'file:/usr/bin/git')).toEqual([['exec', 1, 0]]);
    expect(g.nodes.find((n) => n.id === 'command:git status')?.exes).toEqual(['/usr/bin/git']);
  });

  it('drops failed execs that were PATH probes, keeps a program that never started as a failed exec', () => {
    const g = build([
      ev({ kind: 'exec', syscall: 'execve', path: '/usr/local/bin/git', argv: ['git', 'log'], result: -2 }),
      ev({ kind: 'exec', syscall: 'execve', path: '/usr/bin/git', argv: ['git', 'log'], result: 0 }),
      ev({
        kind: 'exec',
        syscall: 'execve',
        path: '/usr/local/bin/rg',
        argv: ['rg', 'x'],
        result: -2,
        pid: 101,
      }),
    ]);
    expect(edgesOf(g, 'command:git log')).toEqual([['exec', 1, 0]]);
    expect(edgesOf(g, 'command:rg x')).toEqual([['exec', 1, 1]]);
    expect(g.stats.path_probes).toBe(1);
    expect(g.nodes.some((n) => n.name === '/usr/local/bin/git')).toBe(false);
  });

  it('counts opens per action across processes, failed ones included and marked', () => {
    const g = build([
      open(`${WS}/src/a.js`, 'read', 3, 100),
      open(`${WS}/src/a.js`, 'read', 3, 200),
      open(`${WS}/src/a.js`, 'write', 4, 300),
      open(`${WS}/missing.js`, 'read', -2),
      open(`${WS}/new.js`, 'create', 5),
    ]);
    expect(edgesOf(g, 'file:$WORKSPACE/src/a.js')).toEqual([
      ['read', 2, 0],
      ['write', 1, 0],
    ]);
    expect(edgesOf(g, 'file:$WORKSPACE/missing.js')).toEqual([['read', 1, 1]]);
    expect(edgesOf(g, 'file:$WORKSPACE/new.js')).toEqual([['create', 1, 0]]);
    expect(g.nodes.find((n) => n.name === '$WORKSPACE/src/a.js')?.count).toBe(3);
    expect(g.stats.processes).toBe(3);
    expect(JSON.stringify(g)).not.toMatch(/"pid"|\b300\b/);
  });

  it('turns metadata calls into delete, write and create actions', () => {
    const meta = (syscall: string, path: string, path2?: string) =>
      ev({ kind: 'write-meta', syscall, path, ...(path2 ? { path2 } : {}), result: 0 });
    const g = build([
      meta('unlinkat', `${WS}/old.txt`),
      meta('rmdir', `${WS}/build`),
      meta('renameat2', `${WS}/a.tmp`, `${WS}/a.txt`),
      meta('mkdir', `${WS}/dist`),
      meta('symlinkat', '/etc/passwd', `${WS}/link`),
      meta('fchmodat', `${WS}/run.sh`),
    ]);
    expect(edgesOf(g, 'file:$WORKSPACE/old.txt')).toEqual([['delete', 1, 0]]);
    expect(edgesOf(g, 'file:$WORKSPACE/build')).toEqual([['delete', 1, 0]]);
    expect(edgesOf(g, 'file:$WORKSPACE/a.tmp')).toEqual([['delete', 1, 0]]);
    expect(edgesOf(g, 'file:$WORKSPACE/a.txt')).toEqual([['write', 1, 0]]);
    expect(edgesOf(g, 'file:$WORKSPACE/dist')).toEqual([['create', 1, 0]]);
    expect(edgesOf(g, 'file:$WORKSPACE/link')).toEqual([['create', 1, 0]]);
    expect(edgesOf(g, 'file:/etc/passwd')).toEqual([]);
    expect(edgesOf(g, 'file:$WORKSPACE/run.sh')).toEqual([['write', 1, 0]]);
  });

  it('skips the harness bridge and keeps real destinations, names before IPs', () => {
    const connect = (addr: SysEvent['addr'], result = 0) =>
      ev({ kind: 'connect', syscall: 'connect', addr, result });
    const network: NetworkRecord[] = [
      {
        ts: 1,
        host: 'Registry.NPMjs.org.',
        port: 443,
        protocol: 'connect',
        decision: 'allowed',
        reason: 'allow list',
      },
      {
        ts: 2,
        host: 'evil.example',
        port: 443,
        protocol: 'connect',
        decision: 'denied',
        reason: 'not allowed',
      },
      { ts: 3, host: 'evil.example', port: 53, protocol: 'dns', decision: 'denied', reason: 'not allowed' },
    ];
    const g = build(
      [
        connect({ family: 'inet', ip: '127.0.0.1', port: 3128 }),
        connect({ family: 'inet', ip: '127.0.0.1', port: 53 }),
        connect({ family: 'inet6', ip: '::ffff:127.0.0.1', port: 3128 }),
        connect({ family: 'unix', path: '/run/agentguard/proxy.sock' }),
        connect({ family: 'inet', ip: '127.0.0.1', port: 8080 }),
        connect({ family: 'inet', ip: '93.184.216.34', port: 443, host: 'Example.com' }, -111),
        connect({ family: 'unix', path: '/var/run/nscd/socket' }, -2),
      ],
      { network },
    );
    expect(g.nodes.filter((n) => n.type === 'host').map((n) => [n.name, n.ports, n.runtime])).toEqual([
      ['127.0.0.1', [8080], undefined],
      ['evil.example', [53, 443], undefined],
      ['example.com', [443], undefined],
      ['registry.npmjs.org', [443], undefined],
      ['unix:/var/run/nscd/socket', undefined, 'name-service'],
    ]);
    expect(edgesOf(g, 'host:evil.example')).toEqual([['connect', 2, 2]]);
    expect(edgesOf(g, 'host:example.com')).toEqual([['connect', 1, 1]]);
    expect(g.stats).toMatchObject({ events: 7, used: 3, skipped: 4, network_records: 3 });
  });

  it('keeps canary names and marks them, whether given relative to HOME or absolute', () => {
    const g = build(
      [open('/root/.ssh/id_rsa'), open('/root/.aws/credentials', 'read', -13), open('/root/.bashrc')],
      {
        canaryPaths: ['.ssh/id_rsa', '/root/.aws/credentials'],
      },
    );
    expect(g.nodes.filter((n) => n.canary).map((n) => n.name)).toEqual([
      '$HOME/.aws/credentials',
      '$HOME/.ssh/id_rsa',
    ]);
    expect(g.nodes.find((n) => n.name === '$HOME/.bashrc')?.canary).toBeUndefined();
  });

  it('marks runtime files so the behaviour view can leave them out', () => {
    const g = build(
      [
        open('/lib/x86_64-linux-gnu/libc.so.6'),
        open('/proc/self/maps'),
        open('/opt/agent/lib/cli.js'),
        open(`${WS}/src/a.js`),
      ],
      { runtimeDirs: ['/opt/agent'] },
    );
    expect(g.nodes.map((n) => [n.name, n.runtime])).toEqual([
      ['$WORKSPACE/src/a.js', undefined],
      ['/lib/x86_64-linux-gnu/libc.so.6', 'shared-library'],
      ['/opt/agent/lib/cli.js', 'declared'],
      ['/proc/self/maps', 'process-self'],
    ]);
    expect(viewNodes(g, 'behaviour').map((n) => n.name)).toEqual(['$WORKSPACE/src/a.js']);
    expect(viewNodes(g, 'all')).toHaveLength(4);
  });

  it('gives the same graph for two runs that differ only in run id, pids and temp names', () => {
    const run = (id: string, pid: number, tmp: string) =>
      buildStarGraph({
        runId: id,
        workspaceDir: `/out/runs/${id}/repo`,
        agentHome: '/root',
        syscalls: [
          ev({
            kind: 'exec',
            syscall: 'execve',
            path: '/usr/bin/node',
            argv: ['node', 'x.js'],
            cwd: `/out/runs/${id}/repo`,
            pid,
          }),
          open(`/out/runs/${id}/repo/x.js`, 'read', 3, pid),
          open(`/proc/${pid}/status`, 'read', 3, pid),
          open(`/tmp/${tmp}/out.json`, 'create', 3, pid + 1),
        ],
      });
    const a = run('20260101-000000-aaaa1111', 4100, 'job-Xy12Zq');
    const b = run('20260102-000000-bbbb2222', 977, 'job-Pp98Rr');
    const strip = (g: StarGraph) => ({ ...g, run_id: '' });
    expect(strip(a)).toEqual(strip(b));
    expect(a.nodes.map((n) => n.name)).toContain('/tmp/job-$RAND/out.json');
  });

  it('round-trips through graph.json and validates', () => {
    const g = build([open(`${WS}/a`), ev({ kind: 'exit', syscall: 'exit', result: 0 })]);
    const parsed = parseStarGraph(JSON.parse(JSON.stringify(g)));
    expect(parsed).toEqual({ ok: true, value: g });
    const broken = parseStarGraph({
      ...g,
      edges: [{ to: 'file:nope', action: 'read', count: 1, failed: 0 }],
    });
    expect(broken).toEqual({ ok: false, issues: ["edges: 'file:nope' is not a node"] });
    const wrong = parseStarGraph({ ...g, schema_version: 2 });
    expect(wrong.ok).toBe(false);
    expect(!wrong.ok && wrong.issues[0]).toMatch(/^schema_version:/);
  });
});

describe('buildStarGraph on a recorded run (ebpf, bwrap, mock agent tampering with tests)', () => {
  const RUN = '20261202-131543-7aaea1a3';
  const syscalls = readFileSync(new URL('./fixtures/tamper-tests.syscalls.jsonl', import.meta.url), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as SysEvent);
  const graph = buildStarGraph({
    runId: RUN,
    syscalls,
    network: [],
    workspaceDir: `/tmp/agt2/.agentguard/runs/${RUN}/repo`,
    agentHome: '/root',
    runDir: `/tmp/agt2/.agentguard/runs/${RUN}`,
    canaryPaths: ['.ssh/id_rsa', '.aws/credentials', '.env', '.npmrc'],
  });

  it('has one command, the workspace edits, and the agent’s own files', () => {
    expect(graph.root.label).toBe('node /work/main/dist/agents/mock-agent.js');
    expect(graph.nodes.filter((n) => n.type === 'command').map((n) => n.name)).toEqual([
      'node /work/main/dist/agents/mock-agent.js',
    ]);
    expect(edgesOf(graph, 'file:$WORKSPACE/src/slugify.js')).toEqual([['create', 1, 0]]);
    expect(edgesOf(graph, 'file:$WORKSPACE/test/slugify.test.js')).toEqual([
      ['read', 1, 0],
      ['create', 1, 0],
    ]);
    expect(edgesOf(graph, 'file:$WORKSPACE/src')).toEqual([
      ['read', 1, 0],
      ['create', 1, 1],
    ]);
    expect(edgesOf(graph, 'file:/work/main/dist/package.json')).toEqual([['read', 1, 1]]);
    expect(graph.stats).toEqual({
      events: 35,
      used: 34,
      skipped: 1,
      path_probes: 0,
      network_records: 0,
      processes: 1,
      truncated: 0,
    });
    expect(JSON.stringify([graph.nodes, graph.edges])).not.toContain(RUN);
    expect(JSON.stringify([graph.nodes, graph.edges])).not.toContain('/tmp/agt2');
  });

  it('the behaviour view leaves out exactly the start-up noise', () => {
    expect(viewNodes(graph, 'behaviour').map((n) => n.name)).toEqual([
      'node /work/main/dist/agents/mock-agent.js',
      '$WORKSPACE',
      '$WORKSPACE/src',
      '$WORKSPACE/src/slugify.js',
      '$WORKSPACE/test',
      '$WORKSPACE/test/slugify.test.js',
      '/work/main/benchmarks/js-slugify/solution',
      '/work/main/benchmarks/js-slugify/solution/src',
      '/work/main/benchmarks/js-slugify/solution/src/slugify.js',
      '/work/main/dist/agents/mock-agent.js',
      '/work/main/dist/agents/mock-behaviours.js',
      '/work/main/dist/agents/mock-glob.js',
      '/work/main/dist/agents/package.json',
      '/work/main/dist/package.json',
      '/work/main/package.json',
    ]);
    const runtime = graph.nodes.filter((n) => n.runtime).map((n) => n.runtime);
    expect(new Set(runtime)).toEqual(
      new Set([
        'dynamic-linker',
        'shared-library',
        'tls-config',
        'process-self',
        'system-info',
        'program-image',
        'devices',
      ]),
    );
  });
});
