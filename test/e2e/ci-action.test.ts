import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import YAML from 'yaml';
import { ROOT, tempDir } from './exec-cli.js';

const work = tempDir('ag-ci-action-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

type Step = { id?: string; run?: string; env?: Record<string, string> };

function git(cwd: string, ...args: string[]): void {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    cwd,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(r.stderr);
}

/**
 * The action's own shell step, run as a GitHub runner runs a composite step (bash -eo pipefail,
 * GITHUB_* files set) against a real repository. The install step (npm ci + build) is not rerun:
 * the built CLI of this checkout is the one it would build.
 */
it('the action judges a PR, writes the step summary and outputs, and fails the step on FAIL', () => {
  const action = YAML.parse(readFileSync(path.join(ROOT, 'action.yml'), 'utf8'));
  const step = (action.runs.steps as Step[]).find((s) => s.id === 'ci');
  expect(step?.run).toBeDefined();
  const repo = path.join(work, 'repo');
  mkdirSync(repo);
  git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(
    path.join(repo, '.agentguard.yaml'),
    'test_command: [sh, -c, "true"]\nforbidden_paths: ["deploy/**"]\n',
  );
  writeFileSync(path.join(repo, 'a.txt'), 'a\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-qm', 'base');
  git(repo, 'checkout', '-qb', 'pr');
  mkdirSync(path.join(repo, 'deploy'));
  writeFileSync(path.join(repo, 'deploy/x.conf'), 'x\n');
  // The PR also lifts the rule it breaks: by default the action judges it by the base's policy.
  writeFileSync(path.join(repo, '.agentguard.yaml'), 'test_command: [sh, -c, "true"]\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-qm', 'pr');

  const summary = path.join(work, 'summary.md');
  const output = path.join(work, 'output');
  writeFileSync(output, '');
  const home = path.join(work, 'home');
  mkdirSync(home);
  const run = (allow: string) =>
    spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step?.run ?? 'false'], {
      cwd: repo,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: home,
        GITHUB_ACTION_PATH: ROOT,
        GITHUB_STEP_SUMMARY: summary,
        GITHUB_OUTPUT: output,
        RUNNER_TEMP: work,
        AG_BASE: 'main',
        AG_HEAD: '',
        AG_CONFIG: '',
        AG_ARGS: '--no-tests',
        AG_ALLOW_FAILURES: allow,
      },
    });
  const failed = run('false');
  expect(failed.status, failed.stderr).toBe(1);
  expect(failed.stdout).toContain('::error file=deploy/x.conf');
  expect(failed.stdout).toContain('::error file=.agentguard.yaml');
  expect(readFileSync(summary, 'utf8')).toContain('FAIL');
  const outputs = readFileSync(output, 'utf8');
  expect(outputs).toContain('result=FAIL');
  const sarif = /^sarif=(.*)$/m.exec(outputs)?.[1] ?? '';
  expect(JSON.parse(readFileSync(sarif, 'utf8')).version).toBe('2.1.0');

  const allowed = run('true');
  expect(allowed.status, allowed.stderr).toBe(0);
  expect(allowed.stdout).toContain('agentguard ci: FAIL');
}, 60_000);
