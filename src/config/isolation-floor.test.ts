import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.js';
import { enforceFloor, floorBreaches, type IsolationFacts } from './isolation-floor.js';

const isolated: IsolationFacts = {
  file: '/pr/.agentguard.yaml',
  sandbox: { kind: 'bwrap', onHost: false },
  tracer: 'ebpf',
  network: 'allowlist',
  setupCommand: true,
};
const floor = { input: "queue job 'j1'", allowFlag: '--allow-below-floor' };

describe('isolation floor', () => {
  it('lets an isolated, traced run through, setup_command included', () => {
    expect(floorBreaches(isolated)).toEqual([]);
    expect(() => enforceFloor(floor, isolated)).not.toThrow();
  });

  it('names every field that falls below it', () => {
    const low = { ...isolated, sandbox: { kind: 'local', onHost: true }, tracer: 'off', network: 'host' };
    expect(floorBreaches(low).map((b) => b.field)).toEqual([
      'sandbox',
      'setup_command',
      'tracer',
      'network.mode',
    ]);
  });

  it('refuses with the input, the file, the field and the operator flag in each sentence', () => {
    const low = { ...isolated, tracer: 'off' };
    let error: unknown;
    try {
      enforceFloor(floor, low);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message).toContain("/pr/.agentguard.yaml: field 'tracer'");
    expect(message).toContain("queue job 'j1'");
    expect(message).toContain('--allow-below-floor');
  });

  it('is no floor at all when the operator set none (their own input)', () => {
    expect(() => enforceFloor(undefined, { ...isolated, tracer: 'off' })).not.toThrow();
  });
});
