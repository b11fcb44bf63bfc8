import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Each benchmark runs in its own process so its peak memory is its own. */
/** A target: [limit, unit, 'max' (the figure must stay below) or 'min' (it must reach at least)]. */
type Target = [number, string, ('max' | 'min')?];
type Bench = { name: string; script: string; targets: Record<string, Target> };

const BENCHES: Bench[] = [
  {
    name: 'pipeline: 2,000-file / 100,000-line repo, agent changes 200 files',
    script: 'pipeline-bench.js',
    targets: { harness_ms: [2000, 'ms'], analyze_ms: [500, 'ms'], peak_rss_mb: [300, 'MB'] },
  },
  {
    name: 'cli start: --version and --help against node -e 0, reports list on a 1,000-run history (issue 41)',
    script: 'cli-startup-bench.js',
    targets: {
      version_over_node_ms: [150, 'ms'],
      help_over_node_ms: [150, 'ms'],
      reports_list_1000_runs_ms: [300, 'ms'],
    },
  },
  {
    name: 'run phases: a trivial run (js-slugify, mock-solve) per phase under each tracer, and the demo (issue 41)',
    script: 'run-phases-bench.js',
    targets: { run_off_ms: [1000, 'ms'], ebpf_over_off_ms: [100, 'ms'], demo_ms: [5000, 'ms'] },
  },
  {
    name: 'rules: default rule set over 1,000,000 recorded-like events, one core',
    script: 'rules-bench.js',
    targets: { events_per_second: [200_000, 'events/s', 'min'] },
  },
  {
    name: 'similarity: graphs and similarity for 100 runs of 10,000 events',
    script: 'similarity-bench.js',
    targets: { total_ms: [5000, 'ms'], peak_rss_mb: [500, 'MB'] },
  },
  {
    name: 'attacks: the attack suite and its benign twins (strace, bwrap, live guard)',
    script: 'attack-bench.js',
    targets: {
      recall: [1, '', 'min'],
      precision: [1, '', 'min'],
      false_alerts_on_benign: [0, 'alerts'],
      median_detection_ms: [1000, 'ms'],
      max_detection_ms: [1000, 'ms'],
    },
  },
  {
    name: 'observation engines: compiled collector, bpftrace, strace and auditd (the peer) against no tracer, side by side (bwrap; ebpf parsed live as with the guard)',
    script: 'tracer-overhead.js',
    targets: {
      // Issue 14: the compiled collector.
      window_collector_p50_ms: [300, 'ms'],
      // The agent-like workload lasts under a second: the median of paired repetitions, not of all.
      realistic_collector_paired_median_pct: [3, '%'],
      open_loop_collector_overhead_pct: [10, '%'],
      open_paced_collector_lost: [0, 'events'],
      open_loop_collector_lost: [0, 'events'],
      open_loop_collector_missing: [0, 'events'],
      // bpftrace, the fallback engine, keeps the targets it had as the only ebpf engine.
      realistic_bpftrace_overhead_pct: [5, '%'],
      open_loop_bpftrace_overhead_pct: [30, '%'],
      open_loop_bpftrace_lost: [0, 'events'],
      open_loop_bpftrace_missing: [0, 'events'],
    },
  },
  {
    name: 'batches: scheduler overhead per attempt (trivial agent, tracer off), the demo as a matrix at 2 workers vs 1, and at 2 workers under each ebpf engine',
    script: 'batch-bench.js',
    targets: {
      scheduler_overhead_ms_per_attempt: [100, 'ms'],
      rss_growth_mb_last_three_quarters: [50, 'MB'],
      demo_matrix_collector_ms: [60_000, 'ms'],
    },
  },
  {
    name: 'queue: overhead per attempt (trivial agent, tracer off) local vs through Redis with 1 and 2 workers',
    script: 'queue-bench.js',
    targets: { queue_overhead_ms_per_attempt: [50, 'ms'] },
  },
  {
    name: 'provenance: seal (trace + manifest) and verify a real run with 10k and 100k syscall events',
    script: 'provenance-bench.js',
    targets: { seal_ms_per_10k_events_at_10k: [200, 'ms'], verify_ms_at_100k: [1000, 'ms'] },
  },
  {
    name: 'microvm: the demo task per run under bwrap and microvm (strace and ebpf), boot-to-agent-start and teardown',
    script: 'microvm-bench.js',
    targets: { added_per_run_ms: [1500, 'ms'] },
  },
  {
    name: 'grading: the demo tasks by mock-solve with grading: copy against in-place (issue 34)',
    script: 'grading-bench.js',
    targets: { added_median_pct: [20, '%'] },
  },
  {
    name: 'reliability: homogeneous vs mixed on the built-in tasks, exploring scripted agent (strace, bwrap)',
    script: 'reliability-bench.js',
    targets: {},
  },
];

/** `npm run bench -- [NAME [OPTIONS…]]`: one bench by name, and the options its script documents. */
const only = process.argv[2];
const options = only ? process.argv.slice(3) : [];
let missed = 0;
for (const bench of BENCHES) {
  if (only && !bench.script.startsWith(only)) continue;
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), bench.script);
  const r = spawnSync(process.execPath, [script, ...options], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = r.stdout.trim().split('\n').pop() ?? '';
  console.log(`\n${bench.name}`);
  if (r.status !== 0 || !line.startsWith('{')) {
    console.log(`  failed to run (exit ${r.status})`);
    missed++;
    continue;
  }
  const figures = JSON.parse(line) as Record<string, unknown>;
  for (const [key, value] of Object.entries(figures)) {
    const target = bench.targets[key];
    let verdict = '';
    if (target) {
      const [limit, unit, kind = 'max'] = target;
      const met = kind === 'max' ? Number(value) <= limit : Number(value) >= limit;
      if (!met) missed++;
      verdict = `  (target ${kind === 'max' ? '<=' : '>='} ${limit} ${unit}: ${met ? 'met' : 'MISSED'})`;
    }
    const shown = typeof value === 'object' ? JSON.stringify(value) : String(value);
    console.log(`  ${key.padEnd(40)} ${shown}${verdict}`);
  }
  // A figure the bench could not measure here (its engine is not available) meets no target.
  const absent = Object.keys(bench.targets).filter((key) => !(key in figures) && !('skipped' in figures));
  if (absent.length > 0) console.log(`  not measured here: ${absent.join(', ')}`);
}
console.log(missed === 0 ? '\nall targets met' : `\n${missed} target(s) missed`);
