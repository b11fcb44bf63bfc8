import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportPath } from '../../src/reports/reporters.js';
import { type CliResult, execCli, tempDir } from './exec-cli.js';

/*
 * Fuzz-style: corrupt run folders and broken configs, each fed to the real CLI. Whatever is wrong,
 * the answer is exit 2 and one sentence naming the file — never "internal error", a stack trace,
 * a hang, or a change to what was already written.
 */
const work = tempDir('ag-corrupt-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

const base = `name: tiny
task: {prompt: create done.txt}
repo: repo
test_command: [sh, -c, 'test -f done.txt']
agent_command: [sh, -c, 'touch done.txt']
`;

function expectOneSentence(r: CliResult, file: string, fix = 'Fix:') {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).not.toContain('internal error');
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).toContain(file);
  expect(r.stderr).toContain(fix);
}

const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('a corrupt run folder: analyze answers exit 2 naming the file, and keeps the old report', () => {
  let runDir = '';
  beforeAll(async () => {
    mkdirSync(path.join(work, 'task/repo'), { recursive: true });
    writeFileSync(path.join(work, 'task/repo/README.md'), 'create done.txt\n');
    writeFileSync(path.join(work, 'task/config.yaml'), base);
    const r = await execCli(['run', 'task/config.yaml', '--json', '--sandbox', 'local', '--tracer', 'off'], {
      cwd: work,
    });
    expect(r.code, r.stderr).toBe(0);
    runDir = JSON.parse(r.stdout).run_dir;
  }, 120_000);

  const line = (o: object) => `${JSON.stringify(o)}\n`;
  const cases: [string, string, (dir: string) => void][] = [
    [
      'truncated JSON',
      'evidence/diff.json',
      (d) => writeFileSync(path.join(d, 'evidence/diff.json'), '{"files": ['),
    ],
    [
      'a JSON list, not an object',
      'evidence/agent.json',
      (d) => writeFileSync(path.join(d, 'evidence/agent.json'), '[1, 2]'),
    ],
    [
      'a missing field',
      'evidence/tests.json',
      (d) => writeFileSync(path.join(d, 'evidence/tests.json'), '{"ran": true}'),
    ],
    [
      'a wrong type in a record',
      'evidence/network.jsonl',
      (d) =>
        writeFileSync(
          path.join(d, 'evidence/network.jsonl'),
          line({ ts: 1, host: 5, port: 443, protocol: 'connect', decision: 'denied', reason: 'x' }),
        ),
    ],
    [
      'a record with missing fields',
      'evidence/commands.jsonl',
      (d) => writeFileSync(path.join(d, 'evidence/commands.jsonl'), line({ id: 'c1' })),
    ],
    [
      'a syscall record of the wrong shape',
      'evidence/syscalls.jsonl',
      (d) => writeFileSync(path.join(d, 'evidence/syscalls.jsonl'), line({ seq: 1, kind: 'open', path: 7 })),
    ],
    [
      'a 20 MB line',
      'evidence/timeline.jsonl',
      (d) => writeFileSync(path.join(d, 'evidence/timeline.jsonl'), `${'a'.repeat(20 * 1024 * 1024)}\n`),
    ],
    [
      'a link to /dev/zero',
      'evidence/syscalls.jsonl',
      (d) => {
        rmSync(path.join(d, 'evidence/syscalls.jsonl'), { force: true });
        symlinkSync('/dev/zero', path.join(d, 'evidence/syscalls.jsonl'));
      },
    ],
    [
      'a JSON file linked to /dev/zero',
      'evidence/observation.json',
      (d) => {
        unlinkSync(path.join(d, 'evidence/observation.json'));
        symlinkSync('/dev/zero', path.join(d, 'evidence/observation.json'));
      },
    ],
    [
      'a FIFO where a file should be',
      'evidence/network.jsonl',
      (d) => {
        rmSync(path.join(d, 'evidence/network.jsonl'), { force: true });
        execFileSync('mkfifo', [path.join(d, 'evidence/network.jsonl')]);
      },
    ],
    [
      'a folder where a file should be',
      'evidence/workspace.json',
      (d) => {
        unlinkSync(path.join(d, 'evidence/workspace.json'));
        mkdirSync(path.join(d, 'evidence/workspace.json'));
      },
    ],
    [
      'a config snapshot of the wrong type',
      'config.json',
      (d) => {
        const file = path.join(d, 'config.json');
        writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), allowed_paths: 5 }));
      },
    ],
    [
      'stored rules of the wrong shape',
      'evidence/rules.json',
      (d) => writeFileSync(path.join(d, 'evidence/rules.json'), '{"sources": 5}'),
    ],
    [
      'skills of the wrong shape',
      'evidence/skills.json',
      (d) => writeFileSync(path.join(d, 'evidence/skills.json'), '{"files": 7}'),
    ],
  ];

  let n = 0;
  for (const [what, file, corrupt] of cases) {
    it(what, async () => {
      const dir = path.join(work, `copy${n++}`);
      cpSync(runDir, dir, { recursive: true });
      corrupt(dir);
      const before = sha(reportPath(dir, 'json'));
      const r = await execCli(['analyze', dir], { cwd: work });
      expectOneSentence(r, path.join(dir, file));
      expect(sha(reportPath(dir, 'json'))).toBe(before);
    }, 30_000);
  }
});

