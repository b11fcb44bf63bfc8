import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BENCHMARKS, CLI, execCli, ownStderr, tempDir } from './exec-cli.js';

const work = tempDir('ag-batch-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

const bench = (name: string) => path.join(BENCHMARKS, name, 'config.yaml');
const batches = (cwd = work) => {
  const dir = path.join(cwd, '.agentguard/batches');
  return existsSync(dir) ? readdirSync(dir).map((b) => path.join(dir, b)) : [];
};
function file(name: string, text: string): string {
  const f = path.join(work, name);
  writeFileSync(f, text);
  return f;
}
const readJson = (f: string) => JSON.parse(readFileSync(f, 'utf8'));

type Row = {
  index: number;
  agent: string;
  task: string;
  trial: number;
  result: string;
  run_id: string | null;
  reason?: string;
};
type Group = {
  agent: string;
  task: string | null;
  trials: number;
  passes: number;
  errors: number;
  pass_rate: number | null;
  wilson_low: number | null;
  pass_at_k: Record<string, number>;
  unsafe_functional_successes: number;
};

const hasScript = spawnSync('script', ['--version']).status === 0;
if (!hasScript) console.warn('live-count terminal test skipped: it needs script(1) from util-linux');
const hasPython = spawnSync('python3', ['-c', 'import xml.etree.ElementTree']).status === 0;

/**
 * The structure the common JUnit schema (Jenkins/Ant, windyroad JUnit.xsd) demands: testsuites >
 * testsuite with its required attributes, then properties, testcases, system-out, system-err in
 * that order; testcase needs name, classname and time; failure/error carry message and type.
 */
const JUNIT_CHECK = `
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == 'testsuites', root.tag
n = 0
for s in root:
    assert s.tag == 'testsuite', s.tag
    for a in ['name','tests','failures','errors','time','timestamp','hostname','id','package']:
        assert a in s.attrib, 'testsuite lacks ' + a
    tags = [c.tag for c in s]
    assert tags[0] == 'properties' and tags[-2:] == ['system-out','system-err'], tags
    cases = [c for c in s if c.tag == 'testcase']
    assert set(tags[1:-2]) <= {'testcase'}, tags
    assert int(s.attrib['tests']) == len(cases)
    assert int(s.attrib['failures']) == sum(1 for c in cases if c.find('failure') is not None)
    assert int(s.attrib['errors']) == sum(1 for c in cases if c.find('error') is not None)
    for c in cases:
        for a in ['name','classname','time']: assert a in c.attrib, 'testcase lacks ' + a
        float(c.attrib['time'])
        for k in c:
            assert k.tag in ('failure','error'), k.tag
            assert 'message' in k.attrib and 'type' in k.attrib
    n += len(cases)
print(n)
`;

describe('matrix, benchmark and suite', () => {
  it('runs agents × tasks × trials, with rows in input order, honest groups and child runs that name their batch', async () => {
    const m = file(
      'matrix.yaml',
      [
        `tasks: [${bench('js-slugify')}, ${bench('sh-logrotate')}]`,
        'agents:',
        '  - mock-solve',
        '  - mock-noop',
        '  - name: broken',
        '    agent_command: [/nonexistent/agent-program]',
        'trials: 2',
      ].join('\n'),
    );
    const r = await execCli(['matrix', m, '--tracer', 'off', '--workers', '2', '--json'], { cwd: work });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).not.toMatch(/\[\d+\/\d+\]/); // --json is quiet
    const s = JSON.parse(r.stdout);
    expect(s.complete).toBe(true);
    const rows: Row[] = s.rows;
    expect(rows.map((x) => x.index)).toEqual([...Array(12).keys()]);
    expect(rows.map((x) => `${x.agent}/${x.task}/${x.trial}`).slice(0, 4)).toEqual([
      'mock-solve/js-slugify/1',
      'mock-solve/js-slugify/2',
      'mock-solve/sh-logrotate/1',
      'mock-solve/sh-logrotate/2',
    ]);
    expect(rows.filter((x) => x.agent === 'mock-solve').every((x) => x.result === 'PASS')).toBe(true);
    expect(rows.filter((x) => x.agent === 'mock-noop').every((x) => x.result === 'FAIL')).toBe(true);
    // The attempt that cannot be set up is a row with its reason; the batch went on.
    const broken = rows.filter((x) => x.agent === 'broken');
    expect(
      broken.every((x) => x.result === 'ERROR' && x.run_id === null && /nonexistent/.test(x.reason ?? '')),
    ).toBe(true);
    expect(s.totals).toEqual({ pass: 4, fail: 4, error: 4, not_run: 0 });

    const groups: Group[] = s.groups;
    const cell = groups.find((g) => g.agent === 'mock-solve' && g.task === 'js-slugify') as Group;
    expect(cell).toMatchObject({ trials: 2, passes: 2, pass_rate: 1 });
    expect(cell.wilson_low).toBeCloseTo(0.3424, 3);
    expect(cell.pass_at_k).toEqual({ '1': 1, '2': 1 });
    const noop = groups.find((g) => g.agent === 'mock-noop' && g.task === null) as Group;
    expect(noop).toMatchObject({ trials: 4, passes: 0, pass_rate: 0 });
    const brokenAll = groups.find((g) => g.agent === 'broken' && g.task === null) as Group;
    expect(brokenAll).toMatchObject({ trials: 0, errors: 4, pass_rate: null });

    const [dir] = batches();
    expect(dir).toBeDefined();
    const batchId = path.basename(dir as string);
    expect(s.batch_id).toBe(batchId);
    for (const f of ['batch.json', 'checkpoint.jsonl', 'summary.json', 'summary.md', 'junit.xml'])
      expect(existsSync(path.join(dir as string, f)), f).toBe(true);
    const run = readJson(path.join(work, '.agentguard/runs', rows[3]?.run_id as string, 'evidence/run.json'));
    expect(run.batch).toEqual({ id: batchId, attempt: 3 });
    expect(readFileSync(path.join(dir as string, 'summary.md'), 'utf8')).toContain(
      '| mock-noop | js-slugify | 0/2 |',
    );

    if (hasPython) {
      const j = spawnSync('python3', ['-c', JUNIT_CHECK, path.join(dir as string, 'junit.xml')], {
        encoding: 'utf8',
      });
      expect(ownStderr(j.stderr)).toBe('');
      expect(j.stdout.trim()).toBe('12');
    } else console.warn('junit structure check skipped: it needs python3');

    // The gate: every threshold printed with its value; exit 1 when one does not hold.
    const bad = await execCli(['gate', dir as string, '--min-pass-rate', '0.5', '--max-alerts', '0'], {
      cwd: work,
    });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/pass rate of mock-noop\s+│?\s*>= 0.5\s+│?\s*0\.000\s+│?\s*NO/);
    expect(bad.stdout).toMatch(/guard alerts/);
    const good = await execCli(
      ['gate', dir as string, '--max-alerts', '0', '--max-unsafe-successes', '0', '--json'],
      { cwd: work },
    );
    expect(good.code).toBe(0);
    expect(JSON.parse(good.stdout).checks).toHaveLength(2);
  }, 180_000);

  it('benchmark runs several agents on one task and prints a progress line per attempt', async () => {
    const cwd = tempDir('ag-bench-');
    const r = await execCli(
      [
        'benchmark',
        bench('sh-logrotate'),
        '--agents',
        'mock-solve,mock-tamper-tests',
        '--trials',
        '2',
        '--tracer',
        'off',
        '--workers',
        '2',
      ],
      { cwd },
    );
    expect(r.code, r.stderr).toBe(1);
    const progress = r.stderr.split('\n').filter((l) => /^\[\d+\/4\]/.test(l));
    expect(progress).toHaveLength(4);
    expect(progress.join('\n')).toMatch(/mock-tamper-tests · sh-logrotate · trial \d: FAIL in [\d.]+ s/);
    // stderr is a pipe here: no live count, no terminal escapes.
    expect(r.stderr).not.toMatch(/done, \d+ running/);
    expect(r.stderr).not.toContain('\u001b');
    expect(r.stdout).toContain('mock-solve · sh-logrotate: 2/2 passed');
    const s = readJson(path.join(batches(cwd)[0] as string, 'summary.json'));
    expect(s.kind).toBe('benchmark');
    expect(s.rows).toHaveLength(4);
    rmSync(cwd, { recursive: true, force: true });
  }, 120_000);

  it.skipIf(!hasScript)(
    'on a terminal, a live count is redrawn in place beside the progress lines; not under CI',
    async () => {
      const cwd = tempDir('ag-tty-');
      // script(1) from util-linux gives the CLI a real pseudo-terminal for stdout and stderr.
      const inPty = (env: Record<string, string>) =>
        new Promise<{ code: number | null; out: string }>((resolve) => {
          const cmd = [
            process.execPath,
            CLI,
            'benchmark',
            bench('js-slugify'),
            '--agents',
            'mock-solve,mock-noop',
          ]
            .concat(['--trials', '2', '--tracer', 'off', '--workers', '2'])
            .map((a) => `'${a}'`)
            .join(' ');
          const child = spawn('script', ['-qefc', cmd, '/dev/null'], {
            cwd,
            env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, TERM: 'xterm', ...env },
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          let out = '';
          child.stdout.on('data', (c) => {
            out += c;
          });
          child.on('close', (code) => resolve({ code, out }));
        });
      const tty = await inPty({});
      expect(tty.code, tty.out).toBe(1); // mock-noop fails
      const counts = [
        // biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal's erase-line escape is the point
        ...tty.out.matchAll(/\r\u001b\[2K\[(\d+)\/4 done, (\d+) running, (\d+) failed, ETA ([^\]]+)\]/g),
      ];
      expect(counts.length).toBeGreaterThanOrEqual(4);
      expect(counts.some((m) => m[2] === '2')).toBe(true); // two workers busy at once
      expect(counts.at(-1)?.slice(1, 4)).toEqual(['4', '0', '2']);
      expect(counts.some((m) => /^\d+:\d\d$/.test(m[4] ?? ''))).toBe(true);
      // The one-line-per-attempt progress stays, each on a line of its own (the count erased first).
      const lines = tty.out.split(/\r?\n/).map((l) => l.split('\u001b[2K').at(-1) ?? '');
      expect(
        lines.filter((l) => /^\[\d\/4\] mock-(solve|noop) · js-slugify · trial \d: (PASS|FAIL)/.test(l)),
      ).toHaveLength(4);
      expect(tty.out).toMatch(/benchmark \S+: 2 PASS, 2 FAIL, 0 ERROR/);

      const ci = await inPty({ CI: 'true' });
      expect(ci.code).toBe(1);
      expect(ci.out).not.toMatch(/done, \d+ running/);
      expect(ci.out).not.toContain('\u001b[2K');
      rmSync(cwd, { recursive: true, force: true });
    },
    180_000,
  );

  it('suite filters by benchmark metadata and says which filter emptied the selection', async () => {
    const suite = file(
      'suite.yaml',
      [`configs: ["${BENCHMARKS}/*/config.yaml"]`, 'defaults: {agents: [mock-solve]}'].join('\n'),
    );
    const cwd = tempDir('ag-suite-');
    const r = await execCli(['suite', suite, '--difficulty', 'easy', '--tracer', 'off', '--json'], { cwd });
    expect(r.code, r.stderr).toBe(0);
    const tasks = JSON.parse(r.stdout).rows.map((x: Row) => x.task);
    expect(tasks).toEqual(['js-slugify', 'py-inventory']);
    const empty = await execCli(['suite', suite, '--difficulty', 'easy', '--tag', 'shell'], { cwd });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain(`${suite}: --tag 'shell' leaves no task`);
    rmSync(cwd, { recursive: true, force: true });
  }, 120_000);
});

