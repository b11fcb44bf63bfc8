import { clip } from '../evidence-list.js';
import type { EvidenceItem } from '../types.js';
import { defineCheck } from './define-check.js';

export const testsPass = defineCheck({
  id: 'tests-pass',
  defaultSeverity: 'critical',
  policyKeys: [],
  doc: 'The `test_command` ran and exited 0.',
  run: (bundle) => {
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
        passed: true,
        message: `tests not run: ${tests.reason ?? 'skipped'}`,
        evidence,
      };
    }
    if (!tests.ran) {
      return {
        passed: false,
        message: `tests did not run: ${tests.reason ?? 'no reason recorded'}`,
        evidence,
      };
    }
    if (tests.timed_out) {
      return { passed: false, message: `tests timed out after ${seconds}`, evidence };
    }
    // `passed` alone is not trusted: a passing verdict needs the exit code that justifies it.
    if (tests.passed && tests.exit_code === 0) {
      return { passed: true, message: `tests passed in ${seconds}`, evidence };
    }
    if (tests.exit_code === null) {
      const signal = record?.signal ? ` (signal ${record.signal})` : '';
      const spawn = record?.spawn_error ? ` (could not start: ${record.spawn_error})` : '';
      return {
        passed: false,
        message: `tests ended without an exit code${signal}${spawn}`,
        evidence,
      };
    }
    return {
      passed: false,
      message:
        tests.exit_code === 0
          ? 'tests exited 0 but were recorded as not passed'
          : `tests failed with exit code ${tests.exit_code}`,
      evidence,
    };
  },
});
