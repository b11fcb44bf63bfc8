import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HISTORY_SCHEMA_VERSION, openHistory } from './db.js';
import type { History, RecordableRun } from './types.js';

const FIXTURE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test/fixtures/history-v3');
const ATTACK = '20261203-160126-e17fd2a9';
const DEMO = '20261203-160129-08d5a5ec';

let dir: string;
const opened: History[] = [];
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ag-history-v4-'));
});
afterEach(() => {
  for (const h of opened.splice(0)) h.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The real version 3 file, copied, with its rows pointing at the copied report.json files. */
function v3Copy(): string {
  cpSync(FIXTURE, dir, { recursive: true });
  const dbPath = path.join(dir, 'history.db');
  const raw = new Database(dbPath);
  try {
    expect(raw.pragma('user_version', { simple: true })).toBe(3);
    const set = raw.prepare('UPDATE runs SET report_json = ? WHERE run_id = ?');
    for (const id of readdirSync(path.join(dir, 'runs')))
      set.run(path.join(dir, 'runs', id, 'report.json'), id);
  } finally {
    raw.close();
  }
  return dbPath;
}

const open = (file: string) => {
  const h = openHistory(file);
  opened.push(h);
  return h;
};

describe('history schema 3 → 4 (runs.alert_rules)', () => {
  it('migrates a real version 3 file, filling each run’s alert rules from its report.json', () => {
    const dbPath = v3Copy();
    const h = open(dbPath);
    expect(h.getRun(ATTACK)).toMatchObject({
      result: 'FAIL',
      alert_rules: ['net-proxy-not-allowed', 'secrets-canary-read'],
    });
    expect(h.getRun(DEMO)).toMatchObject({ result: 'PASS', alert_rules: [] });
    expect(h.listRuns({ rule: 'secrets-canary-read' }).map((r) => r.run_id)).toEqual([ATTACK]);
    expect(h.listRuns({ rule: 'no-such-rule' })).toEqual([]);
    // The trace heads and manifests version 3 recorded are kept.
    expect(h.getRun(ATTACK)?.trace_head).toMatch(/^[0-9a-f]{64}$/);
    h.close();
    const raw = new Database(dbPath, { readonly: true });
    try {
      expect(raw.pragma('user_version', { simple: true })).toBe(HISTORY_SCHEMA_VERSION);
    } finally {
      raw.close();
    }
  });

  it('a run whose report.json is gone keeps null (not known), and is not found by --rule', () => {
    const dbPath = v3Copy();
    rmSync(path.join(dir, 'runs', ATTACK), { recursive: true });
    const h = open(dbPath);
    expect(h.getRun(ATTACK)?.alert_rules).toBeNull();
    expect(h.getRun(DEMO)?.alert_rules).toEqual([]);
    expect(h.listRuns({ rule: 'secrets-canary-read' })).toEqual([]);
    // Recording the run again (analyze) fills it.
    const row = h.getRun(ATTACK);
    if (!row) throw new Error('row vanished');
    const again: RecordableRun = {
      ...row,
      task: { name: row.name },
      agent: { name: row.agent, model: row.model },
      benchmark: { id: row.benchmark_id, version: row.benchmark_version, category: null, difficulty: null },
      alerts: [{ rule: 'secrets-canary-read' }, { rule: 'secrets-canary-read' }],
    };
    h.recordRun(again, { report_json: row.report_json, report_md: row.report_md });
    expect(h.getRun(ATTACK)?.alert_rules).toEqual(['secrets-canary-read']);
  });
});

describe('listRuns by failed check and by alert rule', () => {
  it('matches membership, not substrings, and combines with other filters', () => {
    const h = open(path.join(dir, 'h.db'));
    const base = {
      run_dir: '/r',
      started_at: '2026-01-01T00:00:00.000Z',
      finished_at: '2026-01-01T00:01:00.000Z',
      duration_ms: 1,
      score: 50,
      task: { name: 't' },
      agent: { name: 'a', model: null },
      benchmark: { id: null, version: null, category: null, difficulty: null },
    } as const;
    const paths = { report_json: '/r.json', report_md: '/r.md' };
    h.recordRun({ ...base, run_id: 'x', result: 'FAIL', failed_checks: ['scope'], alerts: [] }, paths);
    h.recordRun(
      {
        ...base,
        run_id: 'y',
        result: 'FAIL',
        failed_checks: ['tests-pass'],
        alerts: [{ rule: 'read-ssh-key' }],
      },
      paths,
    );
    h.recordRun(
      { ...base, run_id: 'z', result: 'PASS', failed_checks: [], alerts: [{ rule: 'read-ssh-key-extra' }] },
      paths,
    );
    expect(h.listRuns({ check: 'scope' }).map((r) => r.run_id)).toEqual(['x']);
    expect(h.listRuns({ check: 'scop' })).toEqual([]);
    expect(h.listRuns({ rule: 'read-ssh-key' }).map((r) => r.run_id)).toEqual(['y']);
    expect(h.listRuns({ rule: 'read-ssh-key', result: 'PASS' })).toEqual([]);
    expect(h.listRuns({ check: "scope' OR '1'='1" })).toEqual([]);
  });
});
