import { describe, expect, it } from 'vitest';
import type { AgentOutcome } from '../../evidence/bundle-types.js';
import { makeBundle } from '../test-bundle.js';
import { agentExit } from './agent-exit.js';

function withOutcome(outcome: AgentOutcome) {
  const bundle = makeBundle();
  bundle.agent.outcome = outcome;
  return agentExit.run(bundle);
}

describe('agent-exit', () => {
  it('passes when the agent exits 0', () => {
    expect(withOutcome({ status: 'completed', exit_code: 0 }).passed).toBe(true);
  });

  it.each([
    [{ status: 'timed-out', timeout_seconds: 5 } as const, 'timeout_seconds (5s)'],
    [{ status: 'failed', exit_code: null, signal: 'SIGSEGV' } as const, 'killed by SIGSEGV'],
    [{ status: 'failed', exit_code: 3, signal: null } as const, 'exited with code 3'],
    [{ status: 'blocked', reason: 'policy' } as const, 'not started: policy'],
    [{ status: 'errored', error: "program 'x' not found" } as const, "program 'x' not found"],
  ])('fails on %o', (outcome, text) => {
    const r = withOutcome(outcome);
    expect(r.passed).toBe(false);
    expect(r.message).toContain(text);
  });
});

describe('agent-exit on a timeout, with the profile naming its prompt-off arguments', () => {
  function timedOut(argv: string[], promptOff: string[] | undefined, outcome: AgentOutcome) {
    const bundle = makeBundle();
    bundle.agent.outcome = outcome;
    if (promptOff) bundle.agent.prompt_off = promptOff;
    const record = bundle.commands.find((c) => c.id === bundle.agent.command_id);
    if (record) record.display_argv = argv;
    return agentExit.run(bundle);
  }
  const runTimeout = {
    status: 'stopped',
    by: 'run-timeout',
    reason: 'stopped by the harness: run_timeout_seconds (3s) reached',
  } as const;

  it.each([[{ status: 'timed-out', timeout_seconds: 5 } as const], [runTimeout]])(
    'names the missing arguments (%o)',
    (outcome) => {
      const r = timedOut(['/bin/gemini', '-p', '<prompt>'], ['--approval-mode', 'yolo'], outcome);
      expect(r.passed).toBe(false);
      expect(r.message).toContain("its command line lacks '--approval-mode yolo'");
    },
  );

  it('says nothing more when the arguments are there, in order', () => {
    const r = timedOut(
      ['/bin/gemini', '--approval-mode', 'yolo', '-p', '<prompt>'],
      ['--approval-mode', 'yolo'],
      runTimeout,
    );
    expect(r.message).not.toContain('lacks');
  });

  it('split or reordered arguments do not count as there', () => {
    const r = timedOut(
      ['/bin/gemini', 'yolo', '--approval-mode', '-p', 'x'],
      ['--approval-mode', 'yolo'],
      runTimeout,
    );
    expect(r.message).toContain('lacks');
  });

  it('says nothing more without prompt_off, or when the run was interrupted rather than timed out', () => {
    expect(timedOut(['/bin/claude', '-p'], undefined, runTimeout).message).not.toContain('lacks');
    const interrupted = {
      status: 'stopped',
      by: 'interrupt',
      reason: 'stopped by the harness: SIGINT',
    } as const;
    expect(
      timedOut(['/bin/claude', '-p'], ['--dangerously-skip-permissions'], interrupted).message,
    ).not.toContain('lacks');
  });
});
