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
