import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BENCHMARKS, execCli, tempDir } from './exec-cli.js';

const work = tempDir();
afterAll(() => rmSync(work, { recursive: true, force: true }), 60_000);
const config = path.join(BENCHMARKS, 'py-inventory/config.yaml');

describe('agentguard benchmark-overhead', () => {
  it('runs the task unobserved and under strace, side by side, as JSON', async () => {
    const r = await execCli(
      ['benchmark-overhead', config, '--trials', '1', '--tracers', 'strace', '--json'],
      {
        cwd: work,
      },
    );
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.modes.map((m: { mode: string }) => m.mode)).toEqual(['off', 'strace']);
    const [off, strace] = report.modes;
    expect(off.observed_by).toEqual(['off (not traced)']);
    expect(off.events.median).toBe(0);
    expect(strace.observed_by[0]).toMatch(/^strace/);
    expect(strace.events.median).toBeGreaterThan(0);
    expect(typeof strace.wall_overhead_pct).toBe('number');
    expect(strace.wall_overhead_paired_pct.spread).toMatch(/\.\./);
    // Each measured run is an ordinary run with its own folder.
    for (const s of report.samples)
      expect(existsSync(path.join(work, '.agentguard/runs', s.run_id, 'report.json'))).toBe(true);
    expect(
      existsSync(path.join(work, '.agentguard/diagnostics/benchmark-overhead', report.id, 'report.md')),
    ).toBe(true);
  }, 180_000);

  it.each([
    [['--trials', '0'], "--trials '0' is not a whole number from 1 to 50"],
    [['--tracers', 'strace,dtrace'], "unknown tracer 'dtrace'"],
  ])('refuses %j with exit 2', async (args, message) => {
    const r = await execCli(['benchmark-overhead', config, ...args], { cwd: work });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });

  it('refuses a missing config with exit 2', async () => {
    const r = await execCli(['benchmark-overhead', path.join(work, 'nope.yaml')], { cwd: work });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('nope.yaml');
  });
});
