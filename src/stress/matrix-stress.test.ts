import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runMatrixStress } from './matrix-stress.js';

const out = mkdtempSync(path.join(tmpdir(), 'ag-stress-'));
afterAll(() => rmSync(out, { recursive: true, force: true }), 60_000);

describe('runMatrixStress', () => {
  it('runs every attempt through the real batch layer and every integrity check holds', async () => {
    const { report, dir } = await runMatrixStress({
      outputDir: out,
      attempts: 30,
      workers: 3,
      failFast: false,
    });
    expect(report.checks.filter((c) => !c.passed)).toEqual([]);
    expect(report.accounting).toMatchObject({ planned: 30, submitted: 30, executed: 30, history_rows: 30 });
    expect(report.totals).toEqual({ pass: 29, fail: 1, error: 0, not_run: 0 });
    expect(report.performance.peak_in_flight).toBeLessThanOrEqual(3);
    expect(dir.startsWith(path.join(out, 'diagnostics', 'matrix-stress'))).toBe(true);
    expect(JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8')).id).toBe(report.id);
    expect(existsSync(path.join(dir, report.batch_dir, 'summary.json'))).toBe(true);
    // The user's own history gets no synthetic runs.
    expect(existsSync(path.join(out, 'history.db'))).toBe(false);
  }, 60_000);

  it('with fail-fast, starts nothing after the planted failure', async () => {
    const { report } = await runMatrixStress({ outputDir: out, attempts: 40, workers: 2, failFast: true });
    expect(report.checks.filter((c) => !c.passed)).toEqual([]);
    expect(report.accounting.executed).toBeLessThan(13 + 2 + 1);
    expect(report.accounting.not_run).toBeGreaterThan(0);
    expect(report.totals.fail).toBe(1);
  }, 60_000);
});
