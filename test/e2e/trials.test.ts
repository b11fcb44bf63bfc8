import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BENCHMARKS, execCli, tempDir } from './exec-cli.js';

const hasStrace = spawnSync('sh', ['-c', 'command -v strace']).status === 0;
if (!hasStrace) console.warn('trials e2e test skipped: it needs strace (CI installs it)');

const work = tempDir();
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * A task whose scripted agent does the same thing every trial, except the third, which also runs
 * `uname`: that trial is the outlier and its extra command is unrelated activity. A counter file
 * beside the config tells the script which trial it is (the local sandbox lets it write there).
 */
function task(): string {
  const dir = path.join(work, 'task');
  mkdirSync(path.join(dir, 'repo'), { recursive: true });
  writeFileSync(path.join(dir, 'repo/README.md'), 'trials\n');
  const counter = path.join(dir, 'counter');
  writeFileSync(
    path.join(dir, 'agent.sh'),
    [
      `n=$(cat ${counter} 2>/dev/null || echo 0)`,
      `echo $((n + 1)) > ${counter}`,
      'echo done > out.txt',
      'if [ "$n" = 2 ]; then uname -a > /dev/null; fi',
    ].join('\n'),
  );
  const config = path.join(dir, 'config.yaml');
  writeFileSync(
    config,
    [
      'name: trials-task',
      'task: {prompt: write out.txt}',
      'repo: repo',
      "test_command: [sh, -c, 'test -f out.txt']",
      `agent_command: [sh, ${JSON.stringify(path.join(dir, 'agent.sh'))}]`,
    ].join('\n'),
  );
  return config;
}

type Unrelated = { run_id: string; passed: boolean; message: string; evidence: { command?: string }[] };

describe.skipIf(!hasStrace)('run --trials and compare', () => {
  it('finds the trial that did something the others did not, and labels runs of another task', async () => {
    const r = await execCli(
      ['run', task(), '--trials', '3', '--sandbox', 'local', '--tracer', 'strace', '--json'],
      { cwd: work },
    );
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.runs).toHaveLength(3);
    expect(out.reliability).toMatchObject({ trials: 3, passes: 3 });
    const c = out.comparison;
    const third = out.runs[2].run_id;
    expect(c.outlier).toMatchObject({ found: true, run_id: third });
    expect(c.outlier.only_in_outlier.map((x: { name: string }) => x.name).join(' ')).toContain('uname');
    const unrelated: Unrelated[] = c.unrelated_activity;
    expect(unrelated.filter((u) => !u.passed).map((u) => u.run_id)).toEqual([third]);
    const flagged = unrelated.find((u) => u.run_id === third) as Unrelated;
    expect(flagged.evidence.map((e) => e.command).join(' ')).toContain('uname');
    expect(c.homogeneous_wins_share).toBeNull();

    // A run of another task joins the comparison: labelled, not rejected, with homogeneous vs mixed.
    const other = await execCli(
      [
        'run',
        path.join(BENCHMARKS, 'sh-logrotate/config.yaml'),
        '--agent',
        'mock-solve',
        '--sandbox',
        'local',
        '--tracer',
        'strace',
        '--json',
      ],
      { cwd: work },
    );
    expect(other.code).toBe(0);
    const dirs = [...out.runs.map((x: { run_dir: string }) => x.run_dir), JSON.parse(other.stdout).run_dir];
    const text = await execCli(['compare', ...dirs], { cwd: work });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/homogeneous vs mixed: same-task runs were more alike in \d+ of \d+/);
    expect(text.stdout).toContain('note: runs of 2 different tasks');
    expect(text.stdout).toMatch(/unrelated activity:\n {2}run 3: .*uname/);
    const json = JSON.parse((await execCli(['compare', ...dirs, '--json'], { cwd: work })).stdout);
    expect(json.tasks).toHaveLength(2);
    expect(json.homogeneous_wins_share).toBeGreaterThanOrEqual(0);
    expect(json.homogeneous_wins_share).toBeLessThanOrEqual(1);
  });
});
