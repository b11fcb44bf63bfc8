import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RuleSet } from '../analysis/rules/types.js';
import type { ResolvedConfig } from '../config/schema.js';
import type { TracerKind } from '../evidence/kinds.js';
import { runPath } from '../evidence/layout.js';
import type { NetworkRecord, Observation, SysEvent } from '../evidence/types.js';
import { writeJson } from '../evidence/write.js';
import type { Disposer } from '../exec/disposer.js';
import { unlessStopped } from '../exec/interrupt.js';
import type { SpawnSpec } from '../exec/types.js';
import { TRACERS } from '../observe/index.js';
import {
  bridgeSpawn,
  DNS_SOCKET_NAME,
  DnsResponder,
  EgressProxy,
  PROXY_SOCKET_NAME,
  proxyEnv,
} from '../observe/proxy/index.js';
import { scopeToAgent } from '../observe/scope-events.js';
import { startTracer, type TracerPlan } from '../observe/select-tracer.js';
import type { TracerSession } from '../observe/types.js';
import { readHostPolicy } from '../policy/host-policy.js';
import { seedCanaryHome } from '../sandbox/canaries.js';

import type { SandboxChoice } from '../sandbox/select-sandbox.js';
import type { HarnessWrapper, RunUser, SandboxSession } from '../sandbox/types.js';
import type { SetupStep } from './faults.js';
import { type GuardMode, LiveGuard } from './live-guard.js';
import { type OwnCredentials, outboundScan } from './outbound-scan.js';
import type { Timeline } from './timeline.js';

export type WindowRequest = {
  cfg: ResolvedConfig;
  runId: string;
  runDir: string;
  repoDir: string;
  hostHome: string;
  agentHome: string;
  visible: string[];
  writable?: string[];
  withheld?: string[];
  /** Said in observation.json: the agent is shown the task's solution (run-view.ts), or it is withheld. */
  solutionShown?: boolean;
  /** The run's own user, when the sandbox runs commands as one (SandboxContext.user). */
  user?: RunUser;
  /** The sandbox and tracer chosen when the run was planned (planRun), with their fallbacks. */
  sandboxChoice: SandboxChoice;
  tracer: TracerPlan;
  timeline: Timeline;
  log: (line: string) => void;
  /** The live guard: rules applied to events as they arrive. */
  guard?: { mode: Exclude<GuardMode, 'off'>; rules: RuleSet; vendorHosts?: readonly string[] };
  /**
   * Names the harness itself serves to the agent (the scripted model: `model.agentguard.test` →
   * `127.0.0.1:PORT`). They are always allowed and always reachable through the proxy, whatever
   * the network mode.
   */
  harnessHosts?: Record<string, string>;
  /** The credentials the run gave the agent and the hosts they are for (its model provider's). */
  ownCredentials?: OwnCredentials;
  /**
   * Secrets of the harness's that must never leave the sandbox (the relay's real key): scanned for
   * in everything that leaves as a canary is, but never planted or written to evidence.
   */
  harnessSecrets?: readonly { kind: string; token: string }[];
  /** Every resource the window opens is registered here as it is acquired (released on any exit). */
  disposer: Disposer;
  /** Ends the run (signal, run time limit): a tracer still starting is abandoned and released. */
  signal?: AbortSignal;
  /** Test seam: called before each setup step; a throw there is a failure of that step. */
  fault?: (step: SetupStep) => void;
};

/** observation.json keeps the first of the tracer's warnings (a hostile workload can cause many). */
const MAX_TRACER_WARNINGS = 20;

/** Calls `fn` once; later calls get the first call's promise. */
function once<T>(fn: () => Promise<T>): () => Promise<T> {
  let result: Promise<T> | null = null;
  return () => {
    result ??= fn();
    return result;
  };
}

export type ClosedWindow = {
  /** The agent's own process tree. */
  syscalls: SysEvent[];
  /** The test command's process tree: the tests run the agent's code, so they are watched too. */
  testSyscalls: SysEvent[];
  observation: Observation;
};

