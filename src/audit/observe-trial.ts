import { existsSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { errorMessage } from '../errors.js';
import { READ_LIMITS, readEvidenceText } from '../evidence/read.js';
import type { ObservedTrial } from '../reports/audit-types.js';
import type { Row } from '../reports/batch-types.js';
import { RunReportFileSchema } from '../reports/report-schema.js';
import { reportPath } from '../reports/reporters.js';

/** report.json's diff, which RunReportFileSchema leaves to the readers that need it. */
const DiffSchema = z.looseObject({
  diff: z.looseObject({
    files: z.array(z.looseObject({ path: z.string(), old_path: z.string().optional() })),
  }),
});

/**
 * One batch row as the typed results an audit compares: the child run's report.json (result,
 * checks, alerts, changed files) and which of the contract's evidence files its folder holds.
 * A row without a run, or a report that cannot be read, is an errored trial, never a guess.
 */
export function observeTrial(row: Row, evidence: readonly string[]): ObservedTrial {
  const base = { trial: row.trial, run_id: row.run_id, run_dir: row.run_dir };
  if (row.run_dir === null || row.run_id === null)
    return { status: 'errored', ...base, reason: row.reason ?? `the attempt ended ${row.result}` };
  const file = reportPath(row.run_dir, 'json');
  let raw: unknown;
  try {
    raw = JSON.parse(readEvidenceText(file, { maxBytes: READ_LIMITS.json, within: row.run_dir }));
  } catch (err) {
    return { status: 'errored', ...base, reason: `${file} cannot be read: ${errorMessage(err)}` };
  }
  const report = RunReportFileSchema.safeParse(raw);
  const diff = DiffSchema.safeParse(raw);
  if (!report.success || !diff.success)
    return { status: 'errored', ...base, reason: `${file} is not a run report this agentguard reads` };
  return observedRun(report.data, diff.data.diff.files, row.trial, row.run_dir, evidence);
}

/** A finished run's typed results, from its report (read back, or still in memory). */
export function observedRun(
  report: {
    run_id: string;
    result: 'PASS' | 'FAIL' | 'ERROR';
    checks: readonly { id: string; passed: boolean }[];
    alerts: readonly { rule: string }[];
  },
  files: readonly { path: string; old_path?: string | undefined }[],
  trial: number,
  runDir: string,
  evidence: readonly string[],
): ObservedTrial {
  return {
    status: 'ran',
    trial,
    run_id: report.run_id,
    run_dir: runDir,
    result: report.result,
    checks: report.checks.map((c) => ({ id: c.id, passed: c.passed })),
    alerts: report.alerts.map((a) => a.rule),
    // Both sides of a rename: moving a file out of a place changes that place too.
    changed_paths: files.flatMap((f) => (f.old_path ? [f.path, f.old_path] : [f.path])),
    evidence_present: evidence.filter((e) => existsSync(path.join(runDir, e))),
  };
}
