import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HISTORY_SCHEMA_VERSION } from '../../src/history/db.js';
import { BENCHMARKS, execCli, ownStderr, ROOT, tempDir } from './exec-cli.js';

// Three real runs into one history: an attack (alerts), a solved demo task (PASS) and an agent
// that writes outside its scope (the scope check fails).
const work = tempDir('ag-prov-hist-');
afterAll(() => rmSync(work, { recursive: true, force: true }));
const slugify = path.join(BENCHMARKS, 'js-slugify', 'config.yaml');
type Report = {
  run_id: string;
  run_dir: string;
  result: string;
  failed_checks: string[];
  alerts: { rule: string }[];
  diff: { baseline_sha: string };
};
let attack: Report;
let solved: Report;
let outOfScope: Report;
const cli = (...args: string[]) => execCli(args, { cwd: work });

beforeAll(async () => {
  const a = await cli(
    'run',
    path.join(BENCHMARKS, 'attacks', 'exfil-ssh-key', 'config.yaml'),
    '--tracer',
    'strace',
    '--sandbox',
    'bwrap',
    '--json',
  );
  expect(a.code, a.stderr).toBe(1);
  attack = JSON.parse(a.stdout);
  const s = await cli('run', slugify, '--agent', 'mock-solve', '--tracer', 'off', '--json');
  expect(s.code, s.stderr).toBe(0);
  solved = JSON.parse(s.stdout);
  const o = await cli('run', slugify, '--agent', 'mock-out-of-scope', '--tracer', 'off', '--json');
  expect(o.code, o.stderr).toBe(1);
  outOfScope = JSON.parse(o.stdout);
  expect(outOfScope.failed_checks).toContain('scope');
  expect(attack.alerts.map((x) => x.rule)).toContain('secrets-canary-read');
}, 180_000);

describe('manifest git state', () => {
  it("records this checkout's commit and dirty flag, and the task repo's baseline commit", () => {
    const manifest = JSON.parse(readFileSync(path.join(solved.run_dir, 'manifest.json'), 'utf8'));
    const git = (...args: string[]) =>
      execFileSync('git', ['-C', ROOT, ...args], { encoding: 'utf8' }).trim();
    expect(manifest.schema_version).toBe(2);
    expect(manifest.git).toEqual({
      agentguard: {
        source: 'checkout',
        version: manifest.agentguard.version,
        commit: git('rev-parse', 'HEAD'),
        dirty: git('status', '--porcelain', '--untracked-files=no') !== '',
      },
      task_baseline: solved.diff.baseline_sha,
    });
    expect(solved.diff.baseline_sha).toMatch(/^[0-9a-f]{40}$/);
  });

  it('the git state is sealed: editing it in the manifest is tampering (exit 1)', async () => {
    expect((await cli('trace', 'verify', solved.run_dir)).code).toBe(0);
    const copy = path.join(work, 'edited-git');
    cpSync(solved.run_dir, copy, { recursive: true });
    const file = path.join(copy, 'manifest.json');
    const manifest = JSON.parse(readFileSync(file, 'utf8'));
    manifest.git.agentguard.dirty = !manifest.git.agentguard.dirty;
    writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
    const r = await cli('trace', 'verify', copy);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('manifest.json');
  });
});

describe('reports list --check / --rule', () => {
  const ids = async (...args: string[]) => {
    const r = await cli('reports', 'list', '--json', ...args);
    expect(r.code, r.stderr).toBe(0);
    return (JSON.parse(r.stdout) as { run_id: string }[]).map((x) => x.run_id);
  };

  it('--check keeps runs where that check failed, --rule runs with that rule’s alert', async () => {
    expect(await ids('--check', 'scope')).toEqual([outOfScope.run_id]);
    expect(await ids('--rule', 'secrets-canary-read')).toEqual([attack.run_id]);
    expect(await ids('--rule', 'secrets-canary-read', '--result', 'PASS')).toEqual([]);
    expect((await ids()).sort()).toEqual([attack.run_id, solved.run_id, outOfScope.run_id].sort());
    expect(await ids('--limit', '1')).toHaveLength(1);
  });

  it('a mistyped check id is refused in one sentence with the likely id (exit 2)', async () => {
    const r = await cli('reports', 'list', '--check', 'scop');
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      "agentguard: --check scop is not a check id. Fix: did you mean --check scope? 'agentguard checks' lists them.",
    );
  });

  it('an empty list for a rule no default rule is named says so, with the likely id', async () => {
    const r = await cli('reports', 'list', '--rule', 'read-ssh-key');
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("no default rule is named 'read-ssh-key'");
    expect(r.stderr).toContain('did you mean --rule secrets-ssh-key-read?');
    const known = await cli('reports', 'list', '--rule', 'secrets-ssh-key-read');
    expect(ownStderr(known.stderr)).toBe('');
  });
});

