import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { appendCheckpoint, readCheckpoint } from './checkpoint.js';
import type { Row } from './types.js';

const dir = mkdtempSync(path.join(tmpdir(), 'ag-ckpt-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const row = (index: number, result: Row['result'] = 'PASS'): Row => ({
  index,
  agent: 'a',
  task: 't',
  trial: 1,
  run_id: null,
  run_dir: null,
  result,
  score: null,
  tests_passed: null,
  failed_checks: [],
  alerts: [],
  benchmark_version: null,
  elapsed_ms: 1,
});

describe('checkpoint', () => {
  it('reads one row per attempt, drops a torn last line, and the first write wins', () => {
    const file = path.join(dir, 'c.jsonl');
    expect(readCheckpoint(file)).toEqual([]);
    appendCheckpoint(file, row(2));
    appendCheckpoint(file, row(0));
    appendCheckpoint(file, row(2, 'FAIL'));
    appendFileSync(file, '{"index": 1, "agent"');
    const rows = readCheckpoint(file);
    expect(rows.map((r) => [r.index, r.result])).toEqual([
      [0, 'PASS'],
      [2, 'PASS'],
    ]);
  });
});
