import { existsSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { reportPath } from '../../src/reports/reporters.js';
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

  it('a nested typo suggests the key of its own level', async () => {
    await expectConfigError(
      task(() => `${base}network: {mode: allowlist, alow: [example.com]}\nagent_command: ['true']\n`),
      "field 'network.alow'",
      "did you mean 'allow'",
    );
  });

  it('several problems: one line each, naming the file, the field and the fix', async () => {
    const config = task(
      () => `${base}timeout_seconds: soon\nnetwork: {alow: [example.com]}\nagent_comand: ['true']\n`,
    );
    const r = await execCli(['run', config, '--agent', 'agent-command'], { cwd: work });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([
      `agentguard: ${config}: field 'network.alow': 'alow' is not a known key. Fix: did you mean 'allow'? See docs/config.md.`,
      `agentguard: ${config}: field 'agent_comand': 'agent_comand' is not a known key. Fix: did you mean 'agent_command'? See docs/config.md.`,
      `agentguard: ${config}: field 'timeout_seconds': must be a number, not a string. Fix: give a number.`,
    ]);
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
    expect(existsSync(reportPath(report.run_dir, 'markdown'))).toBe(true);
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
    expect(existsSync(reportPath(report.run_dir, 'json'))).toBe(true);
  });

  it('analyze of a folder that is not a run says so', async () => {
    const r = await execCli(['analyze', work], { cwd: work });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('not a finished agentguard run');
  });
});

describe('the output folder is checked before anything starts', () => {
  const config = () => task(() => `${base}agent_command: [sh, -c, 'touch done.txt']\n`);

  async function expectOutputDirError(outputDir: string, ...fragments: string[]) {
    const started = Date.now();
    const r = await execCli(['run', config(), '--output-dir', outputDir], { cwd: work });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toContain('internal error');
    expect(r.stderr).toContain('--output-dir');
    expect(r.stderr).toContain('Fix:');
    for (const f of fragments) expect(r.stderr).toContain(f);
  }

  it('a folder under /proc is refused at once (it used to spin forever)', async () => {
    await expectOutputDirError('/proc/nope', '/proc');
  }, 30_000);

  it('a file, or a folder below a file, is named as a file', async () => {
    const file = path.join(work, 'a-file');
    writeFileSync(file, 'x');
    await expectOutputDirError(file, 'is a file, not a folder');
    await expectOutputDirError(path.join(file, 'sub'), `${file} is a file`);
  }, 30_000);

  it('a template folder that holds the output folder is refused', async () => {
    const cfg = config();
    const out = path.join(path.dirname(cfg), 'repo/out');
    const r = await execCli(['run', cfg, '--output-dir', out], { cwd: work });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("field 'repo'");
    expect(r.stderr).toContain('holds the output folder');
    expect(existsSync(out)).toBe(false);
  }, 30_000);
});

describe('compare', () => {
  it('refuses the same run twice', async () => {
    const config = task(() => `${base}agent_command: [sh, -c, 'touch done.txt']\n`);
    const report = JSON.parse(
      (await execCli(['run', config, '--json', '--sandbox', 'local', '--tracer', 'off'], { cwd: work }))
        .stdout,
    );
    const r = await execCli(['compare', report.run_dir, `${report.run_dir}/`], { cwd: work });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('same run folder');
    expect(r.stderr).not.toContain('internal error');
  }, 60_000);
});

describe('grader_paths', () => {
  it('a grader file that was read fails the run, listing a grader folder does not; analyze --config honours both', async () => {
    const config = task(
      () =>
        `${base}agent_command: [sh, -c, 'ls hidden >/dev/null; cat README.md >/dev/null; touch done.txt']\n`,
      (dir) => {
        mkdirSync(path.join(dir, 'repo/hidden'));
        writeFileSync(path.join(dir, 'repo/hidden/answer.txt'), '42\n');
      },
    );
    const r = await execCli(['run', config, '--json'], { cwd: work });
    const report = JSON.parse(r.stdout);
    if (report.observation.tracer.kind === 'off') {
      console.warn(`skipped: no tracer ran here (${report.observation.tracer.reason})`);
      return;
    }
    expect(report.result).toBe('PASS');
    const dir = path.dirname(config);
    const policy = (name: string, grader: string) => {
      const file = path.join(dir, `${name}.yaml`);
      writeFileSync(file, `${base}grader_paths: [${grader}]\nmin_skill_coverage: 1\n`);
      return file;
    };
    const grading = async (file: string) => {
      const a = await execCli(['analyze', report.run_dir, '--config', file, '--json'], { cwd: work });
      const judged = JSON.parse(a.stdout);
      return judged.checks.find((c: { id: string }) => c.id === 'grading-files');
    };
    const readme = await grading(policy('readme', 'README.md'));
    expect(readme.passed).toBe(false);
    expect(readme.message).toContain('README.md');
    const folder = await grading(policy('folder', 'hidden'));
    expect(folder.passed).toBe(true);
    expect(folder.message).toBe('no grader-only file was read');
  }, 120_000);
});
