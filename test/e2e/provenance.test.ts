import {
  cpSync,
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BENCHMARKS, execCli, ownStderr, tempDir } from './exec-cli.js';

const work = tempDir('ag-prov-');
afterAll(() => rmSync(work, { recursive: true, force: true }));
const tasks = readdirSync(BENCHMARKS).filter((d) => existsSync(path.join(BENCHMARKS, d, 'config.yaml')));
const firstConfig = path.join(BENCHMARKS, tasks[0] as string, 'config.yaml');

type Manifest = { files: { path: string; sha256: string; bytes: number }[]; trace: { head: string } };

let runDir: string;
let report: { result: string; score: number; run_id: string };

/** Every file under a folder with its size and mtime, to prove a command rewrote nothing. */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(dir, rel))) {
      const child = path.join(rel, name);
      const st = lstatSync(path.join(dir, child));
      if (st.isDirectory()) walk(child);
      else out.set(child, `${st.size}:${st.mtimeMs}`);
    }
  };
  walk('');
  return out;
}

function copyRun(name: string): string {
  const dest = path.join(work, 'copies', name);
  cpSync(runDir, dest, { recursive: true, verbatimSymlinks: true });
  return dest;
}

const verify = (dir: string) => execCli(['trace', 'verify', dir], { cwd: work });

beforeAll(async () => {
  // A real run: bwrap sandbox, strace tracer, an agent that writes outside its scope (FAIL).
  const r = await execCli(
    [
      'run',
      firstConfig,
      '--agent',
      'mock-out-of-scope',
      '--sandbox',
      'bwrap',
      '--tracer',
      'strace',
      '--json',
    ],
    { cwd: work },
  );
  expect(r.code, r.stderr).toBe(1);
  report = JSON.parse(r.stdout);
  runDir = path.join(work, '.agentguard', 'runs', report.run_id);
}, 120_000);

describe('trace verify on a real run', () => {
  it('finds the run intact, and rewrites nothing', async () => {
    const before = snapshot(runDir);
    const r = await verify(runDir);
    expect(ownStderr(r.stderr)).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^intact: \d+ files and \d+ trace records match/);
    expect(snapshot(runDir)).toEqual(before);
    const manifest = JSON.parse(readFileSync(path.join(runDir, 'manifest.json'), 'utf8'));
    expect(manifest.observation).toMatchObject({ sandbox: 'bwrap', tracer: 'strace' });
    expect(manifest.verdict).toEqual({ result: 'FAIL', score: report.score });
    const list = await execCli(['reports', 'list', '--json'], { cwd: work });
    const row = JSON.parse(list.stdout).find((x: { run_id: string }) => x.run_id === report.run_id);
    expect(row.trace_head).toBe(manifest.trace.head);
    expect(row.manifest_path).toBe(path.join(runDir, 'manifest.json'));
  });

  it('names each file of the manifest when one byte of it is flipped', async () => {
    const manifest = JSON.parse(readFileSync(path.join(runDir, 'manifest.json'), 'utf8')) as Manifest;
    expect(manifest.files.length).toBeGreaterThan(15);
    for (const f of manifest.files) {
      const file = path.join(runDir, f.path);
      const original = readFileSync(file);
      // An empty file has no byte to flip: it gets one.
      const changed = original.length === 0 ? Buffer.from('x') : Buffer.from(original);
      if (original.length > 0) {
        const at = Math.floor(original.length / 2);
        changed[at] = (changed[at] as number) ^ 0x01;
      }
      writeFileSync(file, changed);
      try {
        const r = await verify(runDir);
        expect(r.code, `${f.path}: ${r.stdout}${r.stderr}`).toBe(1);
        expect(r.stderr, f.path).toContain(f.path);
        expect(r.stderr.trim().split('\n'), f.path).toHaveLength(1);
      } finally {
        writeFileSync(file, original);
      }
    }
    expect((await verify(runDir)).code).toBe(0);
  }, 300_000);

  it('a run folder whose trace head disagrees with its history row is reported (a consistent rewrite)', async () => {
    const db = new Database(path.join(work, '.agentguard', 'history.db'));
    const head = (
      db.prepare('SELECT trace_head FROM runs WHERE run_id = ?').get(report.run_id) as { trace_head: string }
    ).trace_head;
    expect(head).toMatch(/^[0-9a-f]{64}$/);
    try {
      db.prepare('UPDATE runs SET trace_head = ? WHERE run_id = ?').run('f'.repeat(64), report.run_id);
      const r = await verify(runDir);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`records trace head ffffffffffff for run ${report.run_id}`);
    } finally {
      db.prepare('UPDATE runs SET trace_head = ? WHERE run_id = ?').run(head, report.run_id);
      db.close();
    }
    expect((await verify(runDir)).code).toBe(0);
  });

  it('reports an edited manifest, an added file and a symlink placed in the run folder', async () => {
    const edited = copyRun('edited-manifest');
    const mf = path.join(edited, 'manifest.json');
    writeFileSync(mf, readFileSync(mf, 'utf8').replace('"bwrap"', '"local"'));
    let r = await verify(edited);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/manifest\.json was edited: its run facts/);

    const added = copyRun('added');
    writeFileSync(path.join(added, 'evidence', 'extra.json'), '{}\n');
    r = await verify(added);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('evidence/extra.json is not listed in manifest.json');

    const linked = copyRun('symlink');
    rmSync(path.join(linked, 'evidence', 'tests.json'));
    symlinkSync('/etc/hostname', path.join(linked, 'evidence', 'tests.json'));
    r = await verify(linked);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('evidence/tests.json is a symlink to /etc/hostname');
  });
});

