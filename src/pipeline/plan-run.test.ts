import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeConfig } from '../analysis/test-bundle.js';
import { ConfigError } from '../errors.js';
import { ENGINE_ENV } from '../observe/ebpf/collector/paths.js';
import { collectorAvailability } from '../observe/ebpf/engine.js';
import { TRACERS } from '../observe/index.js';
import type { Tracer } from '../observe/types.js';
import { bwrapAvailability } from '../sandbox/bwrap.js';
import { containerAvailability, containerSandbox } from '../sandbox/container.js';
import { microvmSandbox } from '../sandbox/microvm/microvm.js';
import type { Sandbox } from '../sandbox/types.js';
import type { RunContext } from './context.js';
import { chooseTracer, planRun, sandboxHome } from './plan-run.js';

const dir = mkdtempSync(path.join(tmpdir(), 'ag-plan-'));
// Readable by others, as a project folder is: the run user must read the config's folder (run-view.ts).
chmodSync(dir, 0o755);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ctx: RunContext = {
  outputDir: path.join(dir, '.agentguard'),
  env: { PATH: '/usr/bin:/bin' },
  now: () => new Date('2026-01-02T03:04:05Z'),
  log: () => {},
  history: false,
};
const config = makeConfig({
  config_path: path.join(dir, 'task.yaml'),
  config_dir: dir,
  repo: dir,
  agent_command: ['sh', '-c', 'true'],
  test_command: ['sh', '-c', 'true'],
});
const strace = await TRACERS.strace.available();
const bwrap = bwrapAvailability();
const podman = await containerAvailability('auto');
if (!podman.ok) console.warn(`container plan test skipped: ${podman.reason} (fix: ${podman.fix})`);

describe('planRun settles the run once', () => {
  it.skipIf(!strace.ok)(
    '--tracer and --sandbox override the config, and the config says what is used',
    async () => {
      const p = await planRun(ctx, config, { agent: 'agent-command', tracer: 'strace', sandbox: 'local' });
      expect(config.tracer).toBe('auto');
      expect(p.tracer.requested).toBe('strace');
      expect(p.tracer.choice).toMatchObject({ kind: 'strace', reason: 'strace requested', fallbacks: [] });
      expect(p.cfg).toMatchObject({ tracer: 'strace', sandbox: 'local' });
      expect(p.sandboxChoice.sandbox.kind).toBe('local');
      // `local` hides nothing: the agent's HOME is the run's HOME folder where it is.
      expect(p.agentHome).toBe(p.hostHome);
    },
  );

  it('tracer off is off, chosen before anything runs', async () => {
    const p = await planRun(ctx, { ...config, tracer: 'off' }, { agent: 'agent-command', sandbox: 'local' });
    expect(p.tracer).toEqual({
      requested: 'off',
      choice: { tracer: null, kind: 'off', reason: 'tracing turned off by configuration', fallbacks: [] },
    });
    expect(p.cfg.tracer).toBe('off');
  });

  it.skipIf(!bwrap.ok)(
    'with no sandbox configured, bwrap is chosen and shows the run HOME at the user’s',
    async () => {
      const p = await planRun(ctx, { ...config, tracer: 'off' }, { agent: 'agent-command' });
      expect(p.sandboxChoice.sandbox.kind).toBe('bwrap');
      expect(p.sandboxChoice.fallback).toBeUndefined();
      expect(p.cfg.sandbox).toBe('bwrap');
      expect(p.agentHome).toBe(sandboxHome());
    },
  );

  it.skipIf(!bwrap.ok || process.getuid?.() !== 0)(
    'a config folder the run user cannot read stops the plan with the folder and the chmod, never a root agent',
    async () => {
      const closed = mkdtempSync(path.join(dir, 'closed-'));
      const inClosed = {
        ...config,
        config_path: path.join(closed, 'task.yaml'),
        config_dir: closed,
        tracer: 'off' as const,
      };
      const planned = planRun(ctx, inClosed, { agent: 'agent-command', sandbox: 'bwrap' });
      await expect(planned).rejects.toThrow(ConfigError);
      await expect(planned).rejects.toThrow(`chmod o+rx ${closed}`);
      chmodSync(closed, 0o755);
      const p = await planRun(ctx, inClosed, { agent: 'agent-command', sandbox: 'bwrap' });
      expect(p.view.visible).toContain(closed);
    },
  );

  it.skipIf(!podman.ok)(
    'a sandbox that needs a config section it lacks is a ConfigError naming the field and the fix',
    async () => {
      const planned = planRun(ctx, config, { agent: 'agent-command', sandbox: 'container' });
      await expect(planned).rejects.toThrow(ConfigError);
      await expect(planned).rejects.toThrow(
        `${config.config_path}: field 'container': sandbox 'container' needs an image. Fix: add container: {image: NAME}.`,
      );
    },
  );
});

