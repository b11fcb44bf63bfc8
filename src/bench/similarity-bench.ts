import { homogeneousVsMixed } from '../analysis/reliability/homogeneous-mixed.js';
import { findOutlier } from '../analysis/reliability/outlier.js';
import { similarityMatrix } from '../analysis/reliability/similarity.js';
import { buildStarGraph } from '../analysis/reliability/star-graph.js';
import type { StarGraph } from '../analysis/reliability/types.js';
import type { NetworkRecord, SysEvent } from '../evidence/types.js';

/**
 * Star-graph build and similarity for 100 synthetic runs of 10,000 events each (10 tasks × 10
 * trials): every graph, the full pairwise matrix, the homogeneous-versus-mixed comparison and the
 * outlier of each task. All runs' events are generated up front and held in memory together (the
 * worst case for memory), and each run's events also go through JSON.stringify/parse as a stand-in
 * for reading syscalls.jsonl. Prints one JSON line. Targets: total under 5 s, peak RSS under 500 MB.
 */

const TASKS = 10;
const TRIALS = 10;
const EVENTS = 10_000;

/** mulberry32: a small seeded generator, so every run of the benchmark sees the same data. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Template = {
  kind: 'exec' | 'open' | 'meta' | 'connect' | 'runtime';
  make: (ctx: RunCtx) => Partial<SysEvent>;
};
type RunCtx = { ws: string; pid: number; random: () => number };

const SHARED_COMMANDS: string[][] = [
  ['git', 'status'],
  ['git', 'diff'],
  ['ls', '-la'],
  ['cat', 'README.md'],
  ['sh', '-c', 'npm test 2>&1 | tail'],
  ['npm', 'test'],
  ['grep', '-rn', 'TODO', 'src'],
];
const TASK_COMMANDS: string[][] = [
  ['python3', '-m', 'pytest'],
  ['make', 'build'],
  ['cargo', 'test'],
  ['node', 'scripts/gen.js'],
  ['go', 'test'],
  ['pip', 'install', 'requests'],
  ['npx', 'eslint'],
  ['sed', '-i', 's/a/b/', 'x'],
  ['find', '.', '-name', '*.ts'],
  ['rg', 'pattern'],
];
const LIBS = ['libc.so.6', 'libm.so.6', 'libdl.so.2', 'libpthread.so.0', 'libstdc++.so.6', 'libgcc_s.so.1'];

/** A task's resource pool with Zipf-like weights: what its trials draw their events from. */
function taskTemplates(task: number, random: () => number): { templates: Template[]; weights: number[] } {
  const templates: Template[] = [];
  const weights: number[] = [];
  const push = (w: number, t: Template) => {
    templates.push(t);
    weights.push(w);
  };
  for (const argv of [...SHARED_COMMANDS, ...TASK_COMMANDS.slice(task % 5, (task % 5) + 4)]) {
    push(2 + random() * 8, {
      kind: 'exec',
      make: (c) => ({
        kind: 'exec',
        syscall: 'execve',
        path: `/usr/bin/${argv[0]}`,
        argv,
        cwd: c.ws,
        result: 0,
      }),
    });
  }
  for (let i = 0; i < 150; i++) {
    const file = i < 40 ? `shared/f${i}.js` : `src/task${task}/mod${i}.ts`;
    const access = random() < 0.8 ? 'read' : random() < 0.5 ? 'write' : 'create';
    push(20 / (1 + i) ** 0.8, {
      kind: 'open',
      make: (c) => ({ kind: 'open', syscall: 'openat', path: `${c.ws}/${file}`, access, result: 3 }),
    });
  }
  for (let i = 0; i < 10; i++) {
    push(1, {
      kind: 'meta',
      make: (c) => ({
        kind: 'write-meta',
        syscall: 'renameat2',
        path: `${c.ws}/out/t${task}-${i}.tmp`,
        path2: `${c.ws}/out/t${task}-${i}`,
        result: 0,
      }),
    });
  }
  for (const host of ['registry.npmjs.org', `api${task}.example.com`, `cdn${task % 3}.example.net`]) {
    push(1 + random() * 2, {
      kind: 'connect',
      make: () => ({
        kind: 'connect',
        syscall: 'connect',
        addr: { family: 'inet', ip: '10.0.0.1', port: 443, host },
        result: 0,
      }),
    });
  }
  push(3, {
    kind: 'connect',
    make: () => ({
      kind: 'connect',
      syscall: 'connect',
      addr: { family: 'inet', ip: '127.0.0.1', port: 3128 },
      result: 0,
    }),
  });
  for (const lib of LIBS) {
    push(15, {
      kind: 'runtime',
      make: () => ({
        kind: 'open',
        syscall: 'openat',
        path: `/lib/x86_64-linux-gnu/${lib}`,
        access: 'read',
        result: 3,
      }),
    });
  }
  push(10, {
    kind: 'runtime',
    make: (c) => ({
      kind: 'open',
      syscall: 'openat',
      path: `/proc/${c.pid}/status`,
      access: 'read',
      result: 3,
    }),
  });
  push(5, {
    kind: 'runtime',
    make: (c) => ({
      kind: 'open',
      syscall: 'openat',
      path: `/tmp/tmp${Math.floor(c.random() * 1e9).toString(36)}/x.json`,
      access: 'create',
      result: 3,
    }),
  });
  push(3, {
    kind: 'open',
    make: () => ({ kind: 'open', syscall: 'openat', path: '/root/.npmrc', access: 'read', result: -2 }),
  });
  return { templates, weights };
}

