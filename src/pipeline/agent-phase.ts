import os from 'node:os';
import type { AgentPlan } from '../agents/types.js';
import type { ResolvedConfig } from '../config/schema.js';
import type { AgentEvidence, AgentOutcome } from '../evidence/bundle-types.js';
import { describeStop, RunStopped, type StopReason, stoppedBy } from '../exec/interrupt.js';
import { BRIDGE_SETUP_FAILED, bridgeSetupFailure } from '../observe/proxy/bridge-protocol.js';
import type { CommandLog } from './commands.js';
import { matchUnsafe } from './preflight.js';
import type { Timeline } from './timeline.js';

const VERSION_TIMEOUT_MS = 15_000;

/** Ask the agent for its version, outside the observation window (it is setup, not behaviour). */
export async function probeVersion(
  plan: AgentPlan,
  cfg: ResolvedConfig,
  commands: CommandLog,
  wrap: (spec: AgentPlan['spec']) => AgentPlan['spec'] = (spec) => spec,
): Promise<string | null> {
  if (!plan.version_argv) return null;
  const { record } = await commands.run({
    role: 'agent-version',
    spec: wrap({ ...plan.spec, argv: plan.version_argv }),
    argv: plan.version_argv,
    display_argv: plan.version_argv,
    cwd: plan.spec.cwd,
    timeoutMs: VERSION_TIMEOUT_MS,
    maxOutputBytes: 64 * 1024,
    policy: matchUnsafe(plan.version_argv, cfg.unsafe_commands, cfg.command_policy),
  });
  if (record.exit_code !== 0) return null;
  const line = (record.stdout.trim() || record.stderr.trim()).split('\n')[0] ?? '';
  return line.slice(0, 200) || null;
}

export type AgentPhaseInput = {
  plan: AgentPlan;
  cfg: ResolvedConfig;
  /** How the agent's command is really spawned (bridge, sandbox, tracer). */
  wrap: (spec: AgentPlan['spec']) => AgentPlan['spec'];
  /** Called with the agent's process-group id once it runs (the live guard's way to stop it). */
  onAgentStart?: (pgid: number) => void;
  /** The agent runs under a wrapper (bwrap, podman) that reports a signal death as exit 128+N. */
  wrapped: boolean;
  commands: CommandLog;
  timeline: Timeline;
  logFile: string;
  version: string | null;
  /** Harness wrappers in the agent's tree (the sandbox bridge) that must not hold its exit hostage. */
  isWrapper?: (argv: string[]) => boolean;
  /** The live guard killed the agent's process group. */
  guardStopped?: () => boolean;
  /** Why the run was ended, once it has been (the agent's outcome then says so). */
  stopReason?: () => StopReason | null;
  /** The sandbox bridge's setup token: a failure line quoting it is the harness's failure. */
  bridgeToken?: string;
};

/** What the agent's profile says about it that the analysis judges by: kept with its identity. */
export function profileFacts(
  plan: Pick<AgentPlan, 'vendor_hosts' | 'prompt_off'>,
): Pick<AgentEvidence, 'vendor_hosts' | 'prompt_off'> {
  return {
    ...(plan.vendor_hosts ? { vendor_hosts: plan.vendor_hosts } : {}),
    ...(plan.prompt_off ? { prompt_off: plan.prompt_off } : {}),
  };
}

/** Run the agent once under the command policy; its failure, crash or timeout is returned as data. */
export async function runAgent(input: AgentPhaseInput): Promise<AgentEvidence> {
  const { plan, cfg, commands, timeline } = input;
  const policy = matchUnsafe(plan.spec.argv, cfg.unsafe_commands, cfg.command_policy);
  const blocked = cfg.command_policy === 'enforce' && policy.length > 0;
  const evidence = (outcome: AgentOutcome, commandId: string | null): AgentEvidence => ({
    adapter: plan.adapter,
    name: plan.name,
    version: input.version,
    model: plan.model,
    metadata: plan.metadata,
    outcome,
    command_id: commandId,
    ...profileFacts(plan),
  });
  if (blocked) timeline.add('agent', 'blocked', `matches unsafe pattern ${policy[0]?.pattern}`);
  const { record, outcome } = await commands.run({
    role: 'agent',
    spec: input.wrap(plan.spec),
    argv: plan.spec.argv,
    display_argv: plan.display_argv,
    cwd: plan.spec.cwd,
    timeoutMs: cfg.timeout_seconds * 1000,
    maxOutputBytes: cfg.max_output_bytes,
    policy,
    blocked,
    logFile: input.logFile,
    onStart: (pid) => {
      timeline.add('agent', 'started', `pid ${pid}`);
      input.onAgentStart?.(pid);
    },
    ...(input.isWrapper ? { isWrapper: input.isWrapper } : {}),
    ...(input.guardStopped ? { stoppedByHarness: input.guardStopped } : {}),
  });
  if (blocked) {
    return evidence(
      { status: 'blocked', reason: `command policy 'enforce' matched ${policy[0]?.pattern}` },
      record.id,
    );
  }
  if (outcome?.spawn_error) {
    timeline.add('agent', 'errored', outcome.spawn_error);
    return evidence({ status: 'errored', error: outcome.spawn_error }, record.id);
  }
  const stopped = outcome?.aborted ? input.stopReason?.() : null;
  if (stopped) {
    const reason = `stopped by the harness: ${describeStop(stopped)}`;
    timeline.add('agent', 'stopped', reason);
    return evidence({ status: 'stopped', by: stoppedBy(stopped), reason }, record.id);
  }
  if (record.timed_out) {
    timeline.add('agent', 'timed-out', `after ${cfg.timeout_seconds}s; process group killed`);
    return evidence({ status: 'timed-out', timeout_seconds: cfg.timeout_seconds }, record.id);
  }
  const bridgeFailed =
    record.exit_code === BRIDGE_SETUP_FAILED && input.bridgeToken
      ? bridgeSetupFailure(record.stderr, input.bridgeToken)
      : null;
  if (bridgeFailed !== null) {
    timeline.add('agent', 'not-started', `the sandbox bridge could not start: ${bridgeFailed}`);
    throw new RunStopped({
      kind: 'setup-failed',
      step: 'the sandbox bridge',
      detail: `${bridgeFailed}; the agent never started. Fix: run 'agentguard doctor' as the same user; the bridge needs root (or run with network.mode: none)`,
      harness: true,
    });
  }
  timeline.add('agent', 'exited', `exit ${record.exit_code ?? record.signal}`);
  if (outcome?.stragglers_killed)
    timeline.add('agent', 'stragglers-killed', 'background processes left running');
  if (record.exit_code === 0) return evidence({ status: 'completed', exit_code: 0 }, record.id);
  const signal = record.signal ?? (input.wrapped ? signalFromStatus(record.exit_code) : null);
  return evidence({ status: 'failed', exit_code: record.exit_code, signal }, record.id);
}

/** 128+N from a wrapper means the wrapped process died of signal N. */
export function signalFromStatus(code: number | null): string | null {
  if (code === null || code <= 128 || code > 128 + 64) return null;
  const entry = Object.entries(os.constants.signals).find(([, n]) => n === code - 128);
  return entry ? entry[0] : null;
}