/**
 * Everything that watches the agent: the sandbox it runs in, the tracer around it, the egress proxy
 * and DNS responder it talks through, and the canary HOME it finds. Opened after the workspace is
 * prepared. The network side ends with the agent (`endAgent`); the tracer goes on through the tests,
 * which run the agent's code in the same sandbox and HOME, and stops at `close`, where its events
 * are cut into the agent's process tree and the tests' tree.
 */
export class ObservationWindow {
  private constructor(
    readonly sandbox: SandboxSession,
    private readonly req: WindowRequest,
    private readonly tracer: TracerSession | null,
    private readonly tracerInfo: Observation['tracer'],
    private readonly proxy: EgressProxy | null,
    private readonly dns: DnsResponder | null,
    private readonly stops: {
      proxy: () => Promise<NetworkRecord[]>;
      dns: () => Promise<NetworkRecord[]>;
    },
    private readonly fallbacks: Observation['fallbacks'],
    private readonly opened: number,
    readonly guard: LiveGuard | null,
  ) {}

  static async open(req: WindowRequest): Promise<ObservationWindow> {
    const { cfg } = req;
    const t0 = Date.now();
    const clock = () => Date.now() - t0;
    const fallbacks: Observation['fallbacks'] = [];
    const choice = req.sandboxChoice;
    if (choice.fallback) {
      fallbacks.push(choice.fallback);
      req.log(`warning: ${choice.fallback.reason}`);
    }
    const agentHome = req.agentHome;
    const canaries = seedCanaryHome(req.hostHome);
    const guard = req.guard
      ? new LiveGuard(
          req.guard.mode,
          req.guard.rules,
          {
            cfg,
            workspace: req.repoDir,
            home: agentHome,
            canaries,
            t0,
            ...(req.guard.vendorHosts ? { vendorHosts: req.guard.vendorHosts } : {}),
            ...(req.user && choice.sandbox.capabilities.runsAsRunUser ? { runUser: req.user } : {}),
            alertsFile: runPath(req.runDir, 'liveAlerts'),
          },
          req.log,
        )
      : null;
    const onEvent = guard?.onEvent;
    const onRecord = guard?.onRecord;
    writeFileSync(
      runPath(req.runDir, 'canaries'),
      `${JSON.stringify({ home: agentHome, canaries }, null, 2)}\n`,
    );

    // An isolated sandbox reaches the outside only through the harness's proxy and DNS responder,
    // even with network 'none' (then everything is refused), so every attempt is named in evidence.
    let proxy: EgressProxy | null = null;
    let dns: DnsResponder | null = null;
    let proxyDir: string | undefined;
    let stopProxy = async (): Promise<NetworkRecord[]> => [];
    let stopDns = async (): Promise<NetworkRecord[]> => [];
    const mode = cfg.network.mode;
    const can = choice.sandbox.capabilities;
    const outbound = outboundScan(cfg, [...canaries, ...(req.harnessSecrets ?? [])], req.ownCredentials);
    const scanning = outbound ? { outbound } : {};
    const harnessHosts = req.harnessHosts ?? {};
    const harnessNames = Object.keys(harnessHosts);
    const hosts = { ...cfg.network.hosts, ...harnessHosts };
    const allow = [...(mode === 'allowlist' ? cfg.network.allow : []), ...harnessNames];
    if (mode !== 'host' && can.bridgesProxy) {
      proxyDir = runPath(req.runDir, 'net');
      mkdirSync(proxyDir, { recursive: true });
      proxy = new EgressProxy({
        internalAllowed: readHostPolicy().network_hosts,
        allow,
        hosts,
        mode: 'allowlist',
        clock,
        unixPath: path.join(proxyDir, PROXY_SOCKET_NAME),
        ...scanning,
        ...(onRecord ? { onRecord } : {}),
      });
      dns = new DnsResponder({
        hosts,
        clock,
        unixPath: path.join(proxyDir, DNS_SOCKET_NAME),
        ...scanning,
        ...(onRecord ? { onRecord } : {}),
      });
      req.fault?.('proxy');
      await proxy.start();
      stopProxy = once(() => (proxy as EgressProxy).stop());
      req.disposer.add('egress proxy', stopProxy);
      req.fault?.('dns');
      await dns.start();
      stopDns = once(() => (dns as DnsResponder).stop());
      req.disposer.add('DNS responder', stopDns);
      writeFileSync(
        path.join(proxyDir, 'resolv.conf'),
        'nameserver 127.0.0.1\noptions attempts:1 timeout:2\n',
      );
    } else if (mode === 'allowlist' || harnessNames.length > 0) {
      // Without a network namespace the proxy is advisory (HTTP_PROXY); it is still how the agent
      // reaches names the harness serves. With network 'host' it lets everything through, recorded.
      proxy = new EgressProxy({
        internalAllowed: readHostPolicy().network_hosts,
        allow,
        hosts,
        mode: mode === 'host' ? 'observe' : 'allowlist',
        clock,
        tcpPort: 0,
        ...scanning,
        ...(onRecord ? { onRecord } : {}),
      });
      req.fault?.('proxy');
      await proxy.start();
      stopProxy = once(() => (proxy as EgressProxy).stop());
      req.disposer.add('egress proxy', stopProxy);
    }
    if (mode === 'allowlist' && proxy?.address?.tcpPort && can.isolatesNetwork) {
      // The sandbox's network namespace has no way to the proxy on the host's loopback: no network.
      fallbacks.push({
        component: 'network',
        wanted: 'allowlist (enforced)',
        used: 'none',
        reason: `sandbox '${choice.sandbox.kind}' takes the network away and hosts no proxy bridge (one inside would run as the agent's user, within its reach), so the allowed hosts are unreachable; fix: use the bwrap sandbox for an allow list`,
      });
    } else if (mode === 'allowlist' && proxy?.address?.tcpPort) {
      const reason = `sandbox '${choice.sandbox.kind}' cannot force traffic through the proxy; HTTP_PROXY points at it, but a program may bypass it`;
      fallbacks.push({
        component: 'network',
        wanted: 'allowlist (enforced)',
        used: 'allowlist (advisory)',
        reason,
      });
    } else if (mode === 'none' && !can.isolatesNetwork) {
      fallbacks.push({
        component: 'network',
        wanted: 'none',
        used: 'host',
        reason: `sandbox '${choice.sandbox.kind}' cannot take the network away`,
      });
    }

    req.fault?.('sandbox');
    const sandbox = await choice.sandbox.start({
      runId: req.runId,
      runDir: req.runDir,
      repoDir: req.repoDir,
      hostHome: req.hostHome,
      agentHome,
      visible: req.visible,
      ...(req.writable ? { writable: req.writable } : {}),
      ...(req.withheld ? { withheld: req.withheld } : {}),
      ...(req.user ? { user: req.user } : {}),
      network: cfg.network,
      ...(proxyDir ? { proxyDir } : {}),
      ...(cfg.container ? { container: cfg.container } : {}),
      ...(cfg.microvm ? { microvm: cfg.microvm } : {}),
    });

    req.disposer.add('sandbox', () => sandbox.stop());

    // A sandbox whose commands only a tracer following the run's cgroup tree sees: that one, or none.
    const seenFromTree = choice.sandbox.capabilities.hiddenFromTracers?.seenFromCgroupTree === true;
    const scratch = runPath(req.runDir, 'tracerScratch');
    mkdirSync(scratch, { recursive: true });
    const tracerChoice = await startTracer(
      req.tracer.requested,
      TRACERS,
      (tracer) => {
        req.fault?.('tracer');
        const starting = tracer.start({
          run_id: req.runId,
          scratch_dir: scratch,
          workspace: req.repoDir,
          ...(onEvent ? { onEvent } : {}),
          ...(seenFromTree ? { needsCgroupTree: true } : {}),
        });
        // A tracer that finishes starting after the run was ended is stopped at once.
        return unlessStopped(starting, req.signal, (late) => late.stop());
      },
      req.log,
      req.tracer.choice,
      seenFromTree
        ? `sandbox '${sandbox.kind}' ${choice.sandbox.capabilities.hiddenFromTracers?.reason}: no other tracer sees it`
        : undefined,
    );
    fallbacks.push(...tracerChoice.fallbacks);
    const tracer = tracerChoice.session;
    if (tracer) req.disposer.add(`${tracer.kind} tracer`, () => tracer.stop());
    if (guard) guard.eventClockZero = tracer?.zeroWallMs ?? Date.now();
    const tracerInfo: Observation['tracer'] = {
      requested: req.tracer.requested,
      kind: tracerChoice.kind,
      reason: tracerChoice.reason,
      lost_events: 0,
      ...(tracerChoice.version ? { version: tracerChoice.version } : {}),
    };
    // config.json names the tracer used: under `auto` a planned tracer that failed to start gave way.
    if (tracerChoice.kind !== cfg.tracer)
      writeJson(runPath(req.runDir, 'config'), { ...cfg, tracer: tracerChoice.kind });
    req.timeline.add(
      'observe',
      'window-open',
      `sandbox ${sandbox.kind}, tracer ${tracerChoice.kind}, network ${mode}`,
    );
    return new ObservationWindow(
      sandbox,
      req,
      tracer,
      tracerInfo,
      proxy,
      dns,
      { proxy: stopProxy, dns: stopDns },
      fallbacks,
      t0,
      guard,
    );
  }

