import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { packageRoot } from '../package-root.js';
import { microvmAvailability } from '../sandbox/microvm/microvm.js';

/**
 * What the microvm sandbox costs: a demo task (py-inventory, mock-solve, strace) run REPEAT times
 * under bwrap and under microvm, alternating. Prints one JSON line: the median per-run wall time
 * of each and the time microvm adds per run, and from the microvm runs' timing files (written by
 * the launcher) the median boot-to-command-start of the agent's VM and teardown (command end to
 * QEMU gone) over every VM. With `--repeat N` (default 3).
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

function runOnce(work: string, sandbox: string): { wallMs: number; runDir: string } {
  const cli = path.join(packageRoot(), 'dist', 'cli', 'main.js');
  const config = path.join(packageRoot(), 'benchmarks', 'py-inventory', 'config.yaml');
  const t0 = performance.now();
  const r = spawnSync(
    process.execPath,
    [cli, 'run', config, '--agent', 'mock-solve', '--sandbox', sandbox, '--tracer', 'strace', '--json'],
    {
      cwd: work,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: work, NO_COLOR: '1' },
    },
  );
  const wallMs = Math.round(performance.now() - t0);
  if (r.status !== 0)
    throw new Error(`the ${sandbox} run failed (exit ${r.status}): ${r.stderr.slice(0, 2000)}`);
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
    const wall: Record<string, number[]> = { bwrap: [], microvm: [] };
    const boots: number[] = [];
    const teardowns: number[] = [];
    for (let i = 0; i < REPEAT; i++) {
      for (const sandbox of ['bwrap', 'microvm']) {
        const { wallMs, runDir } = runOnce(work, sandbox);
        wall[sandbox]?.push(wallMs);
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
    const bwrapMs = median(wall.bwrap ?? []);
    const microvmMs = median(wall.microvm ?? []);
    console.log(
      JSON.stringify({
        accel: available.version,
        runs_each: REPEAT,
        bwrap_run_ms: bwrapMs,
        microvm_run_ms: microvmMs,
        added_per_run_ms: bwrapMs !== null && microvmMs !== null ? microvmMs - bwrapMs : null,
        boot_to_agent_start_ms: median(boots),
        teardown_ms: median(teardowns),
      }),
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main();
