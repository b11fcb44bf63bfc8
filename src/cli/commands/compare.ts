import { realpathSync } from 'node:fs';
import path from 'node:path';
import { type Comparison, compareRunsWithGraphs } from '../../batch/compare.js';
import { ConfigError } from '../../errors.js';
import { writeFileAtomic } from '../../evidence/write.js';
import { renderCompareHtml } from '../../reports/html/compare-page.js';
import { renderTable } from '../../reports/table.js';
import type { CliIO } from '../io.js';

const fmt = (v: number | null | undefined) => (v === null || v === undefined ? '-' : v.toFixed(2));

export async function compareCommand(
  io: CliIO,
  runDirs: string[],
  opts: { json?: boolean; html?: string },
): Promise<number> {
  rejectDuplicateRuns(runDirs);
  const { comparison: c, graphs } = compareRunsWithGraphs(runDirs);
  if (opts.html) {
    writeFileAtomic(path.resolve(opts.html), renderCompareHtml(c, graphs));
    io.err(`comparison page: ${path.resolve(opts.html)}`);
  }
  io.out(opts.json ? JSON.stringify(c, null, 2) : renderComparison(c));
  return 0;
}

/** The same run twice would be "identical" by construction and skew every similarity figure. */
function rejectDuplicateRuns(runDirs: readonly string[]): void {
  const seen = new Map<string, string>();
  for (const dir of runDirs) {
    let real = path.resolve(dir);
    try {
      real = realpathSync(real);
    } catch {
      // a missing folder is reported when it is read
    }
    const earlier = seen.get(real);
    if (earlier !== undefined) {
      throw new ConfigError(
        `'${earlier}' and '${dir}' are the same run folder (${real}). Fix: pass each run once.`,
      );
    }
    seen.set(real, dir);
  }
}

export function renderComparison(c: Comparison): string {
  const out: string[] = [];
  out.push(
    renderTable(
      ['#', 'run', 'task', 'agent', 'result', 'tracer'],
      c.runs.map((r, i) => [String(i + 1), r.run_id, r.task, r.agent, r.result, r.tracer]),
    ),
  );
  for (const [label, matrix] of [
    ['overall', c.similarity.overall],
    ['commands', c.similarity.by_type.command],
    ['files', c.similarity.by_type.file],
    ['hosts', c.similarity.by_type.host],
  ] as const) {
    out.push(`\nsimilarity: ${label}`);
    out.push(
      renderTable(
        ['', ...c.runs.map((_, i) => String(i + 1))],
        matrix.map((row, i) => [String(i + 1), ...row.map(fmt)]),
      ),
    );
  }
  const o = c.outlier;
  if (o.found) {
    out.push(
      `\noutlier: run ${o.index + 1} (${o.run_id}), mean similarity ${fmt(o.mean_similarity)} to the others`,
    );
    for (const r of o.only_in_outlier) out.push(`  only it used:      ${r.type} ${r.name} (×${r.count})`);
    for (const r of o.missing_from_outlier)
      out.push(`  all others used:   ${r.type} ${r.name} (×${r.count})`);
  } else {
    out.push(`\nno outlier: ${o.reason}`);
  }
  if (c.homogeneous_vs_mixed) {
    const h = c.homogeneous_vs_mixed;
    out.push(
      `\nhomogeneous vs mixed: same-task runs were more alike in ${h.wins} of ${h.comparisons} comparisons ` +
        `(share ${fmt(h.homogeneous_wins_share)})`,
    );
    for (const t of h.tasks)
      out.push(`  ${t.task}: own runs ${fmt(t.homogeneous)}, mixed sets ${fmt(t.mixed_mean)}`);
  }
  const unrelated = c.unrelated_activity.filter((u) => !u.passed);
  out.push(
    unrelated.length === 0
      ? '\nunrelated activity: none (every resource was needed by another run of the same task, or allowed)'
      : '\nunrelated activity:',
  );
  for (const u of unrelated)
    out.push(`  run ${c.runs.findIndex((r) => r.run_id === u.run_id) + 1}: ${u.message}`);
  for (const n of c.notes) out.push(`note: ${n}`);
  return out.join('\n');
}
