import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { execCli, tempDir } from './exec-cli.js';

const ok =
  process.getuid?.() === 0 &&
  ['bwrap', 'strace'].every((t) => spawnSync('sh', ['-c', `command -v ${t}`]).status === 0);
if (!ok) console.warn('required-tests e2e skipped: it needs root, bwrap and strace (CI has them)');

const work = tempDir('ag-required-tests-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A node package with three tests by name, one of them skipped; the agent changes nothing. */
function task(name: string, required: string[]): string {
  const dir = path.join(work, name);
  mkdirSync(path.join(dir, 'repo/test'), { recursive: true });
  writeFileSync(path.join(dir, 'repo/sum.js'), 'exports.sum = (a, b) => a + b;\n');
  writeFileSync(
    path.join(dir, 'repo/test/sum.test.js'),
    [
      "const test = require('node:test');",
      "const assert = require('node:assert');",
      "const { sum } = require('../sum.js');",
      "test('adds two numbers', () => assert.equal(sum(1, 2), 3));",
      "test('adds negatives', () => assert.equal(sum(-1, -2), -3));",
      "test('adds floats', { skip: 'not yet' }, () => assert.equal(sum(0.1, 0.2), 0.3));",
      '',
    ].join('\n'),
  );
  writeFileSync(
    path.join(dir, 'config.yaml'),
    [
      `name: ${name}`,
      'task: {prompt: nothing to do}',
      'repo: repo',
      'test_command: [node, --test, test/]',
      'agent_command: [sh, -c, "true"]',
      `required_tests: ${JSON.stringify(required)}`,
    ].join('\n'),
  );
  return dir;
}

async function testsPass(dir: string) {
  const r = await execCli(['run', 'config.yaml', '--sandbox', 'bwrap', '--tracer', 'strace', '--json'], {
    cwd: dir,
  });
  expect(r.stdout.startsWith('{'), r.stderr).toBe(true);
  const report = JSON.parse(r.stdout) as { checks: { id: string; passed: boolean; message: string }[] };
  return report.checks.find((c) => c.id === 'tests-pass');
}

describe.skipIf(!ok)('required_tests, on a real runner report', () => {
  it('passes when every required test ran and passed, by name and by glob', {
    timeout: 120_000,
  }, async () => {
    const check = await testsPass(task('present', ['adds two numbers', 'adds neg*']));
    expect(check?.passed, check?.message).toBe(true);
  });

  it('fails naming the required tests that are missing or skipped', { timeout: 120_000 }, async () => {
    const check = await testsPass(task('absent', ['adds two numbers', 'adds floats', 'multiplies*']));
    expect(check?.passed).toBe(false);
    expect(check?.message).toContain('1 required test not in the report (multiplies*)');
    expect(check?.message).toMatch(/1 required test skipped \([^)]*adds floats\)/);
  });
});
