import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, InputError } from '../errors.js';
import type { BatchPlan } from '../reports/batch-types.js';
import { checkResumeSource, resumeTarget } from './resume-plan.js';

const out = mkdtempSync(path.join(tmpdir(), 'ag-resume-plan-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

const plan = (over: Partial<BatchPlan>): BatchPlan => ({
  schema_version: 1,
  batch_id: 'b1',
  kind: 'benchmark',
  created_at: '2026-01-01T00:00:00.000Z',
  source: null,
  options: { workers: 1, fail_fast: false },
  attempts: [],
  hashes: { configs: {}, repos: {} },
  ...over,
});

describe('--resume', () => {
  it('a benchmark resumes from its one task config; another config or kind is refused', () => {
    const p = plan({ hashes: { configs: { '/t/a/config.yaml': 'x' }, repos: {} } });
    expect(() => checkResumeSource('D', p, 'benchmark', '/t/a/config.yaml')).not.toThrow();
    expect(() => checkResumeSource('D', p, 'benchmark', '/t/b/config.yaml')).toThrow(
      new ConfigError(
        "--resume D: the batch was started from /t/a/config.yaml, not /t/b/config.yaml. Fix: pass /t/a/config.yaml, or 'agentguard resume D'.",
      ),
    );
    expect(() => checkResumeSource('D', p, 'matrix', '/t/a/config.yaml')).toThrow(
      /that batch is a benchmark, not a matrix/,
    );
  });

  it('a suite or matrix resumes from its batch file, compared as an absolute path', () => {
    const p = plan({ kind: 'suite', source: { file: path.resolve('s.yaml'), sha256: 'x' } });
    expect(() => checkResumeSource('D', p, 'suite', 's.yaml')).not.toThrow();
    expect(() => checkResumeSource('D', p, 'suite', 'other.yaml')).toThrow(/was started from .*s\.yaml/);
  });

  it('finds a batch by folder or by id, and refuses what is not one', () => {
    const dir = path.join(out, 'batches', 'b1');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'batch.json'), JSON.stringify(plan({})));
    expect(resumeTarget(dir, out).dir).toBe(dir);
    expect(resumeTarget('b1', out).dir).toBe(dir);
    expect(() => resumeTarget('b2', out)).toThrow(InputError);
    expect(() => resumeTarget('b2', out)).toThrow(/is not a batch. Fix: pass a folder under/);
    // A batch folder renamed away from its id would put child runs in the wrong output dir.
    const moved = path.join(out, 'batches', 'renamed');
    mkdirSync(moved);
    writeFileSync(path.join(moved, 'batch.json'), JSON.stringify(plan({})));
    expect(() => resumeTarget(moved, out)).toThrow(/holds batch b1 under another name/);
  });
});
