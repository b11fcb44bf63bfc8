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
        return fail(
          `the agent was killed after timeout_seconds (${outcome.timeout_seconds}s)${promptHint(bundle.agent.prompt_off, record?.display_argv)}`,
        );
      case 'blocked':
        return fail(`the agent was not started: ${outcome.reason}`);
      case 'errored':
        return fail(`the agent could not run: ${outcome.error}`);
      case 'stopped':
        return fail(
          `the agent was ${outcome.reason}${outcome.by === 'run-timeout' ? promptHint(bundle.agent.prompt_off, record?.display_argv) : ''}`,
        );
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

/**
 * An agent that asks for permission waits for an answer nobody in a sandbox can give, until a time
 * limit kills it. When its profile names the arguments that turn its prompts off (`prompt_off`) and
 * its command line lacks them, the timeout message says so. Only a hint: the evidence shows the
 * flags missing, not the agent reading a prompt's answer.
 */
export function promptHint(
  promptOff: readonly string[] | undefined,
  argv: readonly string[] | undefined,
): string {
  if (!promptOff || promptOff.length === 0 || !argv) return '';
  if (containsRun(argv, promptOff)) return '';
  const flags = promptOff.join(' ');
  return `; its command line lacks '${flags}', which its profile names (prompt_off) as turning off the agent's own permission prompts, so it may have been waiting for an approval: add '${flags}' to the profile's command`;
}

function containsRun(argv: readonly string[], run: readonly string[]): boolean {
  for (let i = 0; i + run.length <= argv.length; i++) {
    if (run.every((item, j) => argv[i + j] === item)) return true;
  }
  return false;
}
