import { clip } from '../evidence-list.js';
import type { Check, EvidenceItem } from '../types.js';

/** The configured test command ran and exited 0; otherwise says which of the ways it did not. */
export const testsPass: Check = (bundle) => {
  const { tests } = bundle;
  const record =
    tests.command_id === null ? undefined : bundle.commands.find((c) => c.id === tests.command_id);
  const evidence: EvidenceItem[] = [];
  if (record) {
    evidence.push({ command: clip(record.display_argv.join(' ')), detail: `harness command ${record.id}` });
  }
  const seconds = `${Math.round(tests.duration_ms / 100) / 10}s`;

  if (!tests.ran && tests.skipped) {
    return {
      id: 'tests-pass',
      passed: true,
      message: `tests not run: ${tests.reason ?? 'skipped'}`,
      evidence,
    };
  }
  if (!tests.ran) {
    return {
      id: 'tests-pass',
      passed: false,
      message: `tests did not run: ${tests.reason ?? 'no reason recorded'}`,
      evidence,
    };
  }
  if (tests.timed_out) {
    return { id: 'tests-pass', passed: false, message: `tests timed out after ${seconds}`, evidence };
  }
  // `passed` alone is not trusted: a passing verdict needs the exit code that justifies it.
  if (tests.passed && tests.exit_code === 0) {
    return { id: 'tests-pass', passed: true, message: `tests passed in ${seconds}`, evidence };
  }
  if (tests.exit_code === null) {
    const signal = record?.signal ? ` (signal ${record.signal})` : '';
    const spawn = record?.spawn_error ? ` (could not start: ${record.spawn_error})` : '';
    return {
      id: 'tests-pass',
      passed: false,
      message: `tests ended without an exit code${signal}${spawn}`,
      evidence,
    };
  }
  return {
    id: 'tests-pass',
    passed: false,
    message:
      tests.exit_code === 0
        ? 'tests exited 0 but were recorded as not passed'
        : `tests failed with exit code ${tests.exit_code}`,
    evidence,
  };
};
