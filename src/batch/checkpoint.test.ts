import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Row } from '../reports/batch-types.js';
import { appendCheckpoint, isSetupError, readCheckpoint } from './checkpoint.js';

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

  it("lets a later row replace a setup ERROR (resume's retry), and nothing else", () => {
    const file = path.join(dir, 'retry.jsonl');
    const setupError = { ...row(0, 'ERROR'), reason: 'sandbox missing' };
    appendCheckpoint(file, setupError);
    appendCheckpoint(file, { ...row(1, 'ERROR'), run_id: 'r1', run_dir: '/runs/r1' });
    appendCheckpoint(file, row(0, 'FAIL'));
    appendCheckpoint(file, row(1, 'PASS'));
    appendCheckpoint(file, row(0, 'PASS'));
    expect(isSetupError(setupError)).toBe(true);
    // Index 0: the setup error is replaced by the retry, which then stands. Index 1 ran (it has a
    // run), so its ERROR is a judged outcome and stays.
    expect(readCheckpoint(file).map((r) => [r.index, r.result])).toEqual([
      [0, 'FAIL'],
      [1, 'ERROR'],
    ]);
  });
});