type Run = { runId: string; task: string; ws: string; jsonl: string; network: NetworkRecord[] };

function generateRun(task: number, trial: number, pool: ReturnType<typeof taskTemplates>): Run {
  const random = rng(1000 * task + trial + 7);
  const runId = `20260101-00${String(task).padStart(2, '0')}${String(trial).padStart(2, '0')}-${(task * 977 + trial * 131).toString(16).padStart(8, '0')}`;
  const ws = `/tmp/bench/.agentguard/runs/${runId}/repo`;
  // Each trial reweights the pool (log-normal noise) and drops a fifth of it: trials of one task
  // differ, and tasks share their first 40 files and most commands, so the comparison is not trivial.
  const weights = pool.weights.map((w) => (random() < 0.2 ? 0 : w * Math.exp((random() - 0.5) * 3)));
  const cumulative: number[] = [];
  let total = 0;
  for (const w of weights) {
    total += w;
    cumulative.push(total);
  }
  const pids = Array.from({ length: 40 }, (_, i) => 2000 + trial * 100 + i);
  const lines: string[] = [];
  for (let seq = 0; seq < EVENTS; seq++) {
    const pid = pids[Math.floor(random() * pids.length)] as number;
    let event: Partial<SysEvent>;
    if (seq % 25 === 0) {
      event = { kind: 'exit', syscall: 'exit', result: 0 };
    } else {
      const x = random() * total;
      let lo = 0;
      let hi = cumulative.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if ((cumulative[mid] as number) < x) lo = mid + 1;
        else hi = mid;
      }
      event = (pool.templates[lo] as Template).make({ ws, pid, random });
    }
    lines.push(JSON.stringify({ seq, ts: seq * 0.1, pid, ppid: 1, exe: '/usr/bin/node', ...event }));
  }
  const network: NetworkRecord[] = [
    {
      ts: 1,
      host: `api${task}.example.com`,
      port: 443,
      protocol: 'connect',
      decision: 'allowed',
      reason: 'allow list',
    },
  ];
  return { runId, task: `task-${task}`, ws, jsonl: lines.join('\n'), network };
}

function main(): void {
  const g0 = performance.now();
  const runs: Run[] = [];
  for (let task = 0; task < TASKS; task++) {
    const pool = taskTemplates(task, rng(task + 1));
    for (let trial = 0; trial < TRIALS; trial++) runs.push(generateRun(task, trial, pool));
  }
  const generateMs = performance.now() - g0;

  const t0 = performance.now();
  const c0 = process.cpuUsage();
  let parseMs = 0;
  const graphs: StarGraph[] = [];
  for (const run of runs) {
    const p0 = performance.now();
    const syscalls = run.jsonl.split('\n').map((line) => JSON.parse(line) as SysEvent);
    parseMs += performance.now() - p0;
    graphs.push(
      buildStarGraph({
        runId: run.runId,
        syscalls,
        network: run.network,
        workspaceDir: run.ws,
        agentHome: '/root',
      }),
    );
  }
  const t1 = performance.now();
  const matrix = similarityMatrix(graphs);
  const t2 = performance.now();
  const hvm = homogeneousVsMixed(
    runs.map((r) => ({ run_id: r.runId, task: r.task })),
    matrix.overall,
  );
  for (let task = 0; task < TASKS; task++) {
    const own = graphs.slice(task * TRIALS, (task + 1) * TRIALS);
    findOutlier(own, similarityMatrix(own).overall);
  }
  const t3 = performance.now();
  const cpu = process.cpuUsage(c0);

  const figures = {
    runs: runs.length,
    events_per_run: EVENTS,
    generate_ms: Math.round(generateMs),
    parse_ms: Math.round(parseMs),
    graph_build_ms: Math.round(t1 - t0 - parseMs),
    similarity_ms: Math.round(t2 - t1),
    homogeneous_and_outliers_ms: Math.round(t3 - t2),
    total_ms: Math.round(t3 - t0),
    // CPU time of the same section (user + system, all threads, GC included): steadier than wall
    // time on a shared machine.
    total_cpu_ms: Math.round((cpu.user + cpu.system) / 1000),
    nodes_per_graph: Math.round(graphs.reduce((n, g) => n + g.nodes.length, 0) / graphs.length),
    comparisons: hvm.comparisons,
    homogeneous_wins_share: Math.round((hvm.homogeneous_wins_share ?? 0) * 1000) / 1000,
    peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
  };
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

main();
