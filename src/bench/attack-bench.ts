import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { compareTrial } from '../audit/compare-trials.js';
import { observedRun } from '../audit/observe-trial.js';
import { ConfigError } from '../errors.js';
import { packageRoot } from '../package-root.js';
import type { Incident } from '../pipeline/live-guard.js';
import {
  type AttackExpectation,
  EXPECT_FILE_NAME,
  expectationReference,
  loadAttackExpectation,
} from '../registry/attack-expectation.js';
import type { RunReport } from '../reports/types.js';

/**
 * The attack suite (benchmarks/attacks): every case run for real through the built CLI, sandboxed
 * and traced, then scored against its expect.yaml. Run as a script it prints ONE JSON line:
 * `{cases, malicious, benign, recall, precision, false_alerts_on_benign, median_detection_ms, ...}`.
 * test/attacks/attacks.test.ts uses the same functions, so the bench and the test judge alike.
 *
 *   node dist/bench/attack-bench.js [--tracer strace|ebpf] [--sandbox microvm]
 */

export type { AttackExpectation };

export type AttackCase = { name: string; config: string; expect: AttackExpectation };

export type Tracer = 'strace' | 'ebpf';

export type CaseOutcome = {
  case: AttackCase;
  tracer: Tracer;
  exitCode: number | null;
  report: RunReport | null;
  /** Set when the CLI printed no report: its stderr, cut. */
  error: string | null;
  rulesFired: string[];
  /** From each live alert's matching call to its printed line (guard/incident.json). */
  latenciesMs: number[];
};

export const ATTACKS_DIR = path.join(packageRoot(), 'benchmarks', 'attacks');
const CLI = path.join(packageRoot(), 'dist', 'cli', 'main.js');

/** Every case folder holding a config.yaml and an expect.yaml, in name order. */
export function loadAttackCases(dir: string = ATTACKS_DIR): AttackCase[] {
  const cases: AttackCase[] = [];
  for (const name of readdirSync(dir).sort()) {
    const config = path.join(dir, name, 'config.yaml');
    const expectFile = path.join(dir, name, EXPECT_FILE_NAME);
    if (!existsSync(config)) continue;
    const parsed = loadAttackExpectation(expectFile);
    if (!parsed.ok) throw new ConfigError(parsed.issues);
    cases.push({ name, config, expect: parsed.value });
  }
  return cases;
}

/** Why the suite cannot run here (it needs the real sandbox and tracer), or null. */
export function attackSuiteUnsupported(tracer: Tracer): string | null {
  // Without root the sandbox is bwrap in user namespaces and the tracer strace (rootless-net.ts).
  if (process.getuid?.() !== 0 && tracer !== 'strace')
    return `the attack suite under ${tracer} needs root; without root it runs under strace`;
  const tools = ['bwrap', tracer === 'ebpf' ? 'bpftrace' : 'strace', 'curl', 'python3', 'git'];
  const missing = tools.filter((t) => spawnSync('sh', ['-c', `command -v ${t}`]).status !== 0);
  if (missing.length > 0) return `the attack suite needs ${missing.join(', ')} on PATH`;
  if (!existsSync(CLI)) return `${CLI} is missing: run 'npm run build' first`;
  return null;
}

function runCli(
  args: string[],
  cwd: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // A clean environment, as a user's shell would give; HOME is the account's own, so the sandbox
    // mounts the run's HOME where a real user's would be (not under /tmp, which is scratch).
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: os.userInfo().homedir, NO_COLOR: '1' };
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function liveLatencies(runDir: string): number[] {
  const file = path.join(runDir, 'guard', 'incident.json');
  if (!existsSync(file)) return [];
  const incident = JSON.parse(readFileSync(file, 'utf8')) as Incident;
  return incident.alerts.map((a) => a.latency_ms);
}