describe('bad batch input is refused before anything runs', () => {
  const cases: [string, string, string[], string[]][] = [
    [
      'unknown key',
      `tasks: [${bench('js-slugify')}]\nagents: [mock-solve]\ntrails: 2\n`,
      [],
      ["field 'trails'", 'not a known key'],
    ],
    [
      'missing config',
      'tasks: [nope/config.yaml]\nagents: [mock-solve]\n',
      [],
      ["field 'tasks[0]'", 'does not exist'],
    ],
    [
      'duplicate agent names',
      `tasks: [${bench('js-slugify')}]\nagents: [mock-solve, {name: mock-solve, agent_command: [sh]}]\n`,
      [],
      ["field 'agents[1]'", 'appears twice'],
    ],
    [
      'trials < 1',
      `tasks: [${bench('js-slugify')}]\nagents: [mock-solve]\ntrials: 0\n`,
      [],
      ["field 'trials'", 'at least 1'],
    ],
    [
      'workers < 1 in the file',
      `tasks: [${bench('js-slugify')}]\nagents: [mock-solve]\nworkers: 0\n`,
      [],
      ["field 'workers'"],
    ],
    [
      '--workers 0',
      `tasks: [${bench('js-slugify')}]\nagents: [mock-solve]\n`,
      ['--workers', '0'],
      ['--workers'],
    ],
    [
      'agent of no known form',
      `tasks: [${bench('js-slugify')}]\nagents: [{name: x, agent_command: [true]}]\n`,
      [],
      ["field 'agents[0].agent_command[0]'", 'must be a string, not a boolean'],
    ],
    [
      'agent with neither command nor profile',
      `tasks: [${bench('js-slugify')}]\nagents: [{name: x}]\n`,
      [],
      ["field 'agents[0]'", "needs 'agent_command' or 'agent_profile'"],
    ],
    [
      'nested typo in an inline agent',
      `tasks: [${bench('js-slugify')}]\nagents: [{name: x, agent_comand: [sh]}]\n`,
      [],
      ["field 'agents[0].agent_comand'", "did you mean 'agent_command'?"],
    ],
    [
      'unknown agent',
      `tasks: [${bench('js-slugify')}]\nagents: [mock-solvee]\n`,
      [],
      ["field 'agents[0]'", 'not a built-in agent'],
    ],
  ];
  for (const [name, text, flags, fragments] of cases) {
    it(name, async () => {
      const cwd = tempDir('ag-badbatch-');
      const m = path.join(cwd, 'm.yaml');
      writeFileSync(m, text);
      const r = await execCli(['matrix', m, ...flags], { cwd });
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      if (!flags.length) expect(r.stderr).toContain(m);
      for (const f of fragments) expect(r.stderr).toContain(f);
      expect(r.stderr).toContain('Fix:');
      expect(existsSync(path.join(cwd, '.agentguard'))).toBe(false);
      rmSync(cwd, { recursive: true, force: true });
    });
  }
});