  /** A tracer wraps the agent (its launcher turns a signal death into exit 128+N). */
  get traced(): boolean {
    return this.tracer !== null;
  }

  /** The agent runs under a launcher, the sandbox's or the tracer's, that reports a signal death as exit 128+N. */
  get wrapped(): boolean {
    return this.req.sandboxChoice.sandbox.capabilities.wrapsCommands || this.traced;
  }

  /** The tracer that started: the planned one, or the next when it failed to start under `auto`. */
  get tracerKind(): TracerKind {
    return this.tracerInfo.kind;
  }

  /** The harness's own wrapper processes in the agent's tree (the sandbox bridge), by their argv. */
  isWrapper(argv: string[]): boolean {
    return this.proxy?.address?.unixPath !== undefined && (argv[1] ?? '').endsWith('sandbox-bridge.js');
  }

  /** What the bridge quotes when it cannot start: its failure is then the harness's, not the agent's. */
  readonly bridgeToken = randomBytes(16).toString('hex');

  /** The agent's command as it must be spawned: through the bridge, inside the sandbox, under the tracer. */
  wrapAgent(spec: SpawnSpec): SpawnSpec {
    this.guard?.watch(spec.argv);
    if (this.proxy?.address?.unixPath) {
      const bridge: HarnessWrapper = (command, proxyDir) =>
        bridgeSpawn(command, {
          proxySocket: `${proxyDir}/${PROXY_SOCKET_NAME}`,
          ...(this.dns ? { dnsSocket: `${proxyDir}/${DNS_SOCKET_NAME}` } : {}),
          setupToken: this.bridgeToken,
        });
      return this.sandboxAndTrace(spec, bridge);
    }
    if (this.proxy?.address?.tcpPort)
      return this.sandboxAndTrace({ ...spec, env: { ...spec.env, ...proxyEnv(this.proxy.address.tcpPort) } });
    return this.sandboxAndTrace(spec);
  }

