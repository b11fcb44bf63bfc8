import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { SysEvent } from '../evidence/types.js';
import { packageRoot } from '../package-root.js';
import { analyseRun } from '../pipeline/analyse-run.js';
import { sealRun } from '../provenance/seal-run.js';
import { verifyRun } from '../provenance/verify.js';

/**
 * What provenance costs: a real run of the first built-in task (mock-solve, tracer off), its
 * syscalls.jsonl then replaced by 10,000 and 100,000 recorded-like events, re-analysed, and
 * sealed and verified five times each. Prints one JSON line: seal (trace + manifest) time per
 * 10,000 events, the trace's size, and verify time, at both sizes.
 */
const SIZES = [10_000, 100_000];
const REPEAT = 5;

function events(n: number): string {
  const lines: string[] = [];
  for (let seq = 0; seq < n; seq++) {
    const e: SysEvent = {
      seq,
      ts: seq * 0.05,
      pid: 4000 + (seq % 7),
      ppid: 3999,
      exe: '/usr/bin/node',
      kind: 'open',
      syscall: 'openat',
      path: `/work/repo/src/file-${seq % 500}.ts`,
      access: seq % 10 === 0 ? 'write' : 'read',
      result: 3,
    };
    lines.push(JSON.stringify(e));
  }
  return `${lines.join('\n')}\n`;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

const work = mkdtempSync(path.join(tmpdir(), 'ag-prov-bench-'));
try {
  const cli = path.join(packageRoot(), 'dist', 'cli', 'main.js');
  const config = path.join(packageRoot(), 'benchmarks', 'js-slugify', 'config.yaml');
  const run = spawnSync(
    process.execPath,
    [cli, 'run', config, '--agent', 'mock-solve', '--tracer', 'off', '--json'],
    {
      cwd: work,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: work, NO_COLOR: '1' },
    },
  );
  if (run.status !== 0) throw new Error(`the benchmark run failed (exit ${run.status}): ${run.stderr}`);
  const runDir = (JSON.parse(run.stdout) as { run_dir: string }).run_dir;
  const figures: Record<string, number> = {};
  for (const n of SIZES) {
    writeFileSync(path.join(runDir, 'evidence', 'syscalls.jsonl'), events(n));
    const { analysis } = analyseRun(runDir);
    const seal: number[] = [];
    const verify: number[] = [];
    let traceBytes = 0;
    let records = 0;
    for (let i = 0; i < REPEAT; i++) {
      let t = performance.now();
      const sealed = sealRun(runDir, analysis, new Date());
      seal.push(performance.now() - t);
      traceBytes = sealed.traceBytes;
      records = sealed.records;
      t = performance.now();
      const v = verifyRun(runDir);
      verify.push(performance.now() - t);
      if (v.status !== 'intact') throw new Error(`verify after seal: ${v.status}`);
    }
    const k = n / 1000;
    figures[`seal_ms_per_10k_events_at_${k}k`] = Number(((median(seal) * 10_000) / n).toFixed(2));
    figures[`seal_ms_at_${k}k`] = Number(median(seal).toFixed(1));
    figures[`trace_bytes_at_${k}k`] = traceBytes;
    // Events are committed by their file's digest: the record count follows checks, alerts and commands.
    figures[`trace_records_at_${k}k`] = records;
    figures[`manifest_bytes_at_${k}k`] = statSync(path.join(runDir, 'manifest.json')).size;
    figures[`syscalls_bytes_at_${k}k`] = statSync(path.join(runDir, 'evidence', 'syscalls.jsonl')).size;
    figures[`verify_ms_at_${k}k`] = Number(median(verify).toFixed(1));
  }
  console.log(JSON.stringify(figures));
} finally {
  rmSync(work, { recursive: true, force: true });
}
