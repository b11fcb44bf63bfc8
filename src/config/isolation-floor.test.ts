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

describe('isolation floor: what a config asks the sandbox to show', () => {
  const root = '/packs/p';
  const mount = (p: string, writable = false) => ({ path: p, writable, field: 'sandbox.mounts[0]' });

  it('lets read-only paths inside the pack or bundle through', () => {
    expect(floorBreaches({ ...isolated, mounts: [mount('/packs/p/configs/a/data')] }, root)).toEqual([]);
  });

  it('refuses a path outside it, by .. or by its absolute path, and any writable one', () => {
    for (const p of ['/packs/p/../q', '/srv/data', '/packs/pp'])
      expect(floorBreaches({ ...isolated, mounts: [mount(p)] }, root).map((b) => b.what)).toEqual([
        `it shows ${p} to the agent, outside ${root}`,
      ]);
    expect(
      floorBreaches({ ...isolated, mounts: [mount('/packs/p/cache', true)] }, root).map((b) => b.field),
    ).toEqual(['sandbox.mounts[0]']);
  });

  it('judges a writable path even with no folder to keep inside (a pull request)', () => {
    expect(floorBreaches({ ...isolated, mounts: [mount('/srv/data', true)] })).toHaveLength(1);
    expect(floorBreaches({ ...isolated, mounts: [mount('/srv/data')] })).toEqual([]);
  });
});