describe('reports trends and incidents', () => {
  it('trends: per agent, task and day; per benchmark version with --by benchmark', async () => {
    const r = await cli('reports', 'trends', '--json', '--task', 'js-slugify');
    expect(r.code, r.stderr).toBe(0);
    const day = new Date().toISOString().slice(0, 10);
    const rows = JSON.parse(r.stdout) as { agent: string; period: string; runs: number; pass_rate: number }[];
    expect(rows.map((t) => [t.agent, t.period, t.runs, t.pass_rate])).toEqual([
      ['mock-out-of-scope', day, 1, 0],
      ['mock-solve', day, 1, 1],
    ]);
    const b = await cli('reports', 'trends', '--by', 'benchmark', '--json', '--agent', 'mock-solve');
    expect(b.code, b.stderr).toBe(0);
    expect(JSON.parse(b.stdout)[0].period).toMatch(/@/);
    const text = await cli('reports', 'trends');
    expect(text.stdout).toMatch(/mock-solve\s+js-slugify\s+\d{4}-\d{2}-\d{2}\s+1\s+100%\s+100\.0/);
    const bad = await cli('reports', 'trends', '--by', 'week');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--by week is not a trend period. Fix: use --by day or --by benchmark.');
  });

  it('incidents: alert rules with run counts, the latest run and the agents', async () => {
    const r = await cli('reports', 'incidents', '--json');
    expect(r.code, r.stderr).toBe(0);
    const found = JSON.parse(r.stdout);
    expect(found.runs_scanned).toBe(3);
    expect(found.runs_unknown).toBe(0);
    const rules = [...new Set(attack.alerts.map((x) => x.rule))].sort();
    expect(found.incidents.map((i: { rule: string }) => i.rule).sort()).toEqual(rules);
    expect(found.incidents[0]).toMatchObject({ runs: 1, latest_run: attack.run_id });
    const text = await cli('reports', 'incidents');
    expect(text.stdout).toContain(`secrets-canary-read`);
    expect(text.stdout).toContain(`${rules.length} rules over 3 runs`);
  });
});

describe('reports show size limit', () => {
  it('refuses a report over 16 MiB, naming the file and the limit (exit 2)', async () => {
    const md = path.join(solved.run_dir, 'report.md');
    const before = readFileSync(md);
    try {
      appendFileSync(md, Buffer.alloc(16 * 1024 * 1024 + 1, 'x'));
      const r = await cli('reports', 'show', solved.run_id);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      const size = before.length + 16 * 1024 * 1024 + 1;
      expect(r.stderr).toContain(
        `${md} is ${size} bytes, over the 16 MiB (16777216 bytes) 'reports show' shows. Fix: open the file directly`,
      );
    } finally {
      writeFileSync(md, before);
    }
    expect((await cli('reports', 'show', solved.run_id)).code).toBe(0);
  });
});

describe('a real version 3 history.db through the CLI', () => {
  it('is migrated on first use; its attack run is found by --rule and counted by incidents', async () => {
    const dir = path.join(work, 'v3', '.agentguard');
    mkdirSync(dir, { recursive: true });
    const fixture = path.join(ROOT, 'test', 'fixtures', 'history-v3');
    cpSync(fixture, dir, { recursive: true });
    const raw = new Database(path.join(dir, 'history.db'));
    const set = raw.prepare('UPDATE runs SET report_json = ? WHERE run_id = ?');
    for (const id of readdirSync(path.join(dir, 'runs')))
      set.run(path.join(dir, 'runs', id, 'report.json'), id);
    raw.close();
    const opts = { cwd: path.join(work, 'v3') };
    const r = await execCli(['reports', 'list', '--rule', 'secrets-canary-read', '--json'], opts);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).map((x: { run_id: string }) => x.run_id)).toEqual([
      '20261203-160126-e17fd2a9',
    ]);
    const i = await execCli(['reports', 'incidents', '--json'], opts);
    expect(JSON.parse(i.stdout)).toMatchObject({ runs_scanned: 2, runs_unknown: 0 });
    const check = new Database(path.join(dir, 'history.db'), { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(HISTORY_SCHEMA_VERSION);
    check.close();
  });
});
