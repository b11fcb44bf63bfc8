import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunContext } from '../pipeline/context.js';
import type { BatchPlan } from '../reports/batch-types.js';
import { runBatch } from './run-batch.js';

const out = mkdtempSync(path.join(tmpdir(), 'ag-worker-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('runBatch with a worker', () => {
  it('runs the worker instead of the pipeline; a throw is that attempt ERROR row, the rest still run', async () => {
    const ctx: RunContext = { outputDir: out, env: {}, now: () => new Date(), log: () => {}, history: false };
    const plan: BatchPlan = {
      schema_version: 1,
      batch_id: 'worker-batch',
      kind: 'matrix',
      created_at: new Date().toISOString(),
      source: null,
      options: { workers: 2, fail_fast: false },
      attempts: [0, 1, 2].map((index) => ({
        index,
        agent: { name: 'w', kind: 'command', argv: ['never-run'] },
        task: 't',
        config_path: '/nonexistent/config.yaml',
        trial: index + 1,
      })),
      hashes: { configs: {}, repos: {} },
    };
    const seen: number[] = [];
    const summary = await runBatch(ctx, plan, () => {}, {
      worker: async (attempt, batchId) => {
        seen.push(attempt.index);
        expect(batchId).toBe('worker-batch');
        if (attempt.index === 1) throw new Error('worker broke');
        return {
          run_id: `r${attempt.index}`,
          run_dir: null,
          result: 'PASS',
          score: 100,
          tests_passed: true,
          failed_checks: [],
          alerts: [],
          benchmark_version: null,
        };
      },
    });
    expect(seen.sort()).toEqual([0, 1, 2]);
    expect(summary.rows.map((r) => [r.index, r.result, r.run_id])).toEqual([
      [0, 'PASS', 'r0'],
      [1, 'ERROR', null],
      [2, 'PASS', 'r2'],
    ]);
    expect(summary.rows[1]?.reason).toBe('worker broke');
  });
});
