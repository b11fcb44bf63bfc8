import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InputError } from '../errors.js';
import { buildRunReport } from '../reports/build.js';
import { fixtureAnalysis, fixtureBundle } from '../reports/test-fixture.js';
import { HISTORY_SCHEMA_VERSION, openHistory } from './db.js';
import type { History, RecordableBatch, RecordableRun } from './types.js';

let dir: string;
let dbPath: string;
const opened: History[] = [];

function open(path = dbPath): History {
  const history = openHistory(path);
  opened.push(history);
  return history;
}

function run(overrides: Partial<RecordableRun> & { run_id: string }): RecordableRun {
  return {
    run_dir: `/runs/${overrides.run_id}`,
    started_at: '2025-03-01T10:00:00.000Z',
    finished_at: '2025-03-01T10:01:00.000Z',
    duration_ms: 60_000,
    result: 'PASS',
    score: 100,
    failed_checks: [],
    alerts: [],
    task: { name: 'task-a' },
    agent: { name: 'codex', model: 'gpt-x' },
    benchmark: { id: 'core/a', version: '1', category: 'bugfix', difficulty: 'easy' },
    ...overrides,
  };
}

const paths = (id: string) => ({
  report_json: `/runs/${id}/report.json`,
  report_md: `/runs/${id}/report.md`,
});

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentguard-history-'));
  dbPath = join(dir, '.agentguard', 'history.db');
});

