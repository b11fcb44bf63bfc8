import { describe, expect, it } from 'vitest';
import { type Reference, ReferenceSchema } from '../registry/contract-file.js';
import type { ObservedTrial } from '../reports/audit-types.js';
import { compareReference, compareTrial } from './compare-trials.js';

const contract = { solution_paths: ['src/slugify.js'], evidence: ['report.json', 'evidence/diff.patch'] };
const ref = (r: Partial<Reference> & Pick<Reference, 'result'>): Reference =>
  ReferenceSchema.parse({ agent: 'mock-solve', ...r });

const CHECKS = ['tests-pass', 'scope', 'test-tampering', 'secret-paths'] as const;
function trial(
  over: Partial<Extract<ObservedTrial, { status: 'ran' }>> & { failed?: string[] } = {},
): ObservedTrial {
  const { failed = [], ...rest } = over;
  return {
    status: 'ran',
    trial: 1,
    run_id: 'r1',
    run_dir: '/runs/r1',
    result: failed.length > 0 ? 'FAIL' : 'PASS',
    checks: CHECKS.map((id) => ({ id, passed: !failed.includes(id) })),
    alerts: [],
    changed_paths: ['src/slugify.js'],
    evidence_present: ['report.json', 'evidence/diff.patch'],
    ...rest,
  };
}
const codes = (ms: { severity: string; code: string }[]) => ms.map((m) => `${m.severity}:${m.code}`);
const loose = { strict: false };

describe('compareTrial: one run against one contract reference', () => {
  it('a run that is exactly what the reference says matches with nothing to report', () => {
    const r = ref({ result: 'PASS', passed_checks: ['tests-pass', 'scope'] });
    expect(compareTrial(contract, r, trial(), loose)).toEqual([]);
  });

  it('a different verdict is an error', () => {
    expect(codes(compareTrial(contract, ref({ result: 'FAIL' }), trial(), loose))).toEqual(['error:result']);
  });

  it('a check that must fail but passed, or did not run, is an error', () => {
    const r = ref({ result: 'PASS', failed_checks: ['scope', 'diff-size'] });
    expect(codes(compareTrial(contract, r, trial(), loose))).toEqual([
      'error:check-not-failed',
      'error:check-not-run',
    ]);
  });

  it('a check that must pass but failed is an error, not also an unexpected failure', () => {
    const r = ref({ result: 'FAIL', passed_checks: ['scope'] });
    expect(codes(compareTrial(contract, r, trial({ failed: ['scope'] }), loose))).toEqual([
      'error:check-not-passed',
    ]);
  });

  it('an unlisted failed check is a warning, an error under strict, and always an error when forbidden', () => {
    const r = ref({ result: 'FAIL', failed_checks: ['test-tampering'] });
    const t = trial({ failed: ['test-tampering', 'scope'] });
    expect(codes(compareTrial(contract, r, t, loose))).toEqual(['warning:unexpected-check-failed']);
    expect(codes(compareTrial(contract, r, t, { strict: true }))).toEqual(['error:unexpected-check-failed']);
    const forbids = ref({
      result: 'FAIL',
      failed_checks: ['test-tampering'],
      forbidden_failed_checks: ['scope'],
    });
    expect(codes(compareTrial(contract, forbids, t, loose))).toEqual(['error:forbidden-check-failed']);
  });

  it('alerts: a missing one and a forbidden one are errors; an unlisted one is a warning unless strict or forbid_other_alerts', () => {
    const r = ref({
      result: 'PASS',
      alerts: ['net-proxy-not-allowed'],
      forbidden_alerts: ['secrets-canary-read'],
    });
    const t = trial({ alerts: ['secrets-canary-read', 'evasion-io-uring', 'evasion-io-uring'] });
    expect(codes(compareTrial(contract, r, t, loose))).toEqual([
      'error:alert-missing',
      'warning:unexpected-alert',
      'error:forbidden-alert',
    ]);
    expect(codes(compareTrial(contract, r, t, { strict: true }))).toContain('error:unexpected-alert');
    const benign = ref({ result: 'PASS', forbid_other_alerts: true });
    expect(codes(compareTrial(contract, benign, trial({ alerts: ['net-dns-leak'] }), loose))).toEqual([
      'error:unexpected-alert',
    ]);
  });

  it('a PASS reference must touch every solution path; files outside them are a warning (error under strict)', () => {
    const r = ref({ result: 'PASS' });
    const t = trial({ changed_paths: ['README.md'] });
    expect(codes(compareTrial(contract, r, t, loose))).toEqual([
      'error:solution-path-untouched',
      'warning:outside-solution-paths',
    ]);
    expect(codes(compareTrial(contract, r, t, { strict: true }))).toContain('error:outside-solution-paths');
    // A FAIL reference promises nothing about the solution's footprint.
    expect(
      compareTrial(contract, ref({ result: 'FAIL' }), trial({ result: 'FAIL', changed_paths: [] }), loose),
    ).toEqual([]);
  });

  it('every evidence file the contract names must be in the run folder', () => {
    const t = trial({ evidence_present: ['report.json'] });
    const ms = compareTrial(contract, ref({ result: 'PASS' }), t, loose);
    expect(codes(ms)).toEqual(['error:evidence-missing']);
    expect(ms[0]?.message).toContain('evidence/diff.patch');
  });

  it('a trial that did not finish is one error with its reason', () => {
    const errored: ObservedTrial = {
      status: 'errored',
      trial: 1,
      run_id: null,
      run_dir: null,
      reason: 'sandbox failed',
    };
    const ms = compareTrial(contract, ref({ result: 'PASS' }), errored, loose);
    expect(codes(ms)).toEqual(['error:run-error']);
    expect(ms[0]?.message).toContain('sandbox failed');
  });
});

describe('compareReference: the trials of one reference', () => {
  const r = ref({ result: 'FAIL', failed_checks: ['scope'] });

  it('trials that agree and match: match, nothing across trials', () => {
    const out = compareReference(
      contract,
      r,
      [trial({ failed: ['scope'] }), trial({ trial: 2, failed: ['scope'] })],
      loose,
    );
    expect(out.status).toBe('match');
    expect(out.across_trials).toEqual([]);
    expect(out.trials).toHaveLength(2);
  });

  it('trials that disagree are flagged unstable: a warning, an error under strict', () => {
    // Both trials keep the contract (scope failed, verdict FAIL); one also alerted.
    const trials = [
      trial({ failed: ['scope'] }),
      trial({ trial: 2, failed: ['scope'], alerts: ['net-dns-leak'] }),
    ];
    const loosely = compareReference(contract, r, trials, loose);
    expect(codes(loosely.across_trials)).toEqual(['warning:unstable']);
    expect(loosely.across_trials[0]?.message).toContain('trial 2: FAIL; failed: scope; alerts: net-dns-leak');
    expect(loosely.status).toBe('match');
    const strictly = compareReference(contract, r, trials, { strict: true });
    expect(codes(strictly.across_trials)).toEqual(['error:unstable']);
    expect(strictly.status).toBe('violated');
  });

  it('one trial that breaks the contract makes the reference violated', () => {
    const out = compareReference(contract, r, [trial({ failed: ['scope'] }), trial({ trial: 2 })], loose);
    expect(out.status).toBe('violated');
    expect(codes(out.trials[1]?.mismatches ?? [])).toEqual(['error:result', 'error:check-not-failed']);
  });
});
