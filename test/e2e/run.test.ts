import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { reportPath } from '../../src/reports/reporters.js';
import { BENCHMARKS, execCli, ownStderr, tempDir } from './exec-cli.js';

const work = tempDir();
afterAll(() => rmSync(work, { recursive: true, force: true }));
const tasks = readdirSync(BENCHMARKS).filter((d) => existsSync(path.join(BENCHMARKS, d, 'config.yaml')));

describe('agentguard run on the built-in tasks', () => {
  for (const task of tasks) {
    it(`${task}: the solving mock agent passes and --json prints report.json`, async () => {
      const r = await execCli(
        ['run', path.join(BENCHMARKS, task, 'config.yaml'), '--agent', 'mock-solve', '--json'],
        {
          cwd: work,
        },
      );
      expect(ownStderr(r.stderr)).toBe('');
      expect(r.code).toBe(0);
      const report = JSON.parse(r.stdout);
      expect(report.result).toBe('PASS');
      expect(report.score).toBe(100);
      const onDisk = readFileSync(reportPath(report.run_dir, 'json'), 'utf8');
      expect(r.stdout).toBe(onDisk);
      expect(report.diff.changed_files).toBeGreaterThan(0);
      // A fresh output folder: the tests run once on the untouched baseline first, to learn the task's tests.
      expect(report.commands.map((c: { role: string }) => c.role)).toEqual([
        'agent',
        'baseline-tests',
        'tests',
      ]);
    });
  }

  it('a do-nothing agent fails on the tests, with exit code 1 and a full report', async () => {
    const r = await execCli(
      ['run', path.join(BENCHMARKS, tasks[0] as string, 'config.yaml'), '--agent', 'mock-noop'],
      {
        cwd: work,
      },
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL/);
    expect(r.stdout).toContain('tests-pass');
    const md = r.stdout.match(/report: (.*report\.md)/)?.[1] as string;
    expect(readFileSync(md, 'utf8')).toContain('FAIL');
  });

  it('analyze re-derives the same verdict from stored evidence, and under a new policy a new one', async () => {
    const config = path.join(BENCHMARKS, tasks[0] as string, 'config.yaml');
    const run = JSON.parse(
      (await execCli(['run', config, '--agent', 'mock-out-of-scope', '--json'], { cwd: work })).stdout,
    );
    expect(run.result).toBe('FAIL');
    const again = await execCli(['analyze', run.run_dir, '--json'], { cwd: work });
    expect(again.code).toBe(1);
    const reanalysed = JSON.parse(again.stdout);
    expect(reanalysed.checks).toEqual(run.checks);
    expect(reanalysed.score).toBe(run.score);

    const lenient = path.join(work, 'lenient.yaml');
    const text = readFileSync(config, 'utf8').replace(
      /^allowed_paths:.*(\n\s+-.*)*/m,
      "allowed_paths: ['**']",
    );
    const relocated = text
      .replace(/^repo: .*/m, `repo: ${path.join(path.dirname(config), 'repo')}`)
      .replace(/^solution: .*\n/m, '');
    writeFileSync(lenient, relocated);
    const relaxed = await execCli(['analyze', run.run_dir, '--config', lenient, '--json'], { cwd: work });
    expect(JSON.parse(relaxed.stdout).result).toBe('PASS');
    expect(relaxed.code).toBe(0);
  });

  it('config.json holds the run as used: --sandbox and --tracer merged, the chosen sandbox and tracer', async () => {
    const config = path.join(BENCHMARKS, tasks[0] as string, 'config.yaml');
    const chosen = JSON.parse(
      (await execCli(['run', config, '--agent', 'mock-solve', '--json'], { cwd: work })).stdout,
    );
    const used = JSON.parse(readFileSync(path.join(chosen.run_dir, 'config.json'), 'utf8'));
    expect(used.tracer).toBe(chosen.observation.tracer.kind);
    expect(used.sandbox).toBe(chosen.observation.sandbox.kind);
    expect(chosen.observation.tracer.requested).toBe('auto');

    const r = await execCli(
      ['run', config, '--agent', 'mock-solve', '--json', '--sandbox', 'local', '--tracer', 'off'],
      { cwd: work },
    );
    const overridden = JSON.parse(r.stdout);
    expect(overridden.observation.tracer).toMatchObject({ requested: 'off', kind: 'off' });
    const snapshot = JSON.parse(readFileSync(path.join(overridden.run_dir, 'config.json'), 'utf8'));
    expect(snapshot).toMatchObject({ sandbox: 'local', tracer: 'off' });
  });

  it('reports list and show read the history', async () => {
    const list = await execCli(['reports', 'list', '--json'], { cwd: work });
    expect(list.code).toBe(0);
    const rows = JSON.parse(list.stdout);
    expect(rows.length).toBeGreaterThanOrEqual(tasks.length);
    const show = await execCli(['reports', 'show', rows[0].run_id], { cwd: work });
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(rows[0].result);
  });
});

