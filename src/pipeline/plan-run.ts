import os from 'node:os';
import path from 'node:path';
import { AGENTS, type AgentName } from '../agents/index.js';
import { loadTrajectory } from '../agents/model-server/trajectory.js';
import type { Trajectory } from '../agents/model-server/types.js';
import type { AgentContext, AgentPlan } from '../agents/types.js';
import type { ResolvedConfig } from '../config/schema.js';
import { ConfigError } from '../errors.js';
import type { SandboxKind, TracerRequest } from '../evidence/kinds.js';
import { runPath } from '../evidence/layout.js';
import { TRACERS } from '../observe/index.js';
import { selectTracer, type TracerPlan } from '../observe/select-tracer.js';
import { enforceFloor, type IsolationFloor, inputReach } from '../policy/isolation-floor.js';
import { judgementChanges } from '../policy/judgement-fields.js';
import { packFloor } from '../policy/pack-provenance.js';
import type { BatchRef } from '../provenance/manifest-schema.js';
import { SANDBOXES } from '../sandbox/index.js';
import { type SandboxChoice, selectSandbox } from '../sandbox/select-sandbox.js';
import type { Sandbox } from '../sandbox/types.js';
import type { RunContext } from './context.js';
import { checkDependencies, setupMakes } from './install-dependencies.js';
import type { GuardMode } from './live-guard.js';
import type { ModelReplay } from './model-replay.js';
import { resolveProgram } from './preflight.js';
import { type LoadedRules, loadRunRules } from './rules.js';
import { newRunId } from './run-id.js';
import { checkRunUserReach, type RunView, runView } from './run-view.js';
import { withSetupPath } from './setup-path.js';

export type RunOptions = {
  agent: AgentName;
  runId?: string;
  /** Overrides of the config's sandbox and tracer (the CLI's --sandbox and --tracer). */
  sandbox?: SandboxKind;
  tracer?: TracerRequest;
  /** Live security guard: print alerts as they happen (audit) or also stop the agent on a critical one. */
  guard?: GuardMode;
  /** Set when the run is one attempt of a batch: recorded in evidence/run.json and sealed in the manifest. */
  batch?: BatchRef;
  /**
   * Diagnostics without an agent (`diagnostics mutations`): a change the harness itself makes to
   * the prepared workspace after the baseline commit and before the observation window opens. No
   * process makes it and no tracer sees it: it reaches the verdict through the diff and the tests.
   */
  mutateWorkspace?: (repoDir: string) => void;
  /**
   * Set by the operator's command when the input is not the operator's own (a pull request, a queue
   * job, an imported pack): the run is refused before anything is written if it would fall below it.
   */
  floor?: IsolationFloor;
  /**
   * The operator's `--allow-below-floor`: a config from a pack (policy/pack-provenance.ts), which
   * otherwise runs no lower than the floor, may ask for less isolation.
   */
  allowBelowFloor?: boolean;
  /** `run --replay`: the recorded model's answers, served offline in place of the relay or script. */
  replay?: ModelReplay;
};

/**
 * Everything decided about a run before anything is written: `run` carries it out, `--dry-run` prints
 * it. The one place where the CLI's overrides meet the config and the sandbox and tracer are chosen.
 */
export type RunPlan = {
  /**
   * The config the run is judged by, as the run uses it (stored as config.json): the agent's state
   * folders and scripted model host added, and `sandbox` and `tracer` the ones chosen.
   */
  cfg: ResolvedConfig;
  started: Date;
  runId: string;
  runDir: string;
  repoDir: string;
  hostHome: string;
  /** Where the agent sees its HOME: the run's own HOME, at the user's home path inside a sandbox. */
  agentHome: string;
  taskFile: string;
  sandboxChoice: SandboxChoice;
  /** The tracer asked for (config and --tracer merged) and the one chosen, with every step down. */
  tracer: TracerPlan;
  agent: AgentPlan;
  /** What of the host the sandbox shows the agent besides its own folders (run-view.ts). */
  view: RunView;
  trajectory: Trajectory | null;
  rules: LoadedRules;
  guardMode: GuardMode;
};

/**
 * Checks everything that can be checked without writing — sandbox, agent plan, trajectory,
 * programs, rules — so a bad config fails with one clear error and leaves no debris.
 */
