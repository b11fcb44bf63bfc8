import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Attempt } from '../reports/batch-types.js';
import { type AttemptResult, checkResult, jobId, versionRefusal, versionStamp } from './job.js';
import { keyId, signValue, type WorkerKey } from './worker-key.js';

const attempt = (index: number): Attempt => ({
  index,
  agent: { name: 'mock-solve', kind: 'builtin', adapter: 'mock-solve' },
  task: 't',
  config_path: '/x/config.yaml',
  trial: 1,
});
const plan = { batch_id: 'b1', attempts: [attempt(0), attempt(1)] };
const newKey = (): WorkerKey => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privateKey,
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    id: keyId(publicKey),
  };
};
const worker = newKey();
const stranger = newKey();
const keys = new Map([[worker.id, createPublicKey(worker.publicPem)]]);
type Unsigned = Omit<AttemptResult, 'signed_by' | 'signature'>;
const body = (over: Partial<Unsigned>): Unsigned => ({
  schema: 1,
  batch_id: 'b1',
  index: 0,
  worker: { host: 'h', pid: 1 },
  outcome: {
    run_id: '20261205-110000-0a1b2c3d',
    result: 'PASS',
    score: 100,
    tests_passed: true,
    failed_checks: [],
    alerts: [],
    benchmark_version: null,
  },
  remote_run_dir: '/w/runs/r',
  report_sha256: 'a'.repeat(64),
  manifest_sha256: 'b'.repeat(64),
  evidence: null,
  ...over,
});
const result = (over: Partial<Unsigned>, key = worker) => signValue(body(over), key);

describe('checkResult', () => {
  it('accepts the signed result of the very attempt, once', () => {
    expect(checkResult(plan, attempt(0), result({}), new Set(), keys).ok).toBe(true);
    expect(checkResult(plan, attempt(0), result({}), new Set([0]), keys)).toEqual({
      ok: false,
      reason: 'attempt 0 already has a result',
    });
  });

  it('rejects a result for an unknown attempt, another batch or another attempt', () => {
    expect(checkResult(plan, attempt(0), result({ index: 7 }), new Set(), keys)).toEqual({
      ok: false,
      reason: 'batch b1 has no attempt 7',
    });
    expect(checkResult(plan, attempt(0), result({ batch_id: 'b2' }), new Set(), keys).ok).toBe(false);
    expect(checkResult(plan, attempt(0), result({ index: 1 }), new Set(), keys).ok).toBe(false);
    expect(checkResult(plan, attempt(0), 'done', new Set(), keys).ok).toBe(false);
  });

  it('rejects a result no registered worker signed, or changed after signing, naming why', () => {
    const reason = (v: unknown) => {
      const c = checkResult(plan, attempt(0), v, new Set(), keys);
      return c.ok ? 'accepted' : c.reason;
    };
    expect(reason(body({}))).toMatch(/^it is not signed/);
    expect(reason(result({}, stranger))).toMatch(
      /^it is signed by key [0-9a-f]{16}…, which is not registered/,
    );
    const changed = { ...result({}), outcome: { ...body({}).outcome, result: 'FAIL' } };
    expect(reason(changed)).toMatch(/signature .* does not match its content/);
  });

  it('rejects a run id that is a path, even when a registered worker signed it', () => {
    for (const run_id of ['../../x', '/etc', 'a/b', '..']) {
      const c = checkResult(
        plan,
        attempt(0),
        result({ outcome: { ...body({}).outcome, run_id } }),
        new Set(),
        keys,
      );
      expect(c.ok ? 'accepted' : c.reason).toMatch(/field 'outcome\.run_id'/);
    }
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