afterEach(() => {
  for (const history of opened.splice(0)) history.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('openHistory', () => {
  it('records runs and reads them back, newest first, with filters', () => {
    const history = open();
    history.recordRun(run({ run_id: 'r1' }), { ...paths('r1'), manifest: '/runs/r1/manifest.json' });
    history.recordRun(
      run({
        run_id: 'r2',
        started_at: '2025-03-02T10:00:00.000Z',
        result: 'FAIL',
        score: 25,
        failed_checks: ['tests-pass', 'scope'],
        agent: { name: 'claude', model: null },
        benchmark: { id: 'core/b', version: null, category: null, difficulty: null },
      }),
      paths('r2'),
    );

    expect(history.listRuns().map((r) => r.run_id)).toEqual(['r2', 'r1']);
    expect(history.listRuns({ limit: 1 }).map((r) => r.run_id)).toEqual(['r2']);
    expect(history.listRuns({ agent: 'codex' }).map((r) => r.run_id)).toEqual(['r1']);
    expect(history.listRuns({ benchmark: 'core/b' }).map((r) => r.run_id)).toEqual(['r2']);
    expect(history.listRuns({ result: 'PASS' }).map((r) => r.run_id)).toEqual(['r1']);
    expect(history.listRuns({ result: 'PASS', agent: 'claude' })).toEqual([]);
    expect(history.listRuns({ kind: 'suite' })).toEqual([]);

    expect(history.getRun('r2')).toEqual({
      run_id: 'r2',
      kind: 'run',
      name: 'task-a',
      benchmark_id: 'core/b',
      benchmark_version: null,
      category: null,
      difficulty: null,
      agent: 'claude',
      model: null,
      result: 'FAIL',
      score: 25,
      failed_checks: ['tests-pass', 'scope'],
      started_at: '2025-03-02T10:00:00.000Z',
      finished_at: '2025-03-01T10:01:00.000Z',
      duration_ms: 60_000,
      run_dir: '/runs/r2',
      report_json: '/runs/r2/report.json',
      report_md: '/runs/r2/report.md',
      manifest_path: null,
      trace_head: null,
      batch_id: null,
      alert_rules: [],
      input_tokens: null,
      output_tokens: null,
      cost: null,
      currency: null,
    });
    expect(history.getRun('r1')?.manifest_path).toBe('/runs/r1/manifest.json');
    expect(history.getRun('nope')).toBeNull();
  });

  it("keeps a run's model tokens and cost", () => {
    const history = open();
    const usage = { input_tokens: 1200, output_tokens: 80, cost: 0.0042, currency: 'USD' };
    history.recordRun(run({ run_id: 'u1', usage }), paths('u1'));
    expect(history.getRun('u1')).toMatchObject(usage);
  });

  it('treats filter values as data, not SQL', () => {
    const history = open();
    history.recordRun(run({ run_id: 'r1' }), paths('r1'));
    expect(history.listRuns({ agent: "x' OR '1'='1" })).toEqual([]);
    expect(history.getRun("r1' OR '1'='1")).toBeNull();
  });

  it('replaces the row when a run is recorded again', () => {
    const history = open();
    history.recordRun(run({ run_id: 'r1', score: 40, result: 'FAIL' }), paths('r1'));
    history.recordRun(run({ run_id: 'r1', score: 90 }), paths('r1'));
    expect(history.listRuns()).toHaveLength(1);
    expect(history.getRun('r1')).toMatchObject({ score: 90, result: 'PASS' });
  });

  it('indexes a report built by buildRunReport', () => {
    const report = buildRunReport(fixtureBundle(), fixtureAnalysis());
    const history = open();
    history.recordRun(report, paths(report.run_id));
    expect(history.getRun(report.run_id)).toMatchObject({
      name: 'fix-off-by-one',
      benchmark_id: 'core/off-by-one',
      agent: 'scripted-agent',
      result: 'FAIL',
      failed_checks: ['tests-pass', 'scope'],
    });
  });

  it('uses WAL, a busy timeout and a schema version', () => {
    open().close();
    const raw = new Database(dbPath);
    try {
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(raw.pragma('user_version', { simple: true })).toBe(HISTORY_SCHEMA_VERSION);
    } finally {
      raw.close();
    }
  });

  it('rejects a bad limit', () => {
    expect(() => open().listRuns({ limit: 0 })).toThrow(/limit must be a positive integer/);
  });
});

describe('batches', () => {
  const batch = (over: Partial<RecordableBatch> = {}): RecordableBatch => ({
    batch_id: 'b1',
    kind: 'matrix',
    started_at: '2025-03-01T09:00:00.000Z',
    finished_at: null,
    complete: false,
    attempts_planned: 3,
    pass: 0,
    fail: 0,
    error: 0,
    not_run: 3,
    batch_dir: '/out/batches/b1',
    summary_json: null,
    run_ids: [],
    ...over,
  });

  it('records a batch at its start, updates it when its summary is written, and links its runs', () => {
    const history = open();
    history.recordBatch(batch());
    expect(history.getBatch('b1')).toMatchObject({ complete: false, finished_at: null, runs: 0, not_run: 3 });
    for (const id of ['r1', 'r2', 'solo']) history.recordRun(run({ run_id: id }), paths(id));
    history.recordBatch(
      batch({
        started_at: '2030-01-01T00:00:00.000Z', // ignored: a batch starts once
        finished_at: '2025-03-01T09:05:00.000Z',
        complete: true,
        pass: 1,
        fail: 1,
        error: 1,
        not_run: 0,
        summary_json: '/out/batches/b1/summary.json',
        run_ids: ['r1', 'r2'],
      }),
    );
    expect(history.getBatch('b1')).toEqual({
      batch_id: 'b1',
      kind: 'matrix',
      started_at: '2025-03-01T09:00:00.000Z',
      finished_at: '2025-03-01T09:05:00.000Z',
      complete: true,
      attempts_planned: 3,
      pass: 1,
      fail: 1,
      error: 1,
      not_run: 0,
      batch_dir: '/out/batches/b1',
      summary_json: '/out/batches/b1/summary.json',
      runs: 2,
    });
    expect(
      history
        .listRuns({ batch: 'b1' })
        .map((r) => r.run_id)
        .sort(),
    ).toEqual(['r1', 'r2']);
    expect(history.getRun('solo')?.batch_id).toBeNull();
    // Re-recording a run (agentguard analyze) keeps its link to the batch.
    history.recordRun(run({ run_id: 'r1', score: 50 }), paths('r1'));
    expect(history.getRun('r1')).toMatchObject({ score: 50, batch_id: 'b1' });

    history.recordBatch(batch({ batch_id: 'b0', started_at: '2025-02-01T00:00:00.000Z' }));
    expect(history.listBatches().map((b) => b.batch_id)).toEqual(['b1', 'b0']);
    expect(history.listBatches(1).map((b) => b.batch_id)).toEqual(['b1']);
    expect(history.getBatch('nope')).toBeNull();
  });

  it('migrates a version 1 history.db in place, keeping every run it indexed', () => {
    mkdirSync(join(dir, '.agentguard'), { recursive: true });
    const raw = new Database(dbPath);
    // The version 1 schema as released: runs without batch_id, no batches table.
    raw.exec(`CREATE TABLE runs (run_id TEXT PRIMARY KEY, kind TEXT NOT NULL, name TEXT NOT NULL,
      benchmark_id TEXT, benchmark_version TEXT, category TEXT, difficulty TEXT, agent TEXT NOT NULL,
      model TEXT, result TEXT NOT NULL, score REAL NOT NULL, failed_checks TEXT NOT NULL,
      started_at TEXT NOT NULL, finished_at TEXT NOT NULL, duration_ms INTEGER NOT NULL,
      run_dir TEXT NOT NULL, report_json TEXT NOT NULL, report_md TEXT NOT NULL, manifest_path TEXT);
      CREATE INDEX runs_started_at ON runs (started_at);`);
    raw
      .prepare(`INSERT INTO runs VALUES ('old', 'run', 'task-a', NULL, NULL, NULL, NULL, 'codex', NULL,
        'PASS', 100, '[]', '2024-01-01T00:00:00.000Z', '2024-01-01T00:01:00.000Z', 60000, '/runs/old',
        '/runs/old/report.json', '/runs/old/report.md', NULL)`)
      .run();
    raw.pragma('user_version = 1');
    raw.close();

    const history = open();
    expect(history.getRun('old')).toMatchObject({
      run_id: 'old',
      agent: 'codex',
      score: 100,
      batch_id: null,
    });
    history.recordBatch(batch({ run_ids: ['old'] }));
    expect(history.getRun('old')?.batch_id).toBe('b1');
    history.close();
    const check = new Database(dbPath);
    try {
      expect(check.pragma('user_version', { simple: true })).toBe(HISTORY_SCHEMA_VERSION);
    } finally {
      check.close();
    }
    // Opening again is a no-op: the migration ran once.
    expect(open().getRun('old')?.batch_id).toBe('b1');
  });

  it('migrates a version 2 history.db to version 3 (runs.trace_head), keeping its runs and batch links', () => {
    mkdirSync(join(dir, '.agentguard'), { recursive: true });
    const raw = new Database(dbPath);
    // The version 2 schema as released: version 1 plus runs.batch_id and the batches table.
    raw.exec(`CREATE TABLE runs (run_id TEXT PRIMARY KEY, kind TEXT NOT NULL, name TEXT NOT NULL,
      benchmark_id TEXT, benchmark_version TEXT, category TEXT, difficulty TEXT, agent TEXT NOT NULL,
      model TEXT, result TEXT NOT NULL, score REAL NOT NULL, failed_checks TEXT NOT NULL,
      started_at TEXT NOT NULL, finished_at TEXT NOT NULL, duration_ms INTEGER NOT NULL,
      run_dir TEXT NOT NULL, report_json TEXT NOT NULL, report_md TEXT NOT NULL, manifest_path TEXT,
      batch_id TEXT);
      CREATE TABLE batches (batch_id TEXT PRIMARY KEY, kind TEXT NOT NULL, started_at TEXT NOT NULL,
      finished_at TEXT, complete INTEGER NOT NULL, attempts_planned INTEGER NOT NULL, pass INTEGER NOT NULL,
      fail INTEGER NOT NULL, error INTEGER NOT NULL, not_run INTEGER NOT NULL, batch_dir TEXT NOT NULL,
      summary_json TEXT);`);
    raw
      .prepare(`INSERT INTO runs VALUES ('v2run', 'run', 'task-a', NULL, NULL, NULL, NULL, 'codex', NULL,
        'FAIL', 40, '["tests-pass"]', '2025-01-01T00:00:00.000Z', '2025-01-01T00:01:00.000Z', 60000,
        '/runs/v2run', '/runs/v2run/report.json', '/runs/v2run/report.md', NULL, 'bx')`)
      .run();
    raw
      .prepare(`INSERT INTO batches VALUES ('bx', 'suite', '2025-01-01T00:00:00.000Z', NULL, 0, 1, 0, 1, 0, 0,
        '/batches/bx', NULL)`)
      .run();
    raw.pragma('user_version = 2');
    raw.close();

    const history = open();
    expect(history.getRun('v2run')).toMatchObject({
      result: 'FAIL',
      failed_checks: ['tests-pass'],
      batch_id: 'bx',
      trace_head: null,
    });
    expect(history.getBatch('bx')).toMatchObject({ kind: 'suite', runs: 1 });
    const head = 'a'.repeat(64);
    history.recordRun(run({ run_id: 'v3run' }), {
      report_json: '/r.json',
      report_md: '/r.md',
      manifest: '/runs/v3run/manifest.json',
      trace_head: head,
    });
    expect(history.getRun('v3run')).toMatchObject({
      trace_head: head,
      manifest_path: '/runs/v3run/manifest.json',
    });
    history.close();
    const check = new Database(dbPath);
    try {
      expect(check.pragma('user_version', { simple: true })).toBe(HISTORY_SCHEMA_VERSION);
    } finally {
      check.close();
    }
  });
});

describe('damaged or foreign files', () => {
  const fix = 'move it aside: history is rebuilt from report.json files as runs are re-recorded';

  it('names the file and the fix when it is not a database', () => {
    open().close();
    writeFileSync(dbPath, 'this is not a database\n'.repeat(200));
    rmSync(`${dbPath}-wal`, { force: true });
    rmSync(`${dbPath}-shm`, { force: true });
    let error: unknown;
    try {
      open();
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message).toContain(dbPath);
    expect((error as Error).message).toContain(fix);
  });

  it('reports a damaged page as corrupt', () => {
    const history = open();
    for (let i = 0; i < 200; i += 1) history.recordRun(run({ run_id: `r${i}` }), paths(`r${i}`));
    history.close();
    // Fold the WAL into the file, then overwrite everything after the header page.
    const raw = new Database(dbPath);
    raw.pragma('wal_checkpoint(TRUNCATE)');
    raw.close();
    const bytes = readFileSync(dbPath);
    bytes.fill(0xa5, 4096);
    writeFileSync(dbPath, bytes);
    const attempt = () => open().listRuns({ limit: 500 });
    expect(attempt).toThrow(InputError);
    expect(attempt).toThrow(fix);
  });

  it('refuses a database from a newer agentguard', () => {
    open().close();
    const raw = new Database(dbPath);
    raw.pragma(`user_version = ${HISTORY_SCHEMA_VERSION + 1}`);
    raw.close();
    expect(() => open()).toThrow(/newer than this agentguard understands/);
  });

  it('refuses a SQLite file whose runs table is not ours', () => {
    const raw = new Database(dbPath.replace('.agentguard/', ''));
    raw.exec('CREATE TABLE runs (x TEXT)');
    raw.pragma(`user_version = ${HISTORY_SCHEMA_VERSION}`);
    raw.close();
    expect(() => open(dbPath.replace('.agentguard/', ''))).toThrow(/is not an agentguard history database/);
  });
});

describe('concurrent writers', () => {
  it('lets two connections interleave writes', () => {
    const a = open();
    const b = open();
    for (let i = 0; i < 10; i += 1) {
      a.recordRun(run({ run_id: `a${i}` }), paths(`a${i}`));
      b.recordRun(run({ run_id: `b${i}` }), paths(`b${i}`));
    }
    expect(a.listRuns({ limit: 100 })).toHaveLength(20);
    expect(b.getRun('a9')?.run_id).toBe('a9');
  });

  it('waits for a writer on another thread instead of failing', async () => {
    open().close();
    const sqlitePath = createRequire(import.meta.url).resolve('better-sqlite3');
    // Plain JavaScript on its own thread and connection: take the write lock, hold it, commit.
    const worker = new Worker(
      `
      const { parentPort, workerData } = require('node:worker_threads');
      const Database = require(workerData.sqlitePath);
      const db = new Database(workerData.dbPath);
      db.pragma('busy_timeout = 5000');
      db.exec('BEGIN IMMEDIATE');
      db.prepare("INSERT INTO runs (run_id, kind, name, agent, result, score, failed_checks, started_at, finished_at, duration_ms, run_dir, report_json, report_md) VALUES ('w1', 'run', 't', 'a', 'PASS', 100, '[]', 's', 'f', 1, 'd', 'j', 'm')").run();
      parentPort.postMessage('locked');
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 700);
      db.exec('COMMIT');
      db.close();
      `,
      { eval: true, workerData: { sqlitePath, dbPath } },
    );
    const exited = new Promise<number>((resolve, reject) => {
      worker.once('exit', resolve);
      worker.once('error', reject);
    });
    await new Promise<void>((resolve, reject) => {
      worker.once('message', () => resolve());
      worker.once('error', reject);
    });

    const history = open();
    const started = performance.now();
    history.recordRun(run({ run_id: 'main' }), paths('main'));
    const waited = performance.now() - started;

    expect(await exited).toBe(0);
    expect(waited).toBeGreaterThan(300);
    expect(
      history
        .listRuns()
        .map((r) => r.run_id)
        .sort(),
    ).toEqual(['main', 'w1']);
  });
});