describe('a corrupt report.json: compare and reports show --json answer exit 2 naming file and field', () => {
  const cwd = path.join(work, 'report-json');
  const runs: string[] = [];
  beforeAll(async () => {
    mkdirSync(path.join(cwd, 'task/repo'), { recursive: true });
    writeFileSync(path.join(cwd, 'task/repo/README.md'), 'create done.txt\n');
    writeFileSync(path.join(cwd, 'task/config.yaml'), base);
    for (let i = 0; i < 2; i++) {
      const r = await execCli(
        ['run', 'task/config.yaml', '--json', '--sandbox', 'local', '--tracer', 'off'],
        {
          cwd,
        },
      );
      expect(r.code, r.stderr).toBe(0);
      runs.push(JSON.parse(r.stdout).run_dir);
    }
  }, 120_000);

  it('compares sound reports, then names the field of a corrupt one', async () => {
    const [a = '', b = ''] = runs;
    expect((await execCli(['compare', a, b, '--json'], { cwd })).code).toBe(0);
    const file = reportPath(b, 'json');
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), result: 'MAYBE' }));
    const r = await execCli(['compare', a, b], { cwd });
    expectOneSentence(r, file);
    expect(r.stderr).toContain("field 'result'");
    const show = await execCli(['reports', 'show', path.basename(b), '--json'], { cwd });
    expectOneSentence(show, file);
    expect(show.stderr).toContain("field 'result'");
    // The Markdown report is still shown: only the JSON one is corrupt.
    expect((await execCli(['reports', 'show', path.basename(b)], { cwd })).code).toBe(0);
  }, 60_000);
});

describe('every field of every evidence file, set to a wrong value', () => {
  let runDir = '';
  beforeAll(async () => {
    mkdirSync(path.join(work, 'fuzz/repo'), { recursive: true });
    writeFileSync(path.join(work, 'fuzz/repo/README.md'), 'create done.txt\n');
    writeFileSync(path.join(work, 'fuzz/config.yaml'), base);
    const r = await execCli(['run', 'fuzz/config.yaml', '--json', '--sandbox', 'local', '--tracer', 'off'], {
      cwd: work,
    });
    runDir = JSON.parse(r.stdout).run_dir;
  }, 120_000);

  it('never gives an internal error, and an error names the file', async () => {
    const files = [
      'config.json',
      ...['run', 'diff', 'workspace', 'agent', 'tests', 'observation'].map((f) => `evidence/${f}.json`),
    ];
    const jobs: { file: string; key: string; value: unknown }[] = [];
    for (const file of files) {
      const obj = JSON.parse(readFileSync(path.join(runDir, file), 'utf8')) as Record<string, unknown>;
      for (const key of Object.keys(obj))
        for (const value of file === 'config.json' ? [null, []] : [null, 7, 'x', []])
          jobs.push({ file, key, value });
    }
    const first = JSON.parse(
      readFileSync(path.join(runDir, 'evidence/commands.jsonl'), 'utf8').split('\n')[0] ?? '{}',
    );
    for (const key of Object.keys(first)) jobs.push({ file: 'evidence/commands.jsonl', key, value: null });

    const failures: string[] = [];
    let next = 0;
    const worker = async (w: number) => {
      for (let i = next++; i < jobs.length; i = next++) {
        const { file, key, value } = jobs[i] as (typeof jobs)[number];
        const dir = path.join(work, `fz${w}`);
        rmSync(dir, { recursive: true, force: true });
        cpSync(runDir, dir, { recursive: true });
        const target = path.join(dir, file);
        if (file.endsWith('.jsonl')) {
          const [head, ...rest] = readFileSync(target, 'utf8').split('\n');
          writeFileSync(
            target,
            [JSON.stringify({ ...JSON.parse(head ?? '{}'), [key]: value }), ...rest].join('\n'),
          );
        } else {
          writeFileSync(
            target,
            JSON.stringify({ ...JSON.parse(readFileSync(target, 'utf8')), [key]: value }),
          );
        }
        const r = await execCli(['analyze', dir], { cwd: work });
        const label = `${file} ${key}=${JSON.stringify(value)}: exit ${r.code} ${r.stderr.trim()}`;
        if (r.stderr.includes('internal error') || /\n\s+at /.test(r.stderr)) failures.push(label);
        else if (r.code === 2 && !r.stderr.includes(target))
          failures.push(`does not name the file: ${label}`);
        else if (r.code !== 0 && r.code !== 1 && r.code !== 2) failures.push(label);
      }
    };
    await Promise.all([0, 1, 2].map(worker));
    expect(failures).toEqual([]);
  }, 600_000);
});

