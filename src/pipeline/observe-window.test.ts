import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeConfig } from '../analysis/test-bundle.js';
import type { ResolvedConfig } from '../config/schema.js';
import { runPath } from '../evidence/layout.js';
import { Disposer } from '../exec/disposer.js';
import { runCommand } from '../exec/run-command.js';
import type { SpawnSpec } from '../exec/types.js';
import { TRACERS } from '../observe/index.js';
import { selectTracer, type TracerPlan } from '../observe/select-tracer.js';
import { packageRoot } from '../package-root.js';
import { bwrapAvailability } from '../sandbox/bwrap.js';
import { SANDBOXES } from '../sandbox/index.js';
import { type SandboxChoice, selectSandbox } from '../sandbox/select-sandbox.js';
import type { Sandbox } from '../sandbox/types.js';
import type { GuardMode, LiveGuard } from './live-guard.js';
import { type ClosedWindow, ObservationWindow } from './observe-window.js';
import { sandboxHome } from './plan-run.js';
import { loadRunRules } from './rules.js';
import { Timeline } from './timeline.js';

const bwrap = bwrapAvailability();
const strace = await TRACERS.strace.available();
const canTrace = bwrap.ok && strace.ok;
if (!canTrace) {
  const why = [bwrap, strace].flatMap((a) => (a.ok ? [] : [`${a.reason} (fix: ${a.fix})`]));
  console.warn(`observation window tests with bwrap and strace skipped: ${why.join('; ')}`);
}

// The proxy bridge runs from the built package (dist/), which unit tests do not run from: the
// sandboxed commands here keep the host network, and the bridge's wiring is checked on its own.
const hostNet = makeConfig({ network: { mode: 'host' } });

