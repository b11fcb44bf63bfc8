import { describe, expect, it } from 'vitest';
import { makeBundle, makeCommand } from '../test-bundle.js';
import { testsPass } from './tests-pass.js';

describe('tests-pass', () => {
  it('passes when the tests exited 0', () => {
    const result = testsPass.run(makeBundle());
    expect(result).toMatchObject({ passed: true, message: 'tests passed in 1.5s' });
    expect(result.evidence).toEqual([{ command: 'npm test', detail: 'harness command cmd-2' }]);
  });

  it('reports a failing exit code', () => {
    const result = testsPass.run(makeBundle({ tests: { passed: false, exit_code: 3 } }));
    expect(result).toMatchObject({ passed: false, message: 'tests failed with exit code 3' });
  });

  it('reports a timeout', () => {
    const result = testsPass.run(
      makeBundle({ tests: { passed: false, exit_code: null, timed_out: true, duration_ms: 300000 } }),
    );
    expect(result).toMatchObject({ passed: false, message: 'tests timed out after 300s' });
  });

  it('reports tests that did not run, with the reason', () => {
    const result = testsPass.run(
      makeBundle({
        tests: { ran: false, passed: false, exit_code: null, command_id: null, reason: 'agent timed out' },
      }),
    );
    expect(result).toMatchObject({
      passed: false,
      message: 'tests did not run: agent timed out',
      evidence: [],
    });
  });

  it('reports a kill by signal from the command record', () => {
    const bundle = makeBundle({
      tests: { passed: false, exit_code: null },
      commands: [
        makeCommand({
          id: 'cmd-2',
          role: 'tests',
          argv: ['npm', 'test'],
          exit_code: null,
          signal: 'SIGKILL',
        }),
      ],
    });
    expect(testsPass.run(bundle).message).toBe('tests ended without an exit code (signal SIGKILL)');
  });

  it('does not trust passed=true without exit code 0', () => {
    const result = testsPass.run(makeBundle({ tests: { passed: true, exit_code: 1 } }));
    expect(result.passed).toBe(false);
  });
});
