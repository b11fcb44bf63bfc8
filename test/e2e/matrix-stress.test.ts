import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { execCli, tempDir } from './exec-cli.js';

const work = tempDir();
afterAll(() => rmSync(work, { recursive: true, force: true }), 60_000);

describe('agentguard matrix-stress', () => {
  it('reports throughput, memory, accounting and passing integrity checks as JSON', async () => {
    const r = await execCli(
      ['diagnostics', 'matrix-stress', '--attempts', '40', '--workers', '4', '--json'],
      { cwd: work },
    );
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.passed).toBe(true);
    expect(report.accounting).toMatchObject({ planned: 40, submitted: 40, executed: 40, history_rows: 40 });
    expect(report.performance.throughput_per_s).toBeGreaterThan(0);
    expect(report.performance.peak_rss_bytes).toBeGreaterThan(1024 * 1024);
    const dir = path.join(work, '.agentguard/diagnostics/matrix-stress', report.id);
    expect(existsSync(path.join(dir, 'report.md'))).toBe(true);
    expect(existsSync(path.join(dir, 'history.db'))).toBe(true);
  }, 120_000);

  it('with --fail-fast, the terminal shows the attempts not run', async () => {
    const r = await execCli(
      ['diagnostics', 'matrix-stress', '--attempts', '30', '--workers', '2', '--fail-fast'],
      {
        cwd: work,
      },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/ok {3}fail-fast: no attempt started after attempt 10 failed; \d+ not run/);
  }, 120_000);

  it.each([
    [['--attempts', '0'], "--attempts '0' is not a whole number from 1 to 100000"],
    [['--workers', 'many'], "--workers 'many' is not a whole number from 1 to 256"],
  ])('refuses %j with exit 2', async (args, message) => {
    const r = await execCli(['diagnostics', 'matrix-stress', ...args], { cwd: work });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });
});