describe('checkpoint and resume', () => {
  it('after kill -9 of the whole process tree mid-matrix, resume yields exactly one row per attempt', async () => {
    const cwd = tempDir('ag-kill-');
    const m = path.join(cwd, 'm.yaml');
    writeFileSync(
      m,
      `tasks: [${bench('js-slugify')}, ${bench('sh-logrotate')}, ${bench('py-inventory')}]\nagents: [mock-solve, mock-noop]\ntrials: 1\n`,
    );
    // Its own owner notes, so that the killed harness is swept by its own resume, not another test's run.
    const owners = { AGENTGUARD_OWNERS_DIR: path.join(cwd, 'owners') };
    const child = spawn(process.execPath, [CLI, 'matrix', m, '--tracer', 'off', '--workers', '1'], {
      cwd,
      detached: true,
      stdio: 'ignore',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, NO_COLOR: '1', ...owners },
    });
    const exited = new Promise((r) => child.on('exit', r));
    const checkpointLines = () => {
      const [dir] = batches(cwd);
      const f = dir ? path.join(dir, 'checkpoint.jsonl') : '';
      return f && existsSync(f) ? readFileSync(f, 'utf8').split('\n').filter(Boolean).length : 0;
    };
    const deadline = Date.now() + 60_000;
    while (checkpointLines() < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    process.kill(-(child.pid as number), 'SIGKILL');
    await exited;
    const before = checkpointLines();
    expect(before).toBeGreaterThanOrEqual(2);
    expect(before).toBeLessThan(6);
    const dir = batches(cwd)[0] as string;
    expect(existsSync(path.join(dir, 'summary.json'))).toBe(false);
    // history.db has the batch from its start, unfinished, with the runs finished so far linked.
    const indexed = await execCli(['reports', 'batches', '--json'], { cwd });
    expect(indexed.code, indexed.stderr).toBe(0);
    const [killed] = JSON.parse(indexed.stdout);
    expect(killed).toMatchObject({
      batch_id: path.basename(dir),
      kind: 'matrix',
      complete: false,
      finished_at: null,
    });
    expect(killed.attempts_planned).toBe(6);
    expect(killed.runs).toBeGreaterThanOrEqual(before);

    const r = await execCli(['resume', dir, '--json'], { cwd });
    expect(r.code, r.stderr).toBe(1); // mock-noop fails
    const s = JSON.parse(r.stdout);
    expect(s.complete).toBe(true);
    expect(s.rows.map((x: Row) => x.index)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(s.rows.map((x: Row) => x.result)).toEqual(['PASS', 'PASS', 'PASS', 'FAIL', 'FAIL', 'FAIL']);
    const lines = readFileSync(path.join(dir, 'checkpoint.jsonl'), 'utf8').split('\n').filter(Boolean);
    const indices = lines.map((l) => JSON.parse(l).index).sort();
    expect(indices).toEqual([0, 1, 2, 3, 4, 5]);
    // Nothing left to run: a second resume runs nothing and gives the same rows.
    const again = await execCli(['resume', dir, '--json'], { cwd, env: owners });
    expect(JSON.parse(again.stdout).rows.map((x: Row) => x.run_id)).toEqual(s.rows.map((x: Row) => x.run_id));
    rmSync(cwd, { recursive: true, force: true });
  }, 180_000);

  it('Ctrl-C starts no new attempt and leaves a batch that resume completes', async () => {
    const cwd = tempDir('ag-int-');
    const m = path.join(cwd, 'm.yaml');
    writeFileSync(
      m,
      `tasks: [${bench('js-slugify')}, ${bench('sh-logrotate')}, ${bench('py-inventory')}]\nagents: [mock-solve, mock-noop]\n`,
    );
    const child = spawn(process.execPath, [CLI, 'matrix', m, '--tracer', 'off', '--workers', '1'], {
      cwd,
      stdio: 'ignore',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, NO_COLOR: '1' },
    });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const dirNow = () => batches(cwd)[0];
    const deadline = Date.now() + 60_000;
    while (
      !(dirNow() && existsSync(path.join(dirNow() as string, 'checkpoint.jsonl'))) &&
      Date.now() < deadline
    )
      await new Promise((r) => setTimeout(r, 25));
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    const dir = dirNow() as string;
    const s = readJson(path.join(dir, 'summary.json'));
    expect(s.complete).toBe(false);
    expect(s.totals.not_run).toBeGreaterThan(0);
    expect(s.rows.every((x: Row) => x.result !== 'ERROR')).toBe(true);
    const r = await execCli(['resume', dir, '--json'], { cwd });
    const done = JSON.parse(r.stdout);
    expect(done.complete).toBe(true);
    expect(done.rows.map((x: Row) => x.index)).toEqual([0, 1, 2, 3, 4, 5]);
    rmSync(cwd, { recursive: true, force: true });
  }, 180_000);

  it('matrix --resume finishes that batch, refusing another file, another kind or a changed option; setup ERRORs run again', async () => {
    const cwd = tempDir('ag-resume-flag-');
    const m = path.join(cwd, 'm.yaml');
    // `late` names an agent program that does not exist yet: its attempt fails in setup.
    writeFileSync(
      m,
      `tasks: [${bench('js-slugify')}]\nagents:\n  - mock-solve\n  - name: late\n    agent_command: [./late.sh]\n`,
    );
    const first = await execCli(['matrix', m, '--tracer', 'off', '--workers', '1', '--json'], { cwd });
    expect(first.code, first.stderr).toBe(1);
    const before = JSON.parse(first.stdout);
    expect(before.rows.map((x: Row) => [x.result, x.run_id === null])).toEqual([
      ['PASS', false],
      ['ERROR', true],
    ]);
    const dir = batches(cwd)[0] as string;
    const id = path.basename(dir);

    const other = path.join(cwd, 'other.yaml');
    writeFileSync(other, readFileSync(m, 'utf8'));
    const wrongFile = await execCli(['matrix', other, '--resume', dir], { cwd });
    expect(wrongFile.code).toBe(2);
    expect(wrongFile.stderr).toContain(`the batch was started from ${m}, not ${other}`);
    const wrongKind = await execCli(['suite', m, '--resume', id], { cwd });
    expect(wrongKind.code).toBe(2);
    expect(wrongKind.stderr).toContain('that batch is a matrix, not a suite');
    const newOption = await execCli(['matrix', m, '--resume', id, '--trials', '3'], { cwd });
    expect(newOption.code).toBe(2);
    expect(newOption.stderr).toContain('--trials cannot be used with --resume');
    const unknown = await execCli(['matrix', m, '--resume', 'no-such-batch'], { cwd });
    expect(unknown.code).toBe(2);

    // The program now exists (the matrix file is unchanged): resume by id runs the ERROR again.
    writeFileSync(path.join(cwd, 'late.sh'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const r = await execCli(['matrix', m, '--resume', id, '--json'], { cwd });
    expect(r.code, r.stderr).toBe(1); // late changes nothing: its tests fail
    expect(r.stderr).toMatch(
      /running again 1 attempt\(s\) whose setup failed: #1 late · js-slugify · trial 1 \(.*late\.sh/,
    );
    const after = JSON.parse(r.stdout);
    expect(after.batch_id).toBe(id);
    expect(after.rows.map((x: Row) => x.index)).toEqual([0, 1]);
    expect(after.rows[0].run_id).toBe(before.rows[0].run_id); // the PASS did not run again
    expect(after.rows[1]).toMatchObject({ agent: 'late', result: 'FAIL' });
    expect(after.rows[1].run_id).not.toBeNull();
    expect(after.totals).toEqual({ pass: 1, fail: 1, error: 0, not_run: 0 });
    // The checkpoint keeps the history: the setup ERROR, then its retry.
    const lines = readFileSync(path.join(dir, 'checkpoint.jsonl'), 'utf8').split('\n').filter(Boolean);
    expect(lines.map((l) => JSON.parse(l).result)).toEqual(['PASS', 'ERROR', 'FAIL']);
    // history.db: the batch with its counts after the retry, and its runs linked to it.
    const listed = await execCli(['reports', 'batches'], { cwd });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(id);
    expect(listed.stdout).toContain(path.join(dir, 'summary.json'));
    const [indexed] = JSON.parse((await execCli(['reports', 'batches', '--json'], { cwd })).stdout);
    expect(indexed).toMatchObject({
      batch_id: id,
      complete: true,
      pass: 1,
      fail: 1,
      error: 0,
      not_run: 0,
      runs: 2,
    });
    const runs = JSON.parse((await execCli(['reports', 'list', '--batch', id, '--json'], { cwd })).stdout);
    expect(runs.map((x: { run_id: string }) => x.run_id).sort()).toEqual(
      after.rows.map((x: Row) => x.run_id).sort(),
    );
    expect(runs.every((x: { batch_id: string }) => x.batch_id === id)).toBe(true);
    // Nothing is left to retry: a second resume runs nothing and says nothing about setup.
    const again = await execCli(['resume', dir, '--json'], { cwd });
    expect(again.stderr).not.toContain('running again');
    expect(JSON.parse(again.stdout).rows.map((x: Row) => x.run_id)).toEqual(
      after.rows.map((x: Row) => x.run_id),
    );
    rmSync(cwd, { recursive: true, force: true });
  }, 180_000);

  it('refuses to resume when a task config or its repo template changed', async () => {
    const cwd = tempDir('ag-change-');
    cpSync(path.join(BENCHMARKS, 'sh-logrotate'), path.join(cwd, 'task'), { recursive: true });
    const cfg = path.join(cwd, 'task/config.yaml');
    const m = path.join(cwd, 'm.yaml');
    writeFileSync(m, `tasks: [task/config.yaml]\nagents: [mock-noop]\n`);
    const r = await execCli(['matrix', m, '--tracer', 'off', '--fail-fast'], { cwd });
    expect(r.code).toBe(1);
    const dir = batches(cwd)[0] as string;
    writeFileSync(path.join(cwd, 'task/repo/EXTRA.md'), 'changed\n');
    const repoChanged = await execCli(['resume', dir], { cwd });
    expect(repoChanged.code).toBe(2);
    expect(repoChanged.stderr).toContain(`the repo template ${path.join(cwd, 'task/repo')} changed`);
    rmSync(path.join(cwd, 'task/repo/EXTRA.md'));
    writeFileSync(cfg, `${readFileSync(cfg, 'utf8')}\n# edited\n`);
    const cfgChanged = await execCli(['resume', dir], { cwd });
    expect(cfgChanged.code).toBe(2);
    expect(cfgChanged.stderr).toContain(`the task config ${cfg} changed`);
    rmSync(cwd, { recursive: true, force: true });
  }, 120_000);
});

const hasBpftrace = spawnSync('sh', ['-c', 'command -v bpftrace']).status === 0;
if (!hasBpftrace) console.warn('batch ebpf test skipped: it needs bpftrace (CI installs it)');

describe.skipIf(!hasBpftrace)('a suite under the eBPF tracer', () => {
  it('counts alerts by rule and the run whose tests passed while it stole a key as an unsafe success', async () => {
    const cwd = tempDir('ag-ebpf-');
    const suite = path.join(cwd, 'suite.yaml');
    writeFileSync(
      suite,
      `configs: [${path.join(BENCHMARKS, 'attacks/exfil-ssh-key/config.yaml')}, ${path.join(BENCHMARKS, 'attacks/exfil-ssh-key-benign/config.yaml')}]\n`,
    );
    const r = await execCli(['suite', suite, '--tracer', 'ebpf', '--workers', '2', '--json'], { cwd });
    expect(r.code, r.stderr).toBe(1);
    const s = JSON.parse(r.stdout);
    expect(s.rows.map((x: Row) => [x.task, x.result])).toEqual([
      ['attack-exfil-ssh-key', 'FAIL'],
      ['attack-exfil-ssh-key-benign', 'PASS'],
    ]);
    const all = s.groups.find((g: Group) => g.task === null);
    expect(all.unsafe_functional_successes).toBe(1);
    expect(all.alerts_by_rule['secrets-canary-read']).toBe(1);
    const dir = batches(cwd)[0] as string;
    const gate = await execCli(['gate', dir, '--max-unsafe-successes', '0'], { cwd });
    expect(gate.code).toBe(1);
    expect(gate.stdout).toMatch(/unsafe functional successes.*<= 0.*1.*NO/);
    rmSync(cwd, { recursive: true, force: true });
  }, 240_000);
});

describe('baselines', () => {
  it('saves a baseline, refuses another benchmark version, and finds the regression when allowed', async () => {
    const cwd = tempDir('ag-base-');
    cpSync(path.join(BENCHMARKS, 'sh-logrotate'), path.join(cwd, 'task'), { recursive: true });
    const cfg = path.join(cwd, 'task/config.yaml');
    const m = path.join(cwd, 'm.yaml');
    writeFileSync(m, 'tasks: [task/config.yaml]\nagents: [mock-solve]\n');
    const base = path.join(cwd, 'base.json');
    const first = await execCli(['matrix', m, '--tracer', 'off', '--save-baseline', base], { cwd });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`baseline saved: ${base}`);
    expect(readJson(base).attempts).toEqual([
      expect.objectContaining({
        agent: 'mock-solve',
        task: 'sh-logrotate',
        benchmark_version: '1.0.0',
        trial: 1,
        result: 'PASS',
      }),
    ]);

    // A new version of the task whose tests now fail for the same agent.
    writeFileSync(
      cfg,
      readFileSync(cfg, 'utf8')
        .replace(
          'test_command: [sh, tests/run-tests.sh]',
          'test_command: [sh, -c, "sh tests/run-tests.sh && false"]',
        )
        .replace('benchmark_version: "1.0.0"', 'benchmark_version: "1.1.0"'),
    );
    const before = batches(cwd).length;
    const refused = await execCli(['matrix', m, '--tracer', 'off', '--baseline', base], { cwd });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('benchmark version 1.0.0 there and 1.1.0 now');
    expect(batches(cwd).length).toBe(before);

    const r = await execCli(
      ['matrix', m, '--tracer', 'off', '--baseline', base, '--allow-version-mismatch', '--json'],
      { cwd },
    );
    expect(r.code).toBe(1);
    const c = JSON.parse(r.stdout).baseline_comparison;
    expect(c.regressions).toBe(1);
    expect(c.attempts[0]).toMatchObject({ change: 'regressed', before: 'PASS', after: 'FAIL' });
    expect(c.attempts[0].details).toContain('now fails tests-pass');
    const dir = batches(cwd).find((d) => existsSync(path.join(d, 'baseline-comparison.json'))) as string;
    const gate = await execCli(
      ['gate', dir, '--baseline', base, '--max-regressions', '0', '--allow-version-mismatch'],
      { cwd },
    );
    expect(gate.code).toBe(1);
    expect(gate.stdout).toMatch(/regressions against base\.json.*<= 0.*1.*NO/);
    rmSync(cwd, { recursive: true, force: true });
  }, 120_000);
});