const ebpf = await TRACERS.ebpf.available();
const collectorBuilt = await collectorAvailability();

describe('chooseTracer under a sandbox with its own kernel', () => {
  const guestTracer = (ok: boolean): Tracer => ({
    kind: 'ebpf',
    available: async () =>
      ok ? { ok, version: 'in the guest' } : { ok, reason: 'not built', fix: 'build it' },
    start: async () => {
      throw new Error('not started here');
    },
  });
  const vm = (guest: Tracer | undefined): Sandbox => ({
    ...microvmSandbox,
    ...(guest ? { guestTracer: guest } : { guestTracer: undefined }),
  });

  it.skipIf(!ebpf.ok)("ebpf is the sandbox's in-guest tracer where it can run", async () => {
    const guest = guestTracer(true);
    const plan = await chooseTracer(config, vm(guest), 'ebpf');
    expect(plan.choice.tracer).toBe(guest);
    expect(plan.choice).toMatchObject({ kind: 'ebpf', version: 'in the guest', fallbacks: [] });
    expect(plan.choice.reason).toContain('the collector runs inside it');
  });

  it.skipIf(!ebpf.ok || !strace.ok)('else strace in the guest, a fallback that says why', async () => {
    const plan = await chooseTracer(config, vm(guestTracer(false)), 'ebpf');
    expect(plan.choice.kind).toBe('strace');
    expect(plan.choice.fallbacks).toContainEqual(
      expect.objectContaining({
        wanted: 'ebpf',
        used: 'strace',
        reason: expect.stringContaining('not built'),
      }),
    );
  });

  it.skipIf(!strace.ok)('strace asked for stays strace', async () => {
    const plan = await chooseTracer(config, vm(guestTracer(true)), 'strace');
    expect(plan.choice.kind).toBe('strace');
  });
});

describe('chooseTracer under a sandbox the host tracers cannot see into', () => {
  it.skipIf(!strace.ok)(
    'the container is planned untraced, a fallback that says why and the fix',
    async () => {
      const plan = await chooseTracer(config, containerSandbox, 'strace');
      expect(plan.choice).toMatchObject({ tracer: null, kind: 'off' });
      expect(plan.choice.fallbacks).toContainEqual({
        component: 'tracer',
        wanted: 'strace',
        used: 'off',
        reason: expect.stringMatching(/conmon, runc.*fix: use the ebpf tracer with the compiled collector/),
      });
      expect((await chooseTracer(config, containerSandbox, 'off')).choice.fallbacks).toEqual([]);
    },
  );

  it.skipIf(!collectorBuilt.ok)(
    "ebpf with the compiled collector sees it: the container goes below the run's cgroup, which the collector follows",
    async () => {
      const plan = await chooseTracer(config, containerSandbox, 'ebpf');
      expect(plan.choice).toMatchObject({ kind: 'ebpf', fallbacks: [] });
      expect(plan.choice.reason).toContain(
        "in a cgroup below the run's, which the compiled collector follows",
      );
    },
  );

  it.skipIf(!ebpf.ok)(
    'ebpf by bpftrace does not (its filter is the run cgroup alone): untraced, and why',
    async () => {
      process.env[ENGINE_ENV] = 'bpftrace';
      try {
        const plan = await chooseTracer(config, containerSandbox, 'ebpf');
        expect(plan.choice).toMatchObject({ tracer: null, kind: 'off' });
        expect(plan.choice.fallbacks).toContainEqual(
          expect.objectContaining({
            wanted: 'ebpf',
            used: 'off',
            reason: expect.stringContaining('bpftrace'),
          }),
        );
      } finally {
        delete process.env[ENGINE_ENV];
      }
    },
  );
});
