import { describe, expect, it } from 'vitest';
import { fixOf } from './doctor-run.js';

describe("doctor's trial run", () => {
  it('gives the fix the run named, without sending the user to doctor itself', () => {
    expect(
      fixOf(
        "agentguard: run x: the sandbox bridge failed (cannot listen; the agent never started. Fix: run 'agentguard doctor' as the same user; the bridge needs root (or run with network.mode: none))",
      ),
    ).toBe('the bridge needs root (or run with network.mode: none)');
    expect(
      fixOf(
        "bwrap: x. Fix: correct the path or setting it names (sandbox.mounts, toolchains, the command), or run 'agentguard doctor' as the same user",
      ),
    ).toBe('correct the path or setting it names (sandbox.mounts, toolchains, the command)');
    expect(fixOf('something broke')).toMatch(/^run 'agentguard run benchmarks\/js-slugify\/config\.yaml/);
  });
});
