import type { AgentName } from '../agents/index.js';
import type { ResolvedConfig } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import type { RunContext } from '../pipeline/context.js';
import { readBundle } from '../pipeline/read-bundle.js';
import { runTask } from '../pipeline/run-task.js';
import { MODE_TRACER, type OverheadMode, withEngine } from './modes.js';
import { collectorDaemonCpu, daemonShare, settleChildren, waitedChildrenCpuMs } from './process-cpu.js';

/** One observed (or unobserved) run of the task. */
export type OverheadSample =
  | {
      mode: OverheadMode;
      trial: number;
      status: 'ok';
      run_id: string;
      verdict: string;
      /** The whole run: prepare, agent, diff, tests, analysis, reports, history. */
      wall_ms: number;
      /** The agent's command and the test command, as the run recorded them. */
      agent_ms: number;
      tests_ms: number;
      /**
       * CPU of the processes the harness started and waited for (agent, tests, git, sandbox, and
       * the strace or bpftrace process where that observes): /proc/self/stat cutime + cstime. The
       * collector is a separate daemon; its own CPU is not here, its BPF programs' is (they run in
       * the traced processes' system time).
       */
      child_cpu_ms: number;
      /** The harness's own CPU (reading and joining trace records included). */
      harness_cpu_ms: number;
      /** The collector daemon's CPU during the run (collector mode only; it serves every run on the host). */
      daemon_cpu_ms: number;
      /** Events the run recorded: the agent's and the tests' syscalls. */
      events: number;
      /** What observed the run, from its observation.json. */
      observed_by: string;
      note?: string;
    }
  | { mode: OverheadMode; trial: number; status: 'failed'; error: string };

/** One run of the task through the normal pipeline, observed the mode's way, and what it cost. */
export async function measureRun(
  ctx: RunContext,
  cfg: ResolvedConfig,
  agent: AgentName,
  mode: OverheadMode,
  trial: number,
): Promise<OverheadSample> {
  const { tracer, engine } = MODE_TRACER[mode];
  const daemon0 = await collectorDaemonCpu();
  const cpu0 = process.cpuUsage();
  const child0 = waitedChildrenCpuMs();
  const t0 = performance.now();
  try {
    const result = await withEngine(engine, () => runTask(ctx, cfg, { agent, tracer }));
    const wall = performance.now() - t0;
    const harness = process.cpuUsage(cpu0);
    const daemon1 = await collectorDaemonCpu();
    const settled = await settleChildren(new Set(daemon1 ? [daemon1.pid] : []));
    const childAll = waitedChildrenCpuMs() - child0;
    const { daemonMs, reapedMs } = daemonShare(daemon0, daemon1);
    const child = Math.max(0, childAll - reapedMs);
    const bundle = readBundle(result.runDir);
    const agentCmd = bundle.commands.find((c) => c.role === 'agent');
    const t = bundle.observation.tracer;
    const observedBy = t.kind === 'off' ? 'off (not traced)' : `${t.kind}${t.version ? ` ${t.version}` : ''}`;
    const fellBack = bundle.observation.fallbacks.find((f) => f.component === 'tracer');
    return {
      mode,
      trial,
      status: 'ok',
      run_id: result.report.run_id,
      verdict: result.report.result,
      wall_ms: Math.round(wall),
      agent_ms: Math.round(agentCmd?.duration_ms ?? 0),
      tests_ms: Math.round(bundle.tests.duration_ms),
      child_cpu_ms: Math.round(child),
      harness_cpu_ms: Math.round((harness.user + harness.system) / 1000),
      daemon_cpu_ms: mode === 'collector' ? Math.round(daemonMs) : 0,
      events: bundle.syscalls.length + bundle.test_syscalls.length,
      observed_by: fellBack ? `${observedBy} (instead of ${fellBack.wanted})` : observedBy,
      ...(settled
        ? {}
        : { note: 'a child process outlived the run by over 60 s: its CPU may count in a later run' }),
    };
  } catch (err) {
    return { mode, trial, status: 'failed', error: errorMessage(err).split('\n')[0] ?? '' };
  }
}
