import { capEvidence, clip, nameList, plural } from '../evidence-list.js';
import { judgeResults, judgeSentinel, passingExitCode } from '../test-results/judge-results.js';
import type { EvidenceItem } from '../types.js';
import { defineCheck } from './define-check.js';

export const testsPass = defineCheck({
  id: 'tests-pass',
  defaultSeverity: 'critical',
  policyKeys: ['required_tests'],
  doc: 'The `test_command` ran and exited 0, and where the runner reported its tests by name, none failed, every test the untouched baseline ran (or `min_tests`) ran and was not skipped, and every test `required_tests` names is in the report, ran and passed; where the harness planted its failing sentinel test, the sentinel failed, the status is the one the runner gives for a failed test, no other test failed, and no twin of a task test (its expected value changed) passed beside its passing original.',
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
    const byName = judgeResults(tests, bundle.config.required_tests ?? []);
    evidence.push(...byName.evidence);
    // The sentinel speaks first: when it says the framework was changed, no other result holds.
    const forged = judgeSentinel(tests);
    if (forged.length > 0)
      return { passed: false, message: forged.join('; '), evidence: capEvidence(evidence) };
    const capped = capEvidence(evidence);
    const note = byName.note ? `; ${byName.note}` : '';
    // `passed` alone is not trusted: a passing verdict needs the exit code that justifies it, and
    // the tests by name must agree with it.
    if (tests.passed && tests.exit_code === passingExitCode(tests)) {
      if (byName.problems.length > 0) {
        return { passed: false, message: byName.problems.join('; '), evidence: capped };
      }
      const count = tests.results?.format ? ` (${plural(tests.results.cases.length, 'test')})` : '';
      return { passed: true, message: `tests passed in ${seconds}${count}${note}`, evidence };
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
    if (tests.results?.sentinel && tests.exit_code === passingExitCode(tests) && byName.problems.length > 0) {
      return { passed: false, message: byName.problems.join('; '), evidence: capped };
    }
    const failing = (tests.results?.cases ?? []).filter((c) => c.status === 'failed').map((c) => c.name);
    const named =
      failing.length > 0 ? `: ${plural(failing.length, 'failing test')} (${nameList(failing)})` : '';
    return {
      passed: false,
      message:
        tests.exit_code === 0
          ? 'tests exited 0 but were recorded as not passed'
          : `tests failed with exit code ${tests.exit_code}${named}`,
      evidence: capped,
    };
  },
});