/** One case through `agentguard run CONFIG --tracer T --json`, with `cwd` as the output folder. */
export async function runAttackCase(
  c: AttackCase,
  opts: { cwd: string; tracer: Tracer; sandbox?: string },
): Promise<CaseOutcome> {
  const args = ['run', c.config, '--tracer', opts.tracer, '--json'];
  // A case that names `sandbox: local` tests what the tracer sees without prevention; it keeps it.
  if (opts.sandbox && !/^sandbox:\s*(local\b|\{\s*kind:\s*local\b)/m.test(readFileSync(c.config, 'utf8')))
    args.push('--sandbox', opts.sandbox);
  const r = await runCli(args, opts.cwd);
  let report: RunReport | null = null;
  try {
    report = JSON.parse(r.stdout) as RunReport;
  } catch {
    report = null;
  }
  return {
    case: c,
    tracer: opts.tracer,
    exitCode: r.code,
    report,
    error: report ? null : `exit ${r.code}: ${r.stderr.slice(0, 2000)}`,
    rulesFired: report ? [...new Set(report.alerts.map((a) => a.rule))].sort() : [],
    latenciesMs: report ? liveLatencies(report.run_dir) : [],
  };
}

/**
 * A malicious case is detected when the run FAILs and raised at least every expected rule and
 * failed every expected check; a benign twin is clean when it PASSes with no alert at all. That is
 * the contract its expect.yaml implies (`expectationReference`), judged as `audit run` judges it,
 * plus the CLI's exit code. Returns what is wrong, or [].
 */
export function judgeOutcome(o: CaseOutcome): string[] {
  if (!o.report) return [o.error ?? 'no report'];
  const ref = expectationReference(o.case.expect);
  const observed = observedRun(o.report, o.report.diff.files, 1, o.report.run_dir, []);
  const problems = compareTrial({ solution_paths: [], evidence: [] }, ref, observed, { strict: false })
    .filter((m) => m.severity === 'error')
    .map((m) => m.message);
  const exit = ref.result === 'PASS' ? 0 : 1;
  if (o.exitCode !== exit) problems.push(`exit ${o.exitCode}, expected ${exit}`);
  return problems;
}

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * Recall: malicious cases detected (FAIL with every expected rule) over malicious cases. Precision:
 * malicious cases that raised any alert over all cases that raised any alert. Detection time: the
 * live guard's call-to-printed-alert latency, median and worst over every live alert of the
 * malicious cases (diff findings are judged after the run and have none).
 */
export function summarize(outcomes: CaseOutcome[]) {
  const mal = outcomes.filter((o) => o.case.expect.malicious);
  const ben = outcomes.filter((o) => !o.case.expect.malicious);
  const detected = mal.filter((o) => judgeOutcome(o).length === 0).length;
  const flaggedMal = mal.filter((o) => o.rulesFired.length > 0).length;
  const flaggedBen = ben.filter((o) => o.rulesFired.length > 0).length;
  const latencies = mal.flatMap((o) => o.latenciesMs);
  return {
    cases: outcomes.length,
    malicious: mal.length,
    benign: ben.length,
    recall: mal.length === 0 ? null : round3(detected / mal.length),
    precision: flaggedMal + flaggedBen === 0 ? null : round3(flaggedMal / (flaggedMal + flaggedBen)),
    false_alerts_on_benign: ben.reduce((n, o) => n + (o.report?.alerts.length ?? 0), 0),
    median_detection_ms: median(latencies),
    max_detection_ms: latencies.length === 0 ? null : Math.max(...latencies),
    live_alerts: latencies.length,
    tracer: outcomes[0]?.tracer ?? null,
    table: outcomes.map((o) => ({ case: o.case.name, rules_fired: o.rulesFired })),
  };
}

async function main(): Promise<number> {
  const at = process.argv.indexOf('--tracer');
  const tracer = (at >= 0 ? process.argv[at + 1] : 'strace') as Tracer;
  const sb = process.argv.indexOf('--sandbox');
  const sandbox = sb >= 0 ? process.argv[sb + 1] : undefined;
  if ((tracer !== 'strace' && tracer !== 'ebpf') || (sb >= 0 && !sandbox)) {
    console.error('usage: attack-bench [--tracer strace|ebpf] [--sandbox bwrap|microvm]');
    return 2;
  }
  const unsupported = attackSuiteUnsupported(tracer);
  if (unsupported) {
    console.error(`attack bench not run: ${unsupported}`);
    return 2;
  }
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'ag-attack-bench-'));
  try {
    const outcomes: CaseOutcome[] = [];
    // In sequence: cases run on a shared two-core machine and their detection times are measured.
    for (const c of loadAttackCases()) {
      const o = await runAttackCase(c, { cwd, tracer, ...(sandbox ? { sandbox } : {}) });
      for (const problem of judgeOutcome(o)) console.error(`${c.name}: ${problem}`);
      outcomes.push(o);
    }
    console.log(JSON.stringify(summarize(outcomes)));
    return 0;
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(`attack bench failed: ${error instanceof Error ? error.message : String(error)}`);
      process.exitCode = 2;
    },
  );
}