describe('trace verify on bad input: one sentence, exit 1 for tampering, 2 for unusable input', () => {
  const oneSentence = (stderr: string) => expect(stderr.trim().split('\n')).toHaveLength(1);

  it('a truncated trace names the record it was cut in', async () => {
    const dir = copyRun('truncated');
    const trace = path.join(dir, 'trace.jsonl');
    const text = readFileSync(trace, 'utf8');
    writeFileSync(trace, text.slice(0, Math.floor(text.length / 2)));
    const r = await verify(dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/trace\.jsonl .*record \d+|trace\.jsonl has \d+ records/);
    oneSentence(r.stderr);
  });

  it('a trace cut at a record boundary disagrees with the manifest', async () => {
    const dir = copyRun('cut-at-boundary');
    const trace = path.join(dir, 'trace.jsonl');
    const lines = readFileSync(trace, 'utf8').split('\n').filter(Boolean);
    writeFileSync(trace, `${lines.slice(0, -3).join('\n')}\n`);
    const r = await verify(dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`trace.jsonl has ${lines.length - 3} records`);
    oneSentence(r.stderr);
  });

  it('a record without its hash field is named', async () => {
    const dir = copyRun('no-hash');
    const trace = path.join(dir, 'trace.jsonl');
    const lines = readFileSync(trace, 'utf8').split('\n').filter(Boolean);
    const rec = JSON.parse(lines[3] as string);
    delete rec.hash;
    lines[3] = JSON.stringify(rec);
    writeFileSync(trace, `${lines.join('\n')}\n`);
    const r = await verify(dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("record 3 has no 'hash' field");
    oneSentence(r.stderr);
  });

  it('a manifest from a newer schema is unusable, exit 2', async () => {
    const dir = copyRun('newer');
    const mf = path.join(dir, 'manifest.json');
    const m = JSON.parse(readFileSync(mf, 'utf8'));
    m.schema_version = 99;
    writeFileSync(mf, JSON.stringify(m));
    const r = await verify(dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('schema_version 99, newer than this agentguard understands (2)');
    oneSentence(r.stderr);
  });

  it('a run without a manifest is unusable, exit 2', async () => {
    const dir = copyRun('no-manifest');
    rmSync(path.join(dir, 'manifest.json'));
    const r = await verify(dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('manifest.json is missing');
    oneSentence(r.stderr);
  });

  it('a 100 MB line: in the trace it is unusable (exit 2), in an evidence file it is named (exit 1)', async () => {
    const big = Buffer.alloc(100 * 1024 * 1024, 'a');
    const dir = copyRun('huge-trace');
    writeFileSync(path.join(dir, 'trace.jsonl'), Buffer.concat([big, Buffer.from('\n')]));
    let r = await verify(dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/trace\.jsonl is larger than \d+ bytes/);
    oneSentence(r.stderr);

    const dir2 = copyRun('huge-evidence');
    writeFileSync(path.join(dir2, 'evidence', 'syscalls.jsonl'), Buffer.concat([big, Buffer.from('\n')]));
    const before = statSync(path.join(dir2, 'evidence', 'syscalls.jsonl')).mtimeMs;
    r = await verify(dir2);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('evidence/syscalls.jsonl was changed');
    expect(statSync(path.join(dir2, 'evidence', 'syscalls.jsonl')).mtimeMs).toBe(before);
  }, 60_000);
});

describe('trace replay', () => {
  it('reproduces the stored verdict of the run, writing nothing, and differs under a lenient policy', async () => {
    const before = snapshot(runDir);
    const r = await execCli(['trace', 'replay', runDir, '--json'], { cwd: work });
    expect(r.code, r.stderr).toBe(0);
    const e = JSON.parse(r.stdout);
    expect(e).toMatchObject({ equivalent: true, verdict: { stored: 'FAIL', replayed: 'FAIL' } });
    expect(snapshot(runDir)).toEqual(before);

    // Beside the task's own config, so its relative paths resolve the same way.
    const text = readFileSync(firstConfig, 'utf8').replace(
      /^allowed_paths:.*(\n\s+-.*)*/m,
      "allowed_paths: ['**']",
    );
    cpSync(path.dirname(firstConfig), path.join(work, 'task-copy'), { recursive: true });
    const lenientInTask = path.join(work, 'task-copy', 'lenient.yaml');
    writeFileSync(lenientInTask, text);
    const other = await execCli(['trace', 'replay', runDir, '--config', lenientInTask, '--json'], {
      cwd: work,
    });
    expect(other.code, other.stderr).toBe(1);
    const diff = JSON.parse(other.stdout);
    expect(diff.equivalent).toBe(false);
    expect(diff.verdict).toEqual({ stored: 'FAIL', replayed: 'PASS' });
    expect(diff.checks).toEqual([{ id: 'scope', stored: false, replayed: true }]);
    expect(snapshot(runDir)).toEqual(before);
  });

  it('a run folder moved to another host path and renamed still verifies and replays to the same verdict', async () => {
    const moved = copyRun('moved/elsewhere-renamed');
    expect((await verify(moved)).code).toBe(0);
    const r = await execCli(['trace', 'replay', moved, '--json'], { cwd: work });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).verdict).toEqual({ stored: 'FAIL', replayed: 'FAIL' });
  });

  it('refuses a tampered run: not replayable, naming the file', async () => {
    const dir = copyRun('replay-tampered');
    writeFileSync(path.join(dir, 'evidence', 'tests.json'), '{}\n');
    const r = await execCli(['trace', 'replayability', dir], { cwd: work });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('not replayable: evidence/tests.json was changed');
  });

  it('an attack case (exfil-ssh-key, strace): replay reproduces its FAIL and every alert', async () => {
    const config = path.join(BENCHMARKS, 'attacks', 'exfil-ssh-key', 'config.yaml');
    const run = await execCli(['run', config, '--tracer', 'strace', '--sandbox', 'bwrap', '--json'], {
      cwd: work,
    });
    expect(run.code, run.stderr).toBe(1);
    const stored = JSON.parse(run.stdout);
    expect(stored.alerts.length).toBeGreaterThan(0);
    const r = await execCli(['trace', 'replay', stored.run_dir, '--json'], { cwd: work });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      equivalent: true,
      verdict: { stored: 'FAIL', replayed: 'FAIL' },
    });
    const show = await execCli(['trace', 'show', stored.run_dir], { cwd: work });
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(`alert ${stored.alerts[0].rule}`);
  }, 120_000);

  for (const task of tasks) {
    it(`${task}: replay of a demo run (mock-solve, tracer off) gives the stored verdict`, async () => {
      const run = await execCli(
        [
          'run',
          path.join(BENCHMARKS, task, 'config.yaml'),
          '--agent',
          'mock-solve',
          '--tracer',
          'off',
          '--json',
        ],
        { cwd: work },
      );
      expect(run.code, run.stderr).toBe(0);
      const dir = JSON.parse(run.stdout).run_dir;
      expect((await verify(dir)).code).toBe(0);
      const r = await execCli(['trace', 'replay', dir], { cwd: work });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^equivalent: PASS, score 100/);
      // analyze refreshes the reports of an intact run and seals it again.
      expect((await execCli(['analyze', dir], { cwd: work })).code).toBe(0);
      expect((await verify(dir)).code).toBe(0);
    }, 120_000);
  }
});

