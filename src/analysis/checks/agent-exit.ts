import { clip } from '../evidence-list.js';
import type { EvidenceItem } from '../types.js';
import { defineCheck } from './define-check.js';

export const agentExit = defineCheck({
  id: 'agent-exit',
  defaultSeverity: 'error',
  policyKeys: [],
  doc: 'The agent finished on its own with exit code 0; a timeout, a crash, a refusal by the command policy or a non-zero exit fails it even when the tests pass: the work was not completed as asked.',
  run: (bundle) => {
    const { outcome, command_id } = bundle.agent;
    const record = command_id === null ? undefined : bundle.commands.find((c) => c.id === command_id);
    const evidence: EvidenceItem[] = record
      ? [{ command: clip(record.display_argv.join(' ')), detail: `harness command ${record.id}` }]
      : [];
    const fail = (message: string) => ({ passed: false, message, evidence });
    switch (outcome.status) {
      case 'completed':
        return { passed: true, message: 'the agent exited with code 0', evidence };
      case 'timed-out':
        return fail(`the agent was killed after timeout_seconds (${outcome.timeout_seconds}s)`);
      case 'blocked':
        return fail(`the agent was not started: ${outcome.reason}`);
      case 'errored':
        return fail(`the agent could not run: ${outcome.error}`);
      case 'stopped':
        return fail(`the agent was ${outcome.reason}`);
      case 'none':
        // CI mode: there is no agent process to judge, only what the checkout holds.
        return { passed: true, message: outcome.reason, evidence };
      case 'failed':
        return fail(
          outcome.signal
            ? `the agent was killed by ${outcome.signal}`
            : `the agent exited with code ${outcome.exit_code ?? 'unknown'}`,
        );
    }
  },
});
