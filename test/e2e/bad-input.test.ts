import { existsSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { execCli, tempDir } from './exec-cli.js';

const work = tempDir();
afterAll(() => rmSync(work, { recursive: true, force: true }));

let n = 0;
/** A tiny task: the agent must create done.txt. Returns the config path. */
function task(configText: (dir: string) => string, setup?: (dir: string) => void): string {
  const dir = path.join(work, `task${n++}`);
  mkdirSync(path.join(dir, 'repo'), { recursive: true });
  writeFileSync(path.join(dir, 'repo/README.md'), 'create done.txt\n');
  setup?.(dir);
  const file = path.join(dir, 'config.yaml');
  writeFileSync(file, configText(dir));
  return file;
}
const base = `name: tiny
task: {prompt: create done.txt}
repo: repo
test_command: [sh, -c, 'test -f done.txt']
`;
const runsBefore = () =>
  existsSync(path.join(work, '.agentguard/runs'))
    ? readdirSync(path.join(work, '.agentguard/runs')).length
    : 0;

async function expectConfigError(config: string, ...fragments: string[]) {
  const before = runsBefore();
  const r = await execCli(['run', config, '--agent', 'agent-command'], { cwd: work });
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  const lines = r.stderr.trim().split('\n');
  expect(lines.length).toBe(1);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.stderr).toContain(config);
  for (const f of fragments) expect(r.stderr).toContain(f);
  expect(r.stderr).toContain('Fix:');
  expect(runsBefore()).toBe(before);
}

describe('bad input gets one clear sentence and exit code 2', () => {
  it('malformed YAML names the line', async () => {
    await expectConfigError(
      task(() => `${base}agent_command: [sh, -c, 'touch done.txt'\n`),
      'not valid YAML',
      'line',
    );
  });

  it('an unknown key suggests the known one', async () => {
    await expectConfigError(
      task(() => `${base}agent_comand: [true]\n`),
      "'agent_comand'",
      "did you mean 'agent_command'",
    );
  });

  it('a mistyped value names the field', async () => {
    await expectConfigError(
      task(() => `${base}timeout_seconds: soon\nagent_command: ['true']\n`),
      "'timeout_seconds'",
    );
  });

  it('a missing template names the repo field', async () => {
    await expectConfigError(
      task(() => `${base.replace('repo: repo', 'repo: nowhere')}agent_command: ['true']\n`),
      "field 'repo'",
      'does not exist',
    );
  });

  it('a prompt file outside the config folder is refused', async () => {
    await expectConfigError(
      task(
        () =>
          base.replace('task: {prompt: create done.txt}', 'task: {prompt_file: ../../etc/passwd}') +
          "agent_command: ['true']\n",
      ),
      "field 'task.prompt_file'",
      'outside',
    );
  });

  it('a template symlink escaping the template is refused', async () => {
    const config = task(
      () => `${base}agent_command: ['true']\n`,
      (dir) => symlinkSync('/etc/shadow', path.join(dir, 'repo/shadow')),
    );
    await expectConfigError(config, "field 'repo'", 'symlink shadow', 'outside');
  });

  it('an agent command that does not exist is named', async () => {
    await expectConfigError(
      task(() => `${base}agent_command: [no-such-agent-xyz, go]\n`),
      "'agent_command'",
      'no-such-agent-xyz',
    );
  });

  it('an embedded placeholder is refused before anything runs', async () => {
    await expectConfigError(
      task(() => `${base}agent_command: [sh, -c, 'echo {task_prompt}']\n`),
      'embeds {task_prompt}',
    );
  });
});

describe('agent and test failures are FAIL reports, not errors', () => {
  it('a hanging test command times out into a FAIL naming test_timeout_seconds', async () => {
    const config = task(
      () =>
        `${base.replace(
          "test_command: [sh, -c, 'test -f done.txt']",
          'test_command: [sleep, "30"]\ntest_timeout_seconds: 1',
        )}agent_command: [sh, -c, 'touch done.txt']\n`,
    );
    const r = await execCli(['run', config, '--json'], { cwd: work });
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    const tests = report.checks.find((c: { id: string }) => c.id === 'tests-pass');
    expect(tests.passed).toBe(false);
    expect(report.tests.timed_out).toBe(true);
    expect(report.tests.reason).toContain('test_timeout_seconds');
  });

  it('an agent that outlives its timeout is killed with its children and the run still reports', async () => {
    const config = task(
      () => `${base}timeout_seconds: 1\nagent_command: [sh, -c, 'touch done.txt; sleep 60 & sleep 60']\n`,
    );
    const r = await execCli(['run', config, '--json'], { cwd: work });
    const report = JSON.parse(r.stdout);
    expect(report.agent.outcome).toEqual({ status: 'timed-out', timeout_seconds: 1 });
    expect(report.result).toBe('FAIL');
    expect(r.code).toBe(1);
  });

  it('a crashing agent is a failed run with full reports', async () => {
    const config = task(() => `${base}agent_command: [sh, -c, 'touch done.txt; kill -SEGV $$']\n`);
    const r = await execCli(['run', config, '--json'], { cwd: work });
    const report = JSON.parse(r.stdout);
    expect(report.agent.outcome).toMatchObject({ status: 'failed', signal: 'SIGSEGV' });
    expect(existsSync(path.join(report.run_dir, 'report.md'))).toBe(true);
  });
});

describe('corrupt evidence', () => {
  it('analyze names the corrupt file and keeps the old report', async () => {
    const config = task(() => `${base}agent_command: [sh, -c, 'touch done.txt']\n`);
    const report = JSON.parse((await execCli(['run', config, '--json'], { cwd: work })).stdout);
    writeFileSync(path.join(report.run_dir, 'evidence/diff.json'), '{"files": [');
    const r = await execCli(['analyze', report.run_dir], { cwd: work });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('evidence/diff.json');
    expect(r.stderr).toContain('not valid JSON');
    expect(existsSync(path.join(report.run_dir, 'report.json'))).toBe(true);
  });

  it('analyze of a folder that is not a run says so', async () => {
    const r = await execCli(['analyze', work], { cwd: work });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('not a finished agentguard run');
  });
});