describe('reports list filters and export', () => {
  it('filters by task, agent, result and time, and exports the same rows as JSON or CSV', async () => {
    const all = JSON.parse(
      (await execCli(['reports', 'list', '--json', '--limit', '1000'], { cwd: work })).stdout,
    );
    expect(all.length).toBeGreaterThan(2);
    const task = tasks[0] as string;
    const byTask = JSON.parse(
      (
        await execCli(
          ['reports', 'list', '--json', '--task', task, '--result', 'FAIL', '--agent', 'mock-out-of-scope'],
          { cwd: work },
        )
      ).stdout,
    );
    expect(byTask.map((r: { run_id: string }) => r.run_id)).toEqual([report.run_id]);
    const future = await execCli(['reports', 'list', '--json', '--since', '2999-01-01'], { cwd: work });
    expect(JSON.parse(future.stdout)).toEqual([]);
    const past = await execCli(['reports', 'list', '--json', '--until', '2000-01-01'], { cwd: work });
    expect(JSON.parse(past.stdout)).toEqual([]);

    const json = JSON.parse((await execCli(['reports', 'export', '--format', 'json'], { cwd: work })).stdout);
    expect(json.map((r: { run_id: string }) => r.run_id)).toEqual(
      all.map((r: { run_id: string }) => r.run_id),
    );
    const csv = await execCli(['reports', 'export', '--format', 'csv', '--result', 'PASS'], { cwd: work });
    expect(csv.code).toBe(0);
    const lines = csv.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^run_id,kind,name,/);
    expect(lines.length - 1).toBe(all.filter((r: { result: string }) => r.result === 'PASS').length);

    const bad = await execCli(['reports', 'export', '--format', 'xml'], { cwd: work });
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe(
      'agentguard: --format xml is not an export format. Fix: use --format json or --format csv.',
    );
    const badDate = await execCli(['reports', 'list', '--since', 'soon'], { cwd: work });
    expect(badDate.code).toBe(2);
  });
});

