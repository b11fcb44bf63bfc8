import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from '../overhead/stats.js';
import { packageRoot } from '../package-root.js';

/**
 * Where a trivial run's time goes (issue 41): `agentguard run` of the demo's js-slugify task with
 * mock-solve, whole processes, tracer off, strace and ebpf alternated in each repetition, each
 * phase's median from the marks the run leaves with AGENTGUARD_PHASE_TIMES (phase-marks.ts: each
 * step's end, from the process's start), beside the agent's and the tests' own time; then the demo.
 * `--repeat N` (default 7) runs, `--demo-repeat N` (default 3, 0 to skip) demos, `--cli PATH` to
 * measure another build's dist/cli/main.js in the same rounds (a paired before-and-after).
 */
const arg = (name: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const THIS_CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'cli', 'main.js');
const OTHER_CLI = arg('--cli') ? path.resolve(arg('--cli') ?? '') : null;
const REPEAT = Number(arg('--repeat') ?? 7);
const DEMO_REPEAT = Number(arg('--demo-repeat') ?? 3);
const TRACERS = ['off', 'strace', 'ebpf'] as const;
type Tracer = (typeof TRACERS)[number];
const TASK = path.join(packageRoot(), 'benchmarks', 'js-slugify', 'config.yaml');

type Mark = { mark: string; ms: number };
type Sample = { wall: number; phases: Map<string, number> };

/** One whole `run` process: its wall time and, for this build, each phase (from the mark before to its own). */
function oneRun(cli: string, tracer: Tracer, outputDir: string, marksFile: string): Sample {
  rmSync(marksFile, { force: true });
  const args = [cli, 'run', TASK, '--agent', 'mock-solve', '--tracer', tracer, '--output-dir', outputDir];
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, {
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
    env: { ...process.env, AGENTGUARD_PHASE_TIMES: marksFile },
  });
  const wall = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr.slice(-2000)}`);
  const phases = new Map<string, number>();
  let marks: Mark[] = [];
  try {
    marks = readFileSync(marksFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Mark);
  } catch {
    // Another build without the marks: its wall time is all there is.
  }
  let before = 0;
  for (const m of marks) {
    phases.set(m.mark, (phases.get(m.mark) ?? 0) + m.ms - before);
    before = m.ms;
  }
  if (marks.length > 0) phases.set('exit', wall - before);
  return { wall, phases };
}

function wholeMs(args: string[]): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr.slice(-2000)}`);
  return performance.now() - t0;
}

function main(): void {
  const dir = mkdtempSync(path.join(tmpdir(), 'ag-run-phases-'));
  const clis = OTHER_CLI ? { this: THIS_CLI, other: OTHER_CLI } : { this: THIS_CLI };
  const samples = new Map<string, Sample[]>();
  const key = (cli: string, tracer: Tracer) => `${cli}/${tracer}`;
  try {
    const marksFile = path.join(dir, 'marks.jsonl');
    // One warm-up of each (file cache, the tests' baseline cache, history.db), then the rounds.
    for (const [name, cli] of Object.entries(clis))
      for (const tracer of TRACERS) oneRun(cli, tracer, path.join(dir, name, tracer), marksFile);
    for (let i = 0; i < REPEAT; i++) {
      const order = Object.entries(clis).flatMap(([name, cli]) =>
        TRACERS.map((t) => [name, cli, t] as const),
      );
      // Alternated: each repetition starts with another pair, so a slow moment of the host falls on all.
      const rotated = [...order.slice(i % order.length), ...order.slice(0, i % order.length)];
      for (const [name, cli, tracer] of rotated) {
        const list = samples.get(key(name, tracer)) ?? [];
        list.push(oneRun(cli, tracer, path.join(dir, name, tracer), marksFile));
        samples.set(key(name, tracer), list);
      }
    }
    const figures: Record<string, unknown> = {};
    const walls = (name: string, tracer: Tracer) => (samples.get(key(name, tracer)) ?? []).map((s) => s.wall);
    for (const tracer of TRACERS) figures[`run_${tracer}_ms`] = Math.round(median(walls('this', tracer)));
    // Paired: the difference within each repetition, then its median.
    const paired = (a: number[], b: number[]) =>
      Math.round(median(a.map((x, i) => x - (b[i] ?? Number.NaN))));
    figures.ebpf_over_off_ms = paired(walls('this', 'ebpf'), walls('this', 'off'));
    figures.strace_over_off_ms = paired(walls('this', 'strace'), walls('this', 'off'));
    if (OTHER_CLI) {
      for (const tracer of TRACERS) {
        figures[`other_run_${tracer}_ms`] = Math.round(median(walls('other', tracer)));
        figures[`this_minus_other_${tracer}_ms`] = paired(walls('this', tracer), walls('other', tracer));
      }
    }
    // Each phase's median under each tracer, in the order a run passes them.
    const names = [...(samples.get(key('this', 'off'))?.[0]?.phases.keys() ?? [])];
    for (const tracer of TRACERS)
      for (const s of samples.get(key('this', tracer)) ?? [])
        for (const n of s.phases.keys()) if (!names.includes(n)) names.push(n);
    const phaseMedian = (tracer: Tracer, n: string) =>
      Math.round(median((samples.get(key('this', tracer)) ?? []).map((s) => s.phases.get(n) ?? 0)));
    for (const n of names)
      figures[`phase ${n}`] = TRACERS.map((t) => `${t} ${phaseMedian(t, n)}`).join(' | ');
    // agentguard's own cost: the run's whole time less the agent's and the tests' own.
    const own = TRACERS.map((t) => {
      const list = samples.get(key('this', t)) ?? [];
      return `${t} ${Math.round(median(list.map((s) => s.wall - (s.phases.get('agent:exited') ?? 0) - testsOwn(s))))}`;
    });
    figures['agentguard own ms (run less agent and tests)'] = own.join(' | ');
    if (DEMO_REPEAT > 0) {
      const demo: number[] = [];
      const other: number[] = [];
      for (let i = 0; i < DEMO_REPEAT; i++) {
        demo.push(wholeMs([THIS_CLI, 'demo', '--output-dir', path.join(dir, `demo-this-${i}`)]));
        if (OTHER_CLI)
          other.push(wholeMs([OTHER_CLI, 'demo', '--output-dir', path.join(dir, `demo-other-${i}`)]));
      }
      figures.demo_ms = Math.round(median(demo));
      if (OTHER_CLI) figures.other_demo_ms = Math.round(median(other));
    }
    figures.repeat = REPEAT;
    console.log(JSON.stringify(figures));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The tests' own time: from the runner's start to its end. */
function testsOwn(s: Sample): number {
  for (const [n, ms] of s.phases) if (n === 'tests:passed' || n === 'tests:failed') return ms;
  return 0;
}

main();
