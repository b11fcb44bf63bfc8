import { runMatrixStress } from '../../stress/matrix-stress.js';
import { wholeNumber } from '../flags.js';
import { type CliIO, outputDir } from '../io.js';

export type MatrixStressFlags = {
  attempts?: unknown;
  workers?: unknown;
  failFast?: boolean;
  json?: boolean;
  outputDir?: string;
};

/** `diagnostics matrix-stress`: the batch scheduler, checkpoint, history and summaries under a synthetic workload (docs/benchmark-quality.md). */
export async function matrixStressCommand(io: CliIO, flags: MatrixStressFlags): Promise<number> {
  const attempts = wholeNumber('--attempts', flags.attempts, { fallback: 200, min: 1, max: 100_000 });
  const workers = wholeNumber('--workers', flags.workers, { fallback: 4, min: 1, max: 256 });
  const out = outputDir(flags);
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
