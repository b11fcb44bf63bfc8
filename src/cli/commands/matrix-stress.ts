import { ConfigError } from '../../errors.js';
import { runMatrixStress } from '../../stress/matrix-stress.js';
import { type CliIO, outputDir } from '../io.js';
import { checkOutputDir } from '../output-dir.js';

export type MatrixStressFlags = {
  attempts?: unknown;
  workers?: unknown;
  failFast?: boolean;
  json?: boolean;
  outputDir?: string;
};

/** `diagnostics matrix-stress`: the batch scheduler, checkpoint, history and summaries under a synthetic workload (docs/benchmark-quality.md). */
export async function matrixStressCommand(io: CliIO, flags: MatrixStressFlags): Promise<number> {
  const attempts = whole('--attempts', flags.attempts, 200, 100_000);
  const workers = whole('--workers', flags.workers, 4, 256);
  const out = outputDir(flags);
  checkOutputDir(out, flags.outputDir !== undefined);
  const { report, dir } = await runMatrixStress({
    outputDir: out,
    attempts,
    workers,
    failFast: flags.failFast === true,
  });
  if (flags.json) io.out(JSON.stringify(report, null, 2));
  else {
    const p = report.performance;
    const a = report.accounting;
    io.out(
      `matrix stress: ${a.executed} of ${a.planned} attempts × ${workers} workers in ${(p.wall_ms / 1000).toFixed(2)} s: ${p.throughput_per_s} attempts/s, peak RSS ${(p.peak_rss_bytes / 1048576).toFixed(1)} MiB`,
    );
    io.out(
      `  planned ${a.planned}, submitted ${a.submitted}, executed ${a.executed}, not run ${a.not_run}; ${a.history_rows} history rows`,
    );
    for (const c of report.checks) io.out(`  ${c.passed ? 'ok  ' : 'FAIL'} ${c.id}: ${c.detail}`);
    io.out(`report: ${dir}/report.md`);
  }
  return report.passed ? 0 : 1;
}

function whole(flag: string, value: unknown, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (typeof value === 'boolean' || !Number.isInteger(n) || n < 1 || n > max)
    throw new ConfigError(
      `${flag} '${String(value)}' is not a whole number from 1 to ${max}. Fix: e.g. ${flag} ${fallback}.`,
    );
  return n;
}