export async function planRun(ctx: RunContext, config: ResolvedConfig, opts: RunOptions): Promise<RunPlan> {
  const started = ctx.now();
  const runId = opts.runId ?? newRunId(started);
  const runDir = path.join(ctx.outputDir, 'runs', runId);
  const repoDir = runPath(runDir, 'repo');
  const hostHome = runPath(runDir, 'home');
  const taskFile = runPath(runDir, 'task');

  const sandboxChoice = await chooseSandbox(config, opts.sandbox);
  const { sandbox } = sandboxChoice;
  const agentHome = agentHomeFor(sandboxChoice, hostHome);
  const agentCtx: AgentContext = {
    config,
    runId,
    repoDir,
    taskFile,
    agentHome,
    hostHome,
    hostEnv: ctx.env,
  };
  const planned = AGENTS[opts.agent].plan(agentCtx);
  if (!planned.ok) {
    throw new ConfigError(
      `${config.config_path}: field '${planned.field}': ${planned.message}. Fix: ${planned.fix}.`,
    );
  }
  // A project script calling `pnpm`, `yarn`, `pytest` or `python` by name finds what setup made.
  const agent = withSetupPath(planned.plan, { agentHome, repoDir }, config, ctx.env.PATH);
  // A trajectory that does not parse stops the run here, before anything is written.
  const trajectory =
    opts.replay?.trajectory ?? (config.model_script ? loadTrajectory(config.model_script) : null);
  const cfg = withAgentFacts(config, agent);
  const agentProgram = agent.spec.argv[0] ?? '';
  const agentCwd = agent.spec.cwd === repoDir ? cfg.repo : agent.spec.cwd;
  if (!resolveProgram(agentProgram, agentCwd, agent.spec.env.PATH)) {
    throw new ConfigError(
      `${cfg.config_path}: field 'agent_command': the program '${agentProgram}' was not found or is not executable. ` +
        'Fix: install it, or give its absolute path.',
    );
  }
  const testProgram = cfg.test_command[0] ?? '';
  if (!resolveProgram(testProgram, cfg.repo, ctx.env.PATH) && !setupMakes(cfg, testProgram)) {
    throw new ConfigError(
      `${cfg.config_path}: field 'test_command': the program '${testProgram}' was not found in the template, on PATH or in what setup.dependencies installs. ` +
        'Fix: install it or correct the command.',
    );
  }
  checkDependencies(cfg, sandboxChoice, agent.spec.env.PATH);
  const rules = loadRunRules(cfg);
  // Last, after every check of the config: whether a tracer can run here is no fault of the config.
  const tracer = await chooseTracer(config, sandbox, opts.tracer);
  const floor =
    opts.floor ?? (opts.allowBelowFloor ? undefined : packFloor(cfg.config_path, '--allow-below-floor'));
  enforceFloor(floor, {
    file: cfg.config_path,
    sandbox: { kind: sandbox.kind, onHost: sandbox.capabilities.onHost },
    tracer: tracer.choice.kind,
    network: cfg.network.mode,
    setupCommand: cfg.setup_command !== undefined,
    reach: inputReach(config),
    ...(floor?.judgement ? { judgement: judgementChanges(config) } : {}),
  });
  // After the floor: what an input may ask to be shown is judged before whether it can be read.
  const view = runView(cfg, agent);
  if (sandbox.capabilities.runsAsRunUser && process.getuid?.() === 0) checkRunUserReach(view, cfg);
  return {
    cfg: { ...cfg, sandbox: sandbox.kind, tracer: tracer.choice.kind },
    started,
    runId,
    runDir,
    repoDir,
    hostHome,
    agentHome,
    taskFile,
    sandboxChoice,
    tracer,
    agent,
    view,
    trajectory,
    rules,
    guardMode: opts.guard ?? 'audit',
  };
}

/**
 * The sandbox a run uses: the override (`--sandbox`) or the config's, the first that works under
 * `auto`; one that cannot start without a config section the config lacks is refused here.
 */
