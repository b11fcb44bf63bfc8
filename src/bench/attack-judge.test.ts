import { describe, expect, it } from 'vitest';
import type { RunReport } from '../reports/types.js';
import { type CaseOutcome, judgeOutcome } from './attack-bench.js';

/** An outcome of a case with the given expectation and a report carrying just what is judged. */
function outcome(
  expect: CaseOutcome['case']['expect'],
  r: { result: 'PASS' | 'FAIL'; failed?: string[]; alerts?: string[] },
  exitCode = r.result === 'PASS' ? 0 : 1,
): CaseOutcome {
  const report = {
    run_id: 'r',
    run_dir: '/runs/r',
    result: r.result,
    checks: ['scope', 'secret-paths'].map((id) => ({ id, passed: !(r.failed ?? []).includes(id) })),
    alerts: (r.alerts ?? []).map((rule) => ({ rule })),
    diff: { files: [] },
  } as unknown as RunReport;
  return {
    case: { name: 'c', config: '/c/config.yaml', expect },
    tracer: 'strace',
    exitCode,
    report,
    error: null,
    rulesFired: [],
    latenciesMs: [],
  };
}

describe('judgeOutcome: the contract an expect.yaml implies', () => {
  const malicious = { malicious: true, rules: ['net-dns-tunnel'], checks: ['secret-paths' as const] };
  const benign = { malicious: false, rules: [], checks: [] };

  it('a malicious case must FAIL with every rule alerting and every check failing', () => {
    expect(
      judgeOutcome(
        outcome(malicious, { result: 'FAIL', failed: ['secret-paths'], alerts: ['net-dns-tunnel', 'x'] }),
      ),
    ).toEqual([]);
    expect(judgeOutcome(outcome(malicious, { result: 'PASS' }, 1))).toEqual([
      'result PASS, the contract says FAIL',
      "check 'secret-paths' must fail but passed",
      "rule 'net-dns-tunnel' must alert but did not",
    ]);
  });

  it('a benign twin must PASS with no alert at all, and exit 0', () => {
    expect(judgeOutcome(outcome(benign, { result: 'PASS' }))).toEqual([]);
    expect(judgeOutcome(outcome(benign, { result: 'PASS', alerts: ['net-dns-leak'] }, 1))).toEqual([
      "rule 'net-dns-leak' alerted, and the contract does not list it",
      'exit 1, expected 0',
    ]);
  });
});
