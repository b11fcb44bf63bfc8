import { describe, expect, it } from 'vitest';
import type { CommandRecord } from '../evidence/types.js';
import { planTestReport, readTestReport } from './test-reporting.js';
import { sentinelRunner } from './test-sentinel.js';

const F = '/w/repo/.agentguard-tests-x.report';

describe('planTestReport', () => {
  it("asks node's test runner for junit beside its usual output", () => {
    expect(planTestReport(['node', '--test', 'test/'], F)).toEqual({
      argv: [
        'node',
        '--test',
        '--test-reporter=spec',
        '--test-reporter-destination=stdout',
        '--test-reporter=junit',
        `--test-reporter-destination=${F}`,
        'test/',
      ],
      format: 'junit',
      file: F,
    });
  });

  it('gives pytest --junitxml, whether run as pytest or python -m pytest', () => {
    expect(planTestReport(['pytest', '-q'], F).argv).toEqual(['pytest', '-q', `--junitxml=${F}`]);
    expect(planTestReport(['python3', '-m', 'pytest'], F)).toMatchObject({ format: 'junit', file: F });
  });

  it('sees the runner under an env prefix that sets variables (as init writes for a src/ layout)', () => {
    expect(planTestReport(['env', 'PYTHONPATH=src', 'python3', '-m', 'pytest'], F)).toEqual({
      argv: ['env', 'PYTHONPATH=src', 'python3', '-m', 'pytest', `--junitxml=${F}`],
      format: 'junit',
      file: F,
    });
    expect(planTestReport(['/usr/bin/env', 'A=1', 'B=2', 'node', '--test'], F).format).toBe('junit');
    expect(sentinelRunner(['env', 'PYTHONPATH=src', 'python3', '-m', 'pytest'], 'junit')).toBe('pytest');
    // env's own options change what runs in ways the words do not show: left to the guess.
    expect(planTestReport(['env', '-i', 'python3', '-m', 'pytest'], F).guess).toBe(true);
    expect(planTestReport(['env', 'A=1'], F).guess).toBe(true);
  });

  it('makes unittest verbose and go test emit JSON; reads cargo as it prints', () => {
    expect(planTestReport(['python3', '-m', 'unittest', 'discover', '-s', 'tests'], F)).toEqual({
      argv: ['python3', '-m', 'unittest', 'discover', '-v', '-s', 'tests'],
      format: 'unittest',
      stream: 'stderr',
    });
    expect(planTestReport(['python3', '-m', 'unittest', 'discover', '-v'], F).argv).toEqual([
      'python3',
      '-m',
      'unittest',
      'discover',
      '-v',
    ]);
    expect(planTestReport(['python3', '-m', 'unittest', 'tests.test_a'], F).argv).toEqual([
      'python3',
      '-m',
      'unittest',
      '-v',
      'tests.test_a',
    ]);
    expect(planTestReport(['go', 'test', './...'], F).argv).toEqual(['go', 'test', '-json', './...']);
    expect(planTestReport(['cargo', 'test'], F)).toMatchObject({ format: 'cargo', stream: 'stdout' });
  });

  it('gives vitest and jest their report options', () => {
    expect(planTestReport(['npx', 'vitest', 'run'], F)).toMatchObject({ format: 'junit', file: F });
    expect(planTestReport(['npx', 'jest'], F).argv).toEqual(['npx', 'jest', '--json', `--outputFile=${F}`]);
  });

  it('leaves a command it does not know, or one that chose its reporter, as it is and reads TAP', () => {
    expect(planTestReport(['npm', 'test'], F)).toEqual({
      argv: ['npm', 'test'],
      format: 'tap',
      stream: 'stdout',
      guess: true,
    });
    expect(planTestReport(['node', '--test', '--test-reporter=dot'], F).format).toBe('tap');
  });

  it("reads an unknown runner's output in whichever text format it holds, or says it found none", () => {
    const plan = planTestReport(['python3', 'tests/run.py'], F);
    const record = (stdout: string, stderr: string) => ({ stdout, stderr }) as CommandRecord;
    expect(readTestReport(plan, record('', 'test_a (t.T.test_a) ... ok\n'))).toEqual({
      format: 'unittest',
      cases: [{ name: 't.T.test_a', status: 'passed' }],
    });
    expect(readTestReport(plan, record('all good', ''))).toMatchObject({ format: null, cases: [] });
  });
});