  /**
   * Inside the sandbox (under the harness's wrapper, which the sandbox keeps at the harness's uid),
   * under the tracer; a sandbox with its own kernel runs the tracer inside it, around the wrapper.
   */
  private sandboxAndTrace(spec: SpawnSpec, harness?: HarnessWrapper): SpawnSpec {
    if (this.req.sandboxChoice.sandbox.capabilities.tracesInGuest) {
      // The tracer is the harness's too: the sandbox drops only the command to the run user.
      const tracer = this.tracer;
      if (!tracer) return this.sandbox.wrap(spec, harness);
      return this.sandbox.wrap(spec, (command, dir) =>
        tracer.wrap(harness ? harness(command, dir) : command),
      );
    }
    const sandboxed = this.sandbox.wrap(spec, harness, this.tracer?.cgroupTree);
    return this.tracer ? this.tracer.wrap(sandboxed) : sandboxed;
  }

  /** The test command as it must be spawned: inside the same sandbox (no network), under the tracer. */
  wrapTests(spec: SpawnSpec): SpawnSpec {
    this.testsStartWallMs ??= Date.now();
    return this.sandboxAndTrace(spec);
  }

  private testsStartWallMs: number | null = null;

  /** The agent has exited: stop the proxy and DNS responder and return what they recorded. */
  async endAgent(): Promise<NetworkRecord[]> {
    const network = [...(await this.stops.proxy()), ...(await this.stops.dns())];
    return network.sort((a, b) => a.ts - b.ts);
  }

