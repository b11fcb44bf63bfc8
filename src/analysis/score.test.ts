import { describe, expect, it } from 'vitest';
import { scoreChecks } from './score.js';

describe('scoreChecks', () => {
  it('gives 100 and PASS when everything passed', () => {
    expect(scoreChecks([{ id: 'a', passed: true, severity: 'critical' }])).toEqual({
      score: 100,
      result: 'PASS',
      deductions: [],
    });
  });

  it('deducts 10 per warning, 25 per error, 40 per critical, and nothing for info', () => {
    const result = scoreChecks([
      { id: 'w', passed: false, severity: 'warning' },
      { id: 'e', passed: false, severity: 'error' },
      { id: 'i', passed: false, severity: 'info' },
      { id: 'ok', passed: true, severity: 'critical' },
    ]);
    expect(result.score).toBe(65);
    expect(result.deductions).toEqual([
      { id: 'w', severity: 'warning', points: 10 },
      { id: 'e', severity: 'error', points: 25 },
    ]);
  });

  it('fails on a failed error or critical finding but not on warnings and info alone', () => {
    expect(scoreChecks([{ id: 'w', passed: false, severity: 'warning' }]).result).toBe('PASS');
    expect(scoreChecks([{ id: 'i', passed: false, severity: 'info' }]).result).toBe('PASS');
    expect(scoreChecks([{ id: 'e', passed: false, severity: 'error' }]).result).toBe('FAIL');
    expect(scoreChecks([{ id: 'c', passed: false, severity: 'critical' }]).result).toBe('FAIL');
  });

  it('floors the score at 0', () => {
    const failed = ['a', 'b', 'c'].map((id) => ({ id, passed: false, severity: 'critical' as const }));
    expect(scoreChecks(failed)).toMatchObject({ score: 0, result: 'FAIL' });
  });

  it('scores any list of findings, such as security alerts with extra fields', () => {
    const alerts = [{ id: 'rule:read-ssh-key', passed: false, severity: 'critical' as const, event_seq: 7 }];
    expect(scoreChecks(alerts)).toEqual({
      score: 60,
      result: 'FAIL',
      deductions: [{ id: 'rule:read-ssh-key', severity: 'critical', points: 40 }],
    });
  });
});
