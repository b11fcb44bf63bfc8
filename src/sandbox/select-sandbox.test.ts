import { describe, expect, it } from 'vitest';
import { SetupError } from '../errors.js';
import { SANDBOXES } from './index.js';
import { automaticSandboxes, selectSandbox } from './select-sandbox.js';
import type { Sandbox, SandboxAvailability } from './types.js';

/** A registry sandbox whose availability is decided by the test, as on another host. */
const on = (sandbox: Sandbox, availability: SandboxAvailability): Sandbox => ({
  ...sandbox,
  available: async () => availability,
});
const works: SandboxAvailability = { ok: true, version: '1' };
const gone = (reason: string): SandboxAvailability => ({ ok: false, reason, fix: `fix ${reason}` });

describe('selectSandbox', () => {
  it('with none configured, tries only the sandboxes that need no config section, in order', () => {
    expect(automaticSandboxes(SANDBOXES)).toEqual(['bwrap', 'local']);
  });

  it('takes the first that works, with no fallback recorded', async () => {
    const registry = { ...SANDBOXES, bwrap: on(SANDBOXES.bwrap, works) };
    const choice = await selectSandbox(undefined, registry, 'task.yaml');
    expect(choice.sandbox.kind).toBe('bwrap');
    expect(choice.fallback).toBeUndefined();
  });

  it('passes over one that cannot run, says why, and says when the agent is left on the host', async () => {
    const registry = {
      ...SANDBOXES,
      bwrap: on(SANDBOXES.bwrap, gone('no namespaces')),
      container: on(SANDBOXES.container, works),
    };
    const choice = await selectSandbox(undefined, registry, 'task.yaml');
    expect(choice.sandbox.kind).toBe('local');
    expect(choice.fallback).toEqual({
      component: 'sandbox',
      wanted: 'bwrap',
      used: 'local',
      reason: 'no namespaces (fix: fix no namespaces); the agent runs without isolation',
    });
  });

  it('a sandbox asked for by name that cannot run is an error, never a quiet downgrade', async () => {
    const registry = { ...SANDBOXES, bwrap: on(SANDBOXES.bwrap, gone('no namespaces')) };
    const asked = selectSandbox('bwrap', registry, 'task.yaml');
    await expect(asked).rejects.toThrow(SetupError);
    await expect(asked).rejects.toThrow(
      "task.yaml: sandbox 'bwrap' cannot run here: no namespaces. Fix: fix no namespaces, or choose another with --sandbox",
    );
  });
});