describe('a broken config: run --dry-run and analyze --config answer exit 2 naming the file', () => {
  const configs: [string, string, ...string[]][] = [
    ['truncated YAML', `${base}allowed_paths: [src/**\n`, 'not valid YAML'],
    ['a list where a mapping belongs', '- name: tiny\n', 'mapping'],
    ['a number where a list belongs', `${base}forbidden_paths: 5\n`, "'forbidden_paths'"],
    ['an absolute glob', `${base}allowed_paths: ["/etc/**"]\n`, "'allowed_paths[0]'", 'absolute'],
    ['a climbing glob', `${base}allowed_paths: ["../**"]\n`, "'allowed_paths[0]'", '..'],
    ['a climbing forbidden path', `${base}forbidden_paths: ["../../x"]\n`, "'forbidden_paths[0]'"],
    ['an absolute secret path', `${base}secret_paths: ["/root/.ssh/*"]\n`, "'secret_paths[0]'"],
    ['an absolute grader path', `${base}grader_paths: ["/srv/answers"]\n`, "'grader_paths[0]'"],
    ['an absolute test path', `${base}test_paths: ["/tests/**"]\n`, "'test_paths[0]'"],
    ['a timeout of 1e12', `${base}timeout_seconds: 1e12\n`, "'timeout_seconds'", '7 days'],
    ['a test timeout of 2200000', `${base}test_timeout_seconds: 2200000\n`, "'test_timeout_seconds'"],
    ['an output cap of 1e12', `${base}max_output_bytes: 1e12\n`, "'max_output_bytes'"],
    ['a file count of 1e12', `${base}max_changed_files: 1e12\n`, "'max_changed_files'"],
    ['a negative line count', `${base}max_added_lines: -1\n`, "'max_added_lines'"],
    ['repo /etc', base.replace('repo: repo', 'repo: /etc'), "'repo'", 'system folder'],
    [
      'repo climbing to /etc',
      base.replace('repo: repo', 'repo: ../../../../../../../etc'),
      "'repo'",
      'system folder',
    ],
    ['repo /', base.replace('repo: repo', 'repo: /'), "'repo'", 'root folder'],
    [
      'an alias bomb',
      `name: tiny\na: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n`,
      'aliases',
    ],
  ];

  let n = 0;
  for (const [what, text, ...fragments] of configs) {
    it(what, async () => {
      const dir = path.join(work, `cfg${n++}`);
      mkdirSync(path.join(dir, 'repo'), { recursive: true });
      const file = path.join(dir, 'config.yaml');
      writeFileSync(file, text);
      for (const args of [
        ['run', file, '--dry-run'],
        ['analyze', dir, '--config', file],
      ]) {
        const r = await execCli(args, { cwd: dir });
        // analyze loads the policy before it looks at the run folder, so the config is what it judges.
        expectOneSentence(r, file);
        for (const f of fragments) expect(r.stderr).toContain(f);
      }
    }, 30_000);
  }

  it('a config that is a link to /dev/zero, or a FIFO, is refused at once', async () => {
    const dir = path.join(work, 'special');
    mkdirSync(dir, { recursive: true });
    symlinkSync('/dev/zero', path.join(dir, 'zero.yaml'));
    execFileSync('mkfifo', [path.join(dir, 'fifo.yaml')]);
    for (const name of ['zero.yaml', 'fifo.yaml']) {
      const r = await execCli(['run', name, '--dry-run'], { cwd: dir });
      expectOneSentence(r, path.join(dir, name));
      expect(r.stderr).toContain('not a regular file');
    }
  }, 30_000);

  it('a rule file linked to /dev/zero is refused, naming it', async () => {
    const dir = path.join(work, 'rulezero');
    mkdirSync(path.join(dir, 'repo'), { recursive: true });
    symlinkSync('/dev/zero', path.join(dir, 'rules.yaml'));
    const file = path.join(dir, 'config.yaml');
    writeFileSync(file, `${base}security: {rules: [rules.yaml]}\n`);
    const r = await execCli(['run', file, '--dry-run'], { cwd: dir });
    // The config names the rule file it cannot read, in the same sentence form as every file.
    expectOneSentence(r, path.join(dir, 'rules.yaml'), 'not a regular file');
  }, 30_000);
});