const base = mkdtempSync(path.join(tmpdir(), 'ag-window-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** A sandbox that says it cannot run here, as bwrap does on a host without namespaces. */
const unavailable = (sandbox: Sandbox, reason: string): Sandbox => ({
  ...sandbox,
  available: async () => ({ ok: false, reason, fix: 'apt-get install -y bubblewrap' }),
});

let n = 0;
type Opened = {
  window: ObservationWindow;
  lines: string[];
  runDir: string;
  repoDir: string;
  disposer: Disposer;
};

async function open(opts: {
  sandbox: SandboxChoice;
  tracer: TracerPlan;
  cfg?: ResolvedConfig;
  guard?: Exclude<GuardMode, 'off'>;
}): Promise<Opened> {
  const runDir = path.join(base, `run${n++}`);
  const repoDir = runPath(runDir, 'repo');
  const hostHome = runPath(runDir, 'home');
  mkdirSync(repoDir, { recursive: true });
  mkdirSync(hostHome, { recursive: true });
  mkdirSync(path.join(runDir, 'evidence'), { recursive: true });
  const cfg = opts.cfg ?? makeConfig();
  const lines: string[] = [];
  const disposer = new Disposer();
  const window = await ObservationWindow.open({
    cfg,
    runId: `window-test-${process.pid}-${n}`,
    runDir,
    repoDir,
    hostHome,
    agentHome: opts.sandbox.sandbox.capabilities.hidesHome ? sandboxHome() : hostHome,
    visible: [packageRoot(), path.dirname(path.dirname(process.execPath))],
    sandboxChoice: opts.sandbox,
    tracer: opts.tracer,
    timeline: new Timeline(runPath(runDir, 'timeline')),
    log: (l) => lines.push(l),
    ...(opts.guard ? { guard: { mode: opts.guard, rules: loadRunRules(cfg).ruleset } } : {}),
    disposer,
  });
  return { window, lines, runDir, repoDir, disposer };
}

async function runInside(o: Opened, script: string, onStart?: (pid: number) => void) {
  const spec: SpawnSpec = {
    argv: ['/bin/sh', '-c', script],
    cwd: o.repoDir,
    env: {
      PATH: '/usr/bin:/bin',
      HOME: o.window.sandbox.kind === 'local' ? runPath(o.runDir, 'home') : sandboxHome(),
    },
  };
  const outcome = await runCommand({
    spec: o.window.wrapAgent(spec),
    timeoutMs: 60_000,
    maxOutputBytes: 64 * 1024,
    ...(onStart ? { onStart } : {}),
    isWrapper: (argv) => o.window.isWrapper(argv),
  });
  return { spec, outcome };
}

async function closeWindow(o: Opened, agentArgv: string[]): Promise<ClosedWindow> {
  try {
    return await o.window.close(agentArgv, ['true']);
  } finally {
    await o.disposer.dispose();
  }
}

describe('ObservationWindow', () => {
  it('records what the planned sandbox cannot do, and the plan’s fallback, without a tracer', async () => {
    const registry = { ...SANDBOXES, bwrap: unavailable(SANDBOXES.bwrap, 'no bwrap here') };
    const sandbox = await selectSandbox(undefined, registry, 'task.yaml');
    const o = await open({
      sandbox,
      tracer: { requested: 'off', choice: await selectTracer('off', TRACERS) },
    });
    expect(o.lines).toContain(
      'warning: no bwrap here (fix: apt-get install -y bubblewrap); the agent runs without isolation',
    );
    expect(o.window.traced).toBe(false);
    expect(o.window.wrapped).toBe(false);
    expect(o.window.tracerKind).toBe('off');
    const canaries = JSON.parse(readFileSync(runPath(o.runDir, 'canaries'), 'utf8'));
    expect(canaries.home).toBe(runPath(o.runDir, 'home'));

    const { spec, outcome } = await runInside(o, 'echo hello');
    expect(outcome.exit_code).toBe(0);
    expect(outcome.stdout).toBe('hello\n');
    const closed = await closeWindow(o, spec.argv);
    expect(closed.syscalls).toEqual([]);
    expect(closed.observation).toMatchObject({
      sandbox: { kind: 'local', isolated: false, version: 'host' },
      tracer: {
        requested: 'off',
        kind: 'off',
        reason: 'tracing turned off by configuration',
        lost_events: 0,
      },
      network: { mode: 'none' },
    });
    expect(closed.observation.network.proxy).toBeUndefined();
    expect(closed.observation.fallbacks).toEqual([
      {
        component: 'sandbox',
        wanted: 'bwrap',
        used: 'local',
        reason: 'no bwrap here (fix: apt-get install -y bubblewrap); the agent runs without isolation',
      },
      {
        component: 'network',
        wanted: 'none',
        used: 'host',
        reason: "sandbox 'local' cannot take the network away",
      },
    ]);
    expect(readFileSync(runPath(o.runDir, 'timeline'), 'utf8')).toContain(
      'sandbox local, tracer off, network none',
    );
  });

  it.skipIf(!canTrace)(
    'starts the tracer the plan chose, records the plan’s step down, and sees the agent in the sandbox',
    async () => {
      const ebpfGone = { ...TRACERS, ebpf: { ...TRACERS.ebpf, available: async () => unavailableEbpf } };
      const tracer: TracerPlan = { requested: 'auto', choice: await selectTracer('auto', ebpfGone) };
      expect(tracer.choice.kind).toBe('strace');
      const o = await open({
        sandbox: await selectSandbox('bwrap', SANDBOXES, 'task.yaml'),
        tracer,
        // The config's own setting is not what the window starts: the plan settled it.
        cfg: makeConfig({ network: { mode: 'host' }, tracer: 'off' }),
      });
      expect(o.lines.join('\n')).toContain('warning: tracer strace instead of ebpf');
      expect(o.window.wrapped).toBe(true);
      expect(o.window.tracerKind).toBe('strace');

      const { spec, outcome } = await runInside(o, 'cat "$HOME/.ssh/id_rsa" > /dev/null; exit 3');
      expect(outcome.exit_code).toBe(3);
      const closed = await closeWindow(o, spec.argv);
      const read = closed.syscalls.find(
        (e) => e.kind === 'open' && e.path === `${sandboxHome()}/.ssh/id_rsa`,
      );
      expect(read?.access).toBe('read');
      expect(closed.observation).toMatchObject({
        sandbox: { kind: 'bwrap', isolated: true },
        tracer: { requested: 'auto', kind: 'strace' },
        network: { mode: 'host' },
      });
      expect(closed.observation.tracer.reason).toMatch(
        /^strace used because ebpf is unavailable \(not in this test/,
      );
      expect(closed.observation.fallbacks).toEqual([
        {
          component: 'tracer',
          wanted: 'ebpf',
          used: 'strace',
          reason: 'ebpf is unavailable (not in this test; fix: none)',
        },
      ]);
    },
    60_000,
  );

  it.skipIf(!bwrap.ok)(
    'a sandbox that bridges the proxy gets the Unix-socket bridge around the agent, and no network of its own',
    async () => {
      const o = await open({
        sandbox: await selectSandbox('bwrap', SANDBOXES, 'task.yaml'),
        tracer: { requested: 'off', choice: await selectTracer('off', TRACERS) },
      });
      const spec: SpawnSpec = { argv: ['/bin/true'], cwd: o.repoDir, env: {} };
      const wrapped = o.window.wrapAgent(spec);
      expect(wrapped.argv).toContain('bwrap');
      expect(wrapped.argv).toContain('--unshare-net');
      const bridge = wrapped.argv.findIndex((a) => a.endsWith('sandbox-bridge.js'));
      expect(bridge).toBeGreaterThan(0);
      expect(wrapped.argv.slice(bridge + 1, bridge + 5)).toEqual([
        '--tcp',
        '3128:/run/agentguard/proxy.sock',
        '--dns',
        '/run/agentguard/dns.sock',
      ]);
      expect(wrapped.argv.slice(-1)).toEqual(['/bin/true']);
      expect(o.window.isWrapper(wrapped.argv.slice(bridge - 1))).toBe(true);
      expect(existsSync(path.join(runPath(o.runDir, 'net'), 'proxy.sock'))).toBe(true);
      const closed = await closeWindow(o, spec.argv);
      expect(closed.observation.network).toEqual({ mode: 'none', proxy: 'unix-socket bridge' });
      expect(closed.observation.fallbacks).toEqual([]);
    },
  );

  it.skipIf(!canTrace)(
    'under --guard enforce, the first critical alert stops the agent’s process group',
    async () => {
      const tracer: TracerPlan = { requested: 'strace', choice: await selectTracer('strace', TRACERS) };
      const o = await open({
        sandbox: await selectSandbox('bwrap', SANDBOXES, 'task.yaml'),
        tracer,
        guard: 'enforce',
        cfg: hostNet,
      });
      const guard = o.window.guard as LiveGuard;
      expect(guard.mode).toBe('enforce');
      const started = Date.now();
      const { spec, outcome } = await runInside(o, 'cat "$HOME/.ssh/id_rsa" > /dev/null; sleep 30', (pgid) =>
        guard.armed(() => process.kill(-pgid, 'SIGKILL')),
      );
      expect(Date.now() - started).toBeLessThan(25_000);
      expect(outcome.exit_code).not.toBe(0);
      expect(guard.stoppedAgent).toBe(true);
      expect(guard.incident('r').first_critical?.alert.rule).toMatch(/^secrets-/);
      expect(o.lines.join('\n')).toMatch(/guard: enforce — stopping the agent after critical alert secrets-/);
      const closed = await closeWindow(o, spec.argv);
      expect(closed.observation.tracer.kind).toBe('strace');
      expect(existsSync(runPath(o.runDir, 'canaries'))).toBe(true);
    },
    60_000,
  );

  it.skipIf(!canTrace)(
    'under --guard audit, the alert is printed and the agent runs to its end',
    async () => {
      const tracer: TracerPlan = { requested: 'strace', choice: await selectTracer('strace', TRACERS) };
      const o = await open({
        sandbox: await selectSandbox('bwrap', SANDBOXES, 'task.yaml'),
        tracer,
        guard: 'audit',
        cfg: hostNet,
      });
      const guard = o.window.guard as LiveGuard;
      const { spec, outcome } = await runInside(
        o,
        'cat "$HOME/.ssh/id_rsa" > /dev/null; sleep 1; exit 0',
        (pgid) => guard.armed(() => process.kill(-pgid, 'SIGKILL')),
      );
      expect(outcome.exit_code).toBe(0);
      expect(guard.stoppedAgent).toBe(false);
      expect(o.lines.join('\n')).toMatch(/^guard: critical secrets-/m);
      await closeWindow(o, spec.argv);
    },
    60_000,
  );
});

const unavailableEbpf = { ok: false as const, reason: 'not in this test', fix: 'none' };