describe('agentguard run --dry-run', () => {
  it('warns, before anything starts, that a real agent has none of its API keys', async () => {
    const dir = tempDir('ag-dry-key-');
    try {
      // A profile of its own (a program that is always there), so no agent needs installing.
      writeFileSync(
        path.join(dir, 'keyed.yaml'),
        'schema_version: 1\nname: keyed\nbin: /bin/true\ncommand: ["{task_prompt}"]\nendpoint: chat\n' +
          'skills_dir: "~/.keyed/skills"\nenv_pass: [KEYED_API_KEY, KEYED_TOKEN]\n',
      );
      writeFileSync(
        path.join(dir, 'config.yaml'),
        [
          'name: dry-key',
          'task: {prompt: "fix it"}',
          `repo: ${path.join(BENCHMARKS, 'js-slugify/repo')}`,
          'test_command: [node, --test, test/]',
          'agent_profile: ./keyed.yaml',
        ].join('\n'),
      );
      // execCli passes only PATH and HOME on: neither key is set.
      const argv = ['run', 'config.yaml', '--agent', 'agent-profile', '--dry-run'];
      const r = await execCli(argv, { cwd: dir });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(
        'warning: KEYED_API_KEY or KEYED_TOKEN is not set: agent keyed has no API key',
      );
      expect(r.stderr).toContain('Fix: export KEYED_API_KEY=');
      const withKey = await execCli(argv, { cwd: dir, env: { KEYED_TOKEN: 'sk-dry-run-test' } });
      expect(withKey.code, withKey.stderr).toBe(0);
      expect(withKey.stderr).not.toContain('API key');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('checks the config and prints the sanitised plan without writing anything', async () => {
    const dir = tempDir('ag-dry-');
    try {
      const secret = 'the prompt text itself must never be printed';
      const config = path.join(dir, 'config.yaml');
      writeFileSync(
        config,
        [
          'name: dry',
          `task: {prompt: ${JSON.stringify(secret)}}`,
          `repo: ${path.join(BENCHMARKS, tasks[0] as string, 'repo')}`,
          'test_command: [sh, -c, "true"]',
          'agent_command: [sh, -c, "echo $0", "{task_prompt}"]',
        ].join('\n'),
      );
      const r = await execCli(['run', config, '--dry-run', '--json', '--sandbox', 'local'], { cwd: dir });
      expect(r.code).toBe(0);
      expect(r.stdout).not.toContain(secret);
      const plan = JSON.parse(r.stdout);
      expect(plan).toMatchObject({
        dry_run: true,
        sandbox: { kind: 'local' },
        test_command: ['sh', '-c', 'true'],
      });
      expect(plan.task.prompt).toMatch(/^<prompt sha256:[0-9a-f]{12}>$/);
      expect(plan.agent.argv).toEqual(['sh', '-c', 'echo $0', plan.task.prompt]);
      expect(plan.rules.count).toBeGreaterThan(0);
      expect(existsSync(path.join(dir, '.agentguard'))).toBe(false);

      const text = await execCli(['run', config, '--dry-run'], { cwd: dir });
      expect(text.stdout).toContain('nothing was written or started');
      expect(text.stdout).not.toContain(secret);

      // The same checks as a real run: a missing program is one clear error, exit 2.
      writeFileSync(
        config,
        readFileSync(config, 'utf8').replace('[sh, -c, "echo', '[no-such-agent-x, -c, "echo'),
      );
      const bad = await execCli(['run', config, '--dry-run'], { cwd: dir });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain("field 'agent_command'");
      expect(existsSync(path.join(dir, '.agentguard'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
