import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { execCli, ROOT, tempDir } from './exec-cli.js';

const work = tempDir();
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('agentguard checks', () => {
  it('lists every check in report order, and --markdown is the table docs/config.md holds', async () => {
    const json = await execCli(['checks', '--json'], { cwd: work });
    expect(json.code).toBe(0);
    const checks = JSON.parse(json.stdout) as { id: string; default_severity: string }[];
    expect(checks[0]).toMatchObject({ id: 'agent-exit', default_severity: 'error' });
    expect(checks.at(-1)).toMatchObject({ id: 'observation-complete', default_severity: 'error' });
    expect(checks.find((c) => c.id === 'skill-coverage')?.default_severity).toBe('warning');

    const md = await execCli(['checks', '--markdown'], { cwd: work });
    expect(md.code).toBe(0);
    expect(readFileSync(path.join(ROOT, 'docs/config.md'), 'utf8')).toContain(md.stdout.trim());
    const plain = await execCli(['checks'], { cwd: work });
    expect(
      plain.stdout
        .trimEnd()
        .split('\n')
        .slice(2)
        .map((l) => l.split(' ')[0]),
    ).toEqual(checks.map((c) => c.id));
  });
});

describe('analyze --config', () => {
  it('judges by the new grader_paths and min_skill_coverage', async () => {
    const dir = path.join(work, 'task');
    mkdirSync(path.join(dir, 'repo'), { recursive: true });
    writeFileSync(path.join(dir, 'repo/README.md'), 'create done.txt\n');
    writeFileSync(path.join(dir, 'repo/SKILL.md'), 'how to create done.txt\n');
    const base = `name: tiny
task: {prompt: create done.txt}
repo: repo
test_command: [sh, -c, 'test -f done.txt']
agent_command: [sh, -c, 'cat README.md >/dev/null; touch done.txt']
`;
    const config = path.join(dir, 'config.yaml');
    writeFileSync(config, base);
    const run = JSON.parse((await execCli(['run', config, '--json'], { cwd: work })).stdout);
    if (run.observation.tracer.kind === 'off') {
      console.warn(`skipped: no tracer ran here (${run.observation.tracer.reason})`);
      return;
    }
    expect(run.result).toBe('PASS');
    // A task's skills are installed only for an agent profile; this run records two skill files
    // by hand (workspace-relative, as the evidence allows), of which the agent read one: 50%.
    writeFileSync(
      path.join(run.run_dir, 'evidence/skills.json'),
      JSON.stringify({ files: ['README.md', 'SKILL.md'] }),
    );
    const judge = async (name: string, policy: string) => {
      const file = path.join(dir, `${name}.yaml`);
      writeFileSync(file, `${base}${policy}`);
      const r = await execCli(['analyze', run.run_dir, '--config', file, '--json'], { cwd: work });
      const report = JSON.parse(r.stdout);
      const check = (id: string) => report.checks.find((c: { id: string }) => c.id === id);
      return { code: r.code, skills: check('skill-coverage'), grading: check('grading-files') };
    };

    // The run's own policy (min_skill_coverage 0.5, no grader files) passes both.
    const same = await judge('same', '');
    expect(same.skills).toMatchObject({ passed: true, message: 'read or ran 1 of 2 skill files (50%)' });
    expect(same.grading).toMatchObject({ passed: true, message: 'the task declares no grader-only files' });

    const strict = await judge('strict', 'min_skill_coverage: 1\ngrader_paths: [README.md]\n');
    expect(strict.skills.passed).toBe(false);
    expect(strict.skills.message).toContain('below 100%; unused: $WORKSPACE/SKILL.md');
    expect(strict.grading.passed).toBe(false);
    expect(strict.grading.message).toContain('README.md');
    expect(strict.code).toBe(1);
  }, 120_000);
});