describe('batch manifest', () => {
  it('a matrix seals its folder and commits to each child run; verify names a changed child file', async () => {
    const m = path.join(work, 'matrix.yaml');
    writeFileSync(
      m,
      [
        `tasks: [${path.join(BENCHMARKS, 'js-slugify', 'config.yaml')}]`,
        'agents:',
        '  - mock-solve',
        '  - mock-noop',
      ].join('\n'),
    );
    const r = await execCli(['matrix', m, '--tracer', 'off', '--workers', '1', '--json'], { cwd: work });
    expect(r.code, r.stderr).toBe(1);
    const s = JSON.parse(r.stdout);
    const batchDir = path.join(work, '.agentguard', 'batches', s.batch_id);
    const manifest = JSON.parse(readFileSync(path.join(batchDir, 'manifest.json'), 'utf8'));
    expect(manifest.kind).toBe('batch');
    expect(manifest.runs).toHaveLength(2);
    expect(manifest.files.map((f: { path: string }) => f.path)).toContain('summary.json');
    const ok = await verify(batchDir);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('2 runs match');

    const child = manifest.runs[1].run_dir as string;
    const tests = path.join(child, 'evidence', 'tests.json');
    const original = readFileSync(tests);
    writeFileSync(tests, Buffer.concat([original, Buffer.from(' ')]));
    const bad = await verify(batchDir);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(
      `run ${manifest.runs[1].run_id} (attempt 1): evidence/tests.json was changed`,
    );
    writeFileSync(tests, original);

    const summary = path.join(batchDir, 'summary.md');
    writeFileSync(summary, `${readFileSync(summary, 'utf8')}x`);
    const badSummary = await verify(batchDir);
    expect(badSummary.code).toBe(1);
    expect(badSummary.stderr).toContain('summary.md was changed');
  }, 120_000);
});

describe('replay over the whole attack suite (strace, bwrap)', () => {
  const attacks = readdirSync(path.join(BENCHMARKS, 'attacks')).filter((d) =>
    existsSync(path.join(BENCHMARKS, 'attacks', d, 'config.yaml')),
  );
  for (const name of attacks) {
    it(`${name}: the run verifies and replay gives its stored verdict, checks and alerts`, async () => {
      const config = path.join(BENCHMARKS, 'attacks', name, 'config.yaml');
      const run = await execCli(['run', config, '--tracer', 'strace', '--sandbox', 'bwrap', '--json'], {
        cwd: work,
      });
      expect([0, 1], run.stderr).toContain(run.code);
      const stored = JSON.parse(run.stdout);
      expect((await verify(stored.run_dir)).code).toBe(0);
      const r = await execCli(['trace', 'replay', stored.run_dir, '--json'], { cwd: work });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).verdict).toEqual({ stored: stored.result, replayed: stored.result });
    }, 120_000);
  }
});
