import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { execCli, tempDir } from './exec-cli.js';

const work = tempDir('ag-runid-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('run ids wherever a run folder is taken', () => {
  it('analyze, trace and compare accept the id run printed, and name the fix for an unknown one', async () => {
    mkdirSync(path.join(work, 'repo'));
    writeFileSync(path.join(work, 'repo/README.md'), 'hello\n');
    writeFileSync(
      path.join(work, 'config.yaml'),
      'name: ids\ntask: {prompt: touch done.txt}\nrepo: repo\ntest_command: [test, -f, done.txt]\nagent_command: [touch, done.txt]\n',
    );
    const run = await execCli(['run', 'config.yaml', '--sandbox', 'local', '--tracer', 'off', '--json'], {
      cwd: work,
    });
    expect(run.code, run.stderr).toBe(0);
    const id = JSON.parse(run.stdout).run_id as string;

    const analyze = await execCli(['analyze', id, '--json'], { cwd: work });
    expect(analyze.code, analyze.stderr).toBe(0);
    expect(JSON.parse(analyze.stdout).run_id).toBe(id);
    const verify = await execCli(['trace', 'verify', id], { cwd: work });
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/^intact/);
    const same = await execCli(['compare', id, id], { cwd: work });
    expect(same.stderr).toContain('are the same run folder');
    const again = await execCli(['run', 'config.yaml', '--sandbox', 'local', '--tracer', 'off', '--json'], {
      cwd: work,
    });
    const other = JSON.parse(again.stdout).run_id as string;
    const compare = await execCli(['compare', id, other], { cwd: work });
    expect(compare.code, compare.stderr).toBe(0);
    // Each run is named with the agent that made it.
    expect(compare.stdout).toMatch(/#\s+run\s+task\s+agent\s+result/);
    expect(compare.stdout).toMatch(new RegExp(`${other}\\s+ids\\s+touch\\s+PASS`));

    const unknown = await execCli(['analyze', '20991231-000000-deadbeef'], { cwd: work });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("no run '20991231-000000-deadbeef' in ");
    expect(unknown.stderr).toContain('Fix: pass the run folder, or --output-dir where the run was written.');

    // A batch id (`run --trials` makes a batch) wherever a batch folder is taken: gate, trace verify.
    const trials = await execCli(
      ['run', 'config.yaml', '--trials', '2', '--sandbox', 'local', '--tracer', 'off', '--json'],
      { cwd: work },
    );
    expect(trials.code, trials.stderr).toBe(0);
    const batch = JSON.parse(trials.stdout).batch_id as string;
    const gate = await execCli(['gate', batch, '--min-pass-rate', '1'], { cwd: work });
    expect(gate.code, gate.stderr).toBe(0);
    const sealed = await execCli(['trace', 'verify', batch], { cwd: work });
    expect(sealed.code, sealed.stderr).toBe(0);
    expect(sealed.stdout).toMatch(/^intact/);
    const noBatch = await execCli(['gate', '20991231-000000-deadbeef', '--min-pass-rate', '1'], {
      cwd: work,
    });
    expect(noBatch.code).toBe(2);
    expect(noBatch.stderr).toContain("no batch '20991231-000000-deadbeef' in ");
  }, 180_000);
});
