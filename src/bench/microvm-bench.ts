import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { packageRoot } from '../package-root.js';
import { microvmAvailability } from '../sandbox/microvm/doctor.js';

/**
 * What the microvm sandbox costs: a demo task (py-inventory, mock-solve) run REPEAT times under
 * bwrap and under microvm, each with strace and with ebpf (in the guest: the compiled collector),
 * alternating. Prints one JSON line: the median per-run wall time of each pair, the time microvm
 * adds per run for each tracer, and from the microvm runs' timing files (written by the launcher)
 * the median boot-to-command-start of the agent's VM and teardown (command end to QEMU gone) over
 * every VM. With `--repeat N` (default 3).
 */
const at = process.argv.indexOf('--repeat');
const REPEAT = at >= 0 ? Number(process.argv[at + 1]) : 3;

function median(xs: number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1
    ? (s[mid] as number)
    : Math.round(((s[mid - 1] as number) + (s[mid] as number)) / 2);
}

type Timing = { boot_ms: number; run_ms: number; teardown_ms: number };

const TRACERS = ['strace', 'ebpf'] as const;
const SANDBOXES = ['bwrap', 'microvm'] as const;

function runOnce(work: string, sandbox: string, tracer: string): { wallMs: number; runDir: string } {
  const cli = path.join(packageRoot(), 'dist', 'cli', 'main.js');
  const config = path.join(packageRoot(), 'benchmarks', 'py-inventory', 'config.yaml');
  const t0 = performance.now();
  const r = spawnSync(
    process.execPath,
    [cli, 'run', config, '--agent', 'mock-solve', '--sandbox', sandbox, '--tracer', tracer, '--json'],
    {
      cwd: work,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: work, NO_COLOR: '1' },
    },
  );
  const wallMs = Math.round(performance.now() - t0);
  if (r.status !== 0)
    throw new Error(`the ${sandbox}/${tracer} run failed (exit ${r.status}): ${r.stderr.slice(0, 2000)}`);
  return { wallMs, runDir: (JSON.parse(r.stdout) as { run_dir: string }).run_dir };
}

function main(): void {
  const available = microvmAvailability();
  if (process.getuid?.() !== 0 || !available.ok) {
    const why = available.ok ? 'needs root' : `${available.reason} (fix: ${available.fix})`;
    console.log(JSON.stringify({ skipped: `microvm bench not run: ${why}` }));
    return;
  }
  const work = mkdtempSync(path.join(tmpdir(), 'ag-microvm-bench-'));
  try {
    const wall: Record<string, number[]> = {};
    const boots: number[] = [];
    const teardowns: number[] = [];
    for (let i = 0; i < REPEAT; i++) {
      for (const tracer of TRACERS) {
        for (const sandbox of SANDBOXES) {
          const { wallMs, runDir } = runOnce(work, sandbox, tracer);
          const key = `${sandbox}/${tracer}`;
          wall[key] = [...(wall[key] ?? []), wallMs];
          const timing = path.join(runDir, 'sandbox', 'microvm', 'timing.jsonl');
          if (sandbox !== 'microvm' || !existsSync(timing)) continue;
          const vms = readFileSync(timing, 'utf8')
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l) as Timing);
          if (vms[0]) boots.push(vms[0].boot_ms);
          for (const vm of vms) teardowns.push(vm.teardown_ms);
        }
      }
    }
    const runMs = Object.fromEntries(Object.entries(wall).map(([k, xs]) => [k, median(xs)]));
    const added = Object.fromEntries(
      TRACERS.map((t) => {
        const [bwrap, microvm] = [runMs[`bwrap/${t}`], runMs[`microvm/${t}`]];
        return [t, typeof bwrap === 'number' && typeof microvm === 'number' ? microvm - bwrap : null];
      }),
    );
    console.log(
      JSON.stringify({
        accel: available.version,
        runs_each: REPEAT,
        run_ms: runMs,
        added_per_run_ms: added,
        boot_to_agent_start_ms: median(boots),
        teardown_ms: median(teardowns),
      }),
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main();
