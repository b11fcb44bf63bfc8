import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { execCli, tempDir } from './exec-cli.js';

const work = tempDir();
afterAll(() => rmSync(work, { recursive: true, force: true }), 60_000);

describe('agentguard benchmarks fuzz', () => {
  it('materialises and judges the variants; --json is report.json; findings exit 1', async () => {
    const r = await execCli(['benchmarks', 'fuzz', '--seed', '11', '--count', '14', '--json'], { cwd: work });
    const report = JSON.parse(r.stdout);
    const dir = path.join(work, '.agentguard/fuzz/11-14');
    expect(JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8'))).toEqual(report);
    expect(existsSync(path.join(dir, 'report.md'))).toBe(true);
    expect(report.totals.variants).toBe(14);
    expect(Object.values(report.per_dimension).map((d) => (d as { variants: number }).variants)).toEqual([
      2, 2, 2, 2, 2, 2, 2,
    ]);
    expect(r.code).toBe(report.totals.findings > 0 ? 1 : 0);
    for (const v of report.variants) expect(existsSync(path.join(dir, v.id, 'repo', '.git'))).toBe(true);
  }, 120_000);

  it('exits 0 when every variant agrees (a dimension without known limitations)', async () => {
    const r = await execCli(
      ['benchmarks', 'fuzz', '--seed', '3', '--count', '8', '--dimensions', 'scope,traversal'],
      {
        cwd: work,
      },
    );
    expect(r.stdout).toContain('8 variants, 8 as expected, 0 finding(s)');
    expect(r.code).toBe(0);
  }, 120_000);

  it.each([
    [['--seed', 'abc'], "--seed 'abc' is not an integer"],
    [['--seed', '1.5'], "--seed '1.5' is not an integer"],
    [['--count', '3'], '--seed is missing'],
    [['--seed', '1', '--count', '0'], "--count '0' is not a whole number from 1 to 5000"],
    [['--seed', '1', '--count', '999999'], "--count '999999' is not a whole number from 1 to 5000"],
    [['--seed', '1', '--dimensions', 'path,nope'], "unknown dimension 'nope'"],
  ])('refuses %j with exit 2 and one sentence', async (args, message) => {
    const r = await execCli(['benchmarks', 'fuzz', ...args], { cwd: work });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stdout).toBe('');
  });
});
