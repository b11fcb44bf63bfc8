import { describe, expect, it } from 'vitest';
import type { Attempt } from '../batch/types.js';
import { type AttemptResult, checkResult, jobId, versionRefusal, versionStamp } from './job.js';

const attempt = (index: number): Attempt => ({
  index,
  agent: { name: 'mock-solve', kind: 'builtin', adapter: 'mock-solve' },
  task: 't',
  config_path: '/x/config.yaml',
  trial: 1,
});
const plan = { batch_id: 'b1', attempts: [attempt(0), attempt(1)] };
const result = (over: Partial<AttemptResult>): AttemptResult => ({
  schema: 1,
  batch_id: 'b1',
  index: 0,
  worker: { host: 'h', pid: 1 },
  outcome: {
    run_id: 'r',
    result: 'PASS',
    score: 100,
    tests_passed: true,
    failed_checks: [],
    alerts: [],
    benchmark_version: null,
  },
  remote_run_dir: '/w/runs/r',
  report_sha256: 'a',
  manifest_sha256: null,
  evidence: null,
  ...over,
});

describe('checkResult', () => {
  it('accepts the result of the very attempt, once', () => {
    expect(checkResult(plan, attempt(0), result({}), new Set()).ok).toBe(true);
    expect(checkResult(plan, attempt(0), result({}), new Set([0]))).toEqual({
      ok: false,
      reason: 'attempt 0 already has a result',
    });
  });

  it('rejects a result for an unknown attempt, another batch or another attempt', () => {
    expect(checkResult(plan, attempt(0), result({ index: 7 }), new Set())).toEqual({
      ok: false,
      reason: 'batch b1 has no attempt 7',
    });
    expect(checkResult(plan, attempt(0), result({ batch_id: 'b2' }), new Set()).ok).toBe(false);
    expect(checkResult(plan, attempt(0), result({ index: 1 }), new Set()).ok).toBe(false);
    expect(checkResult(plan, attempt(0), 'done', new Set()).ok).toBe(false);
  });
});

describe('versions and ids', () => {
  it('refuses a job from another version with both versions in the reason', () => {
    expect(versionRefusal(versionStamp())).toBeNull();
    const reason = versionRefusal(
      { version: '9.9.9', collector_protocol: '3' },
      { version: '0.1.0', collector_protocol: '3' },
    );
    expect(reason).toContain('agentguard 0.1.0');
    expect(reason).toContain('agentguard 9.9.9');
    expect(
      versionRefusal(
        { version: '0.1.0', collector_protocol: '2' },
        { version: '0.1.0', collector_protocol: '3' },
      ),
    ).toContain('collector protocol 2');
  });

  it('gives one id per attempt, without colons', () => {
    expect(jobId('20261203T191000-ab', 3)).toBe('20261203T191000-ab.3');
    expect(jobId('a:b', 0)).not.toContain(':');
  });
});