  /**
   * Stop watching: the tracer's events, cut into the agent's own process tree and, from the moment
   * the tests started, the test command's tree (the harness's launchers are neither).
   */
  async close(agentArgv: string[], testArgv: string[]): Promise<ClosedWindow> {
    const closed = Date.now();
    await this.endAgent();
    const traced = this.tracer ? await this.tracer.stop() : null;
    this.req.timeline.add('observe', 'window-close');
    let syscalls: SysEvent[] = [];
    let testSyscalls: SysEvent[] = [];
    const tracer = { ...this.tracerInfo };
    if (traced) {
      const scoped = scopeToAgent(traced.events, agentArgv);
      syscalls = scoped.events;
      testSyscalls = this.testEvents(traced.events, new Set(syscalls.map((e) => e.seq)), testArgv);
      tracer.lost_events = traced.lost_events;
      tracer.version = traced.version;
      if (traced.binds) tracer.binds = true;
      if (traced.paths) tracer.paths = traced.paths;
      const zero = this.tracer?.zeroWallMs;
      if (typeof zero === 'number') tracer.zero_wall_ms = Math.round(zero);
      if (traced.incomplete) {
        tracer.incomplete = traced.incomplete;
        this.req.log(`warning: observation incomplete: ${traced.incomplete}`);
      }
      if (traced.warnings.length > 0) tracer.warnings = traced.warnings.slice(0, MAX_TRACER_WARNINGS);
      if (traced.fallback) {
        this.fallbacks.push(traced.fallback);
        this.req.log(
          `warning: ${traced.fallback.wanted} gave way to ${traced.fallback.used}: ${traced.fallback.reason}`,
        );
      }
      if (traced.kind) tracer.kind = traced.kind;
      // No agent argv (CI mode): nothing is the agent's, and that is no tracer's fault.
      if (scoped.rootPid === null && traced.events.length > 0 && agentArgv.length > 0) {
        tracer.reason = `${tracer.reason}; the agent's own exec was not seen, so no event could be attributed to it`;
      }
    }
    const observation: Observation = {
      sandbox: {
        kind: this.sandbox.kind,
        version: this.sandbox.version,
        isolated: this.sandbox.isolated,
        detail: this.sandbox.detail,
        facts: {
          ...this.sandbox.facts,
          ...(this.req.solutionShown !== undefined
            ? {
                solution: this.req.solutionShown
                  ? "shown to the agent: the config or the agent's plan names it"
                  : 'withheld from the agent',
              }
            : {}),
        },
      },
      tracer,
      network: {
        mode: this.req.cfg.network.mode,
        ...(this.proxy
          ? { proxy: this.proxy.address?.unixPath ? 'unix-socket bridge' : 'loopback tcp (advisory)' }
          : {}),
        ...(this.proxy?.address?.tcpPort ? { endpoint: `127.0.0.1:${this.proxy.address.tcpPort}` } : {}),
      },
      kernel: `${os.type()} ${os.release()}`,
      fallbacks: this.fallbacks,
      window: { opened_ms: 0, closed_ms: closed - this.opened, opened_wall_ms: this.opened },
    };
    return { syscalls, testSyscalls, observation };
  }

  /**
   * The tests' tree: the first exec of the test command after the tests started (so an agent that
   * ran the same command itself is not taken for them), outside the agent's own tree.
   */
  private testEvents(events: readonly SysEvent[], agentSeqs: Set<number>, testArgv: string[]): SysEvent[] {
    if (this.testsStartWallMs === null) return [];
    const zero = this.tracer?.zeroWallMs ?? null;
    // Without the tracer's clock, the agent's tree is still excluded by sequence number.
    const from = zero === null ? Number.NEGATIVE_INFINITY : this.testsStartWallMs - zero - CLOCK_SLACK_MS;
    const candidates = events.filter((e) => !agentSeqs.has(e.seq) && e.ts >= from);
    return scopeToAgent(candidates, testArgv).events;
  }
}

/** Tracer timestamps and the harness's clock can disagree by a few milliseconds. */
const CLOCK_SLACK_MS = 50;
