import { describe, expect, it } from 'vitest';
import { CHECK_IDS } from '../config/schema.js';
import { analyze } from './analyze.js';
import { CHECKS } from './checks/index.js';
import { diffFile, execEvent, makeBundle } from './test-bundle.js';

describe('analyze', () => {
  it('runs every check in CHECK_IDS order and passes a clean run with 100', () => {
    const result = analyze(makeBundle());
    expect(result.checks.map((c) => c.id)).toEqual([...CHECK_IDS]);
    expect(result.checks.every((c) => c.passed)).toBe(true);
    expect(result.checks.map((c) => c.severity)).toEqual(CHECK_IDS.map((id) => CHECKS[id].defaultSeverity));
    expect(result.score).toEqual({ score: 100, result: 'PASS', deductions: [] });
  });

  it('has an implementation for every check id', () => {
    expect(Object.keys(CHECKS).sort()).toEqual([...CHECK_IDS].sort());
  });

  it('fails a run whose tests failed, with the critical deduction', () => {
    const result = analyze(makeBundle({ tests: { passed: false, exit_code: 1 } }));
    expect(result.score).toEqual({
      score: 60,
      result: 'FAIL',
      deductions: [{ id: 'tests-pass', severity: 'critical', points: 40 }],
    });
  });

  it('lets a severity override turn a failing run into a passing one', () => {
    const files = [diffFile('docs/readme.md')];
    // These hand-made bundles list changed files without a patch: no content detectors, or
    // secret-content would rightly fail closed on the missing hunks.
    const strict = analyze(
      makeBundle({ config: { allowed_paths: ['src/**'], secret_presets: [] }, diff: { files } }),
    );
    expect(strict.score).toMatchObject({ score: 75, result: 'FAIL' });
    const lenient = analyze(
      makeBundle({
        config: { allowed_paths: ['src/**'], severity: { scope: 'warning' }, secret_presets: [] },
        diff: { files },
      }),
    );
    expect(lenient.checks.find((c) => c.id === 'scope')).toMatchObject({
      passed: false,
      severity: 'warning',
    });
    expect(lenient.score).toEqual({
      score: 90,
      result: 'PASS',
      deductions: [{ id: 'scope', severity: 'warning', points: 10 }],
    });
  });

  it('lets a severity override turn a warning into a blocking failure', () => {
    const bundle = makeBundle({
      config: { max_changed_files: 0, severity: { 'diff-size': 'critical' }, secret_presets: [] },
      diff: { files: [diffFile('a')] },
    });
    expect(analyze(bundle).score).toMatchObject({ score: 60, result: 'FAIL' });
  });

  it('adds up several failures and floors at 0', () => {
    const bundle = makeBundle({
      config: { forbidden_paths: ['.env'], max_changed_files: 0, secret_presets: [] },
      tests: { passed: false, exit_code: 1 },
      diff: {
        files: [diffFile('.env', { status: 'added', link: { target: '/etc/passwd', escapes: true } })],
      },
      syscalls: [execEvent(['sudo', 'id'])],
    });
    const result = analyze(bundle);
    expect(result.checks.filter((c) => !c.passed).map((c) => c.id)).toEqual([
      'tests-pass',
      'forbidden-paths',
      'unsafe-commands',
      'diff-size',
      'secret-paths',
      'workspace-links',
    ]);
    expect(result.score).toMatchObject({ score: 0, result: 'FAIL' });
    expect(result.score.deductions.map((d) => d.points)).toEqual([40, 25, 25, 10, 25, 25]);
  });

  it('turns a check that throws on malformed evidence into a failed result instead of throwing', () => {
    const bundle = makeBundle();
    // Simulate evidence from an old run that lacks a field the checks rely on.
    Reflect.deleteProperty(bundle.diff, 'files');
    const result = analyze(bundle);
    const scope = result.checks.find((c) => c.id === 'scope');
    expect(scope).toMatchObject({ passed: false, severity: 'error' });
    expect(scope?.message).toMatch(/^the check could not run: /);
    expect(result.checks.find((c) => c.id === 'tests-pass')?.passed).toBe(true);
  });
});