export async function chooseSandbox(config: ResolvedConfig, override?: SandboxKind): Promise<SandboxChoice> {
  const choice = await selectSandbox(override ?? config.sandbox, SANDBOXES, config.config_path);
  const needs = choice.sandbox.capabilities.needsConfig;
  if (needs && config[needs.field] === undefined) {
    throw new ConfigError(
      `${config.config_path}: field '${needs.field}': sandbox '${choice.sandbox.kind}' ${needs.missing}. Fix: ${needs.fix}.`,
    );
  }
  return choice;
}

/**
 * The tracer a run plans to use: the override (`--tracer`) or the config's, the best that works here
 * under `auto`. A sandbox with a kernel of its own (microvm) is traced from inside: eBPF on the host
 * sees the VM, not the agent, so ebpf is the sandbox's in-guest tracer where it can run, else strace
 * in the guest (recorded as a fallback).
 */
export async function chooseTracer(
  config: ResolvedConfig,
  sandbox: Sandbox,
  override?: TracerRequest,
): Promise<TracerPlan> {
  const requested = override ?? config.tracer;
  const tracer: TracerPlan = { requested, choice: await selectTracer(requested, TRACERS) };
  const hidden = sandbox.capabilities.hiddenFromTracers;
  if (hidden?.seenFromCgroupTree && (await tracer.choice.tracer?.followsCgroupTree?.())) {
    tracer.choice = {
      ...tracer.choice,
      reason: `${tracer.choice.reason}; sandbox '${sandbox.kind}' runs its commands in a cgroup below the run's, which the compiled collector follows`,
    };
    return tracer;
  }
  if (hidden && tracer.choice.kind !== 'off') {
    const reason = `sandbox '${sandbox.kind}' ${hidden.reason}; fix: ${hidden.fix}`;
    const wanted = tracer.choice.kind;
    tracer.choice = {
      tracer: null,
      kind: 'off',
      reason: `not traced: ${reason}`,
      fallbacks: [...tracer.choice.fallbacks, { component: 'tracer', wanted, used: 'off', reason }],
    };
    return tracer;
  }
  if (!sandbox.capabilities.tracesInGuest || tracer.choice.kind !== 'ebpf') return tracer;
  const guest = sandbox.guestTracer;
  const guestReady = guest ? await guest.available() : null;
  if (guest && guestReady?.ok) {
    tracer.choice = {
      ...tracer.choice,
      tracer: guest,
      version: guestReady.version,
      reason: `${tracer.choice.reason}; sandbox '${sandbox.kind}' runs the agent on its own kernel, so the collector runs inside it`,
    };
    return tracer;
  }
  const inGuest = await selectTracer('strace', TRACERS);
  const why = guestReady && !guestReady.ok ? ` (${guestReady.reason}; fix: ${guestReady.fix})` : '';
  const reason = `sandbox '${sandbox.kind}' runs the agent on its own kernel, where the host's eBPF cannot see, and its in-guest eBPF cannot run${why}; strace traces inside it`;
  tracer.choice = {
    ...inGuest,
    reason: `${inGuest.reason}: ${reason}`,
    fallbacks: [
      ...tracer.choice.fallbacks,
      { component: 'tracer', wanted: 'ebpf', used: inGuest.kind, reason },
      ...inGuest.fallbacks,
    ],
  };
  return tracer;
}

/** Where the agent sees its HOME: where the sandbox hides the user's own HOME, the run's HOME is shown there. */
export function agentHomeFor(choice: SandboxChoice, hostHome: string): string {
  return choice.sandbox.capabilities.hidesHome ? sandboxHome() : hostHome;
}

/**
 * The HOME the sandboxed agent sees: the user's own (hidden behind the run's canary HOME) when it is
 * an ordinary home folder, else /home/agent — a HOME under /tmp would make the rules treat the
 * agent's home as scratch space.
 */
export function sandboxHome(): string {
  const home = os.homedir();
  return /^\/(root|home\/[^/]+)\/?$/.test(home) ? home : '/home/agent';
}

/** The config the run is judged by: the profile's state folders and the scripted model's name added. */
function withAgentFacts(cfg: ResolvedConfig, plan: AgentPlan): ResolvedConfig {
  const host = plan.model_endpoint?.host;
  return {
    ...cfg,
    security: { ...cfg.security, state_dirs: [...cfg.security.state_dirs, ...(plan.state_dirs ?? [])] },
    network: host ? { ...cfg.network, allow: [...cfg.network.allow, host] } : cfg.network,
  };
}
