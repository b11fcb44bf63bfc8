import { errorMessage, SetupError } from '../../errors.js';
import { RunStopped } from '../../exec/interrupt.js';
import type { TracerAvailability, TracerContext, TracerSession } from '../types.js';
import { checkAvailability, checkHost, guarded } from './availability.js';
import type { BpftraceSession } from './bpftrace-session.js';
import { startCollectorSession } from './collector/collector-session.js';
import {
  buildCollectorCommand,
  collectorBinary,
  ENGINE_ENV,
  isExecutable,
  requestedEngine,
} from './collector/paths.js';

export const COLLECTOR_ENGINE = 'ebpf (compiled collector)';
export const BPFTRACE_ENGINE = 'ebpf (bpftrace)';

/** Can the compiled collector serve runs here? (It is built at install time.) Never throws. */
export function collectorAvailability(): Promise<TracerAvailability> {
  return guarded(async () => {
    const host = await checkHost();
    if (!host.ok) return host;
    const binary = collectorBinary();
    if (!isExecutable(binary)) {
      return {
        ok: false,
        reason: `the compiled collector is not built (${binary} is missing)`,
        fix: buildCollectorCommand(),
      };
    }
    return { ok: true, version: 'agentguard-collector (compiled CO-RE, libbpf)' };
  });
}

/**
 * The ebpf tracer's availability: the compiled collector where it is built, else bpftrace
 * (AGENTGUARD_EBPF_ENGINE=collector or =bpftrace asks for one of them only).
 */
export function ebpfAvailability(): Promise<TracerAvailability> {
  return guarded(async () => {
    const engine = requestedEngine();
    if (engine === 'bpftrace') return checkAvailability();
    const collector = await collectorAvailability();
    if (collector.ok || engine === 'collector') return collector;
    const bpftrace = await checkAvailability();
    if (bpftrace.ok) return bpftrace;
    return {
      ok: false,
      reason:
        collector.reason === bpftrace.reason
          ? collector.reason
          : `${collector.reason}, and bpftrace cannot run either: ${bpftrace.reason}`,
      fix: bpftrace.fix,
    };
  });
}

/**
 * Starts the ebpf tracer: the host's compiled collector, else bpftrace, the step down recorded on
 * the session (`fallback`) with the reason, so the run's evidence and output say which one watched.
 */
export async function startEbpf(ctx: TracerContext): Promise<TracerSession> {
  const engine = requestedEngine();
  if (ctx.needsCgroupTree) return startCollectorForTree(ctx, engine);
  if (engine === 'bpftrace') return startBpftraceSession(ctx);
  const collector = await collectorAvailability();
  let why: string;
  if (collector.ok) {
    try {
      return await startCollectorSession(ctx);
    } catch (err) {
      if (err instanceof RunStopped || engine === 'collector') throw err;
      why = errorMessage(err);
    }
  } else {
    if (engine === 'collector') {
      throw new SetupError(`${ENGINE_ENV}=collector, but ${collector.reason}. Fix: ${collector.fix}`);
    }
    why = `${collector.reason} (fix: ${collector.fix})`;
  }
  const session = await startBpftraceSession(ctx);
  session.fallback = { component: 'tracer', wanted: COLLECTOR_ENGINE, used: BPFTRACE_ENGINE, reason: why };
  return session;
}

/** bpftrace's script generator and probes are loaded only by a run that falls back to it. */
async function startBpftraceSession(ctx: TracerContext): Promise<BpftraceSession> {
  return (await import('./bpftrace-session.js')).startBpftraceSession(ctx);
}

/**
 * Whether the ebpf tracer would follow the run's cgroup tree: only the compiled collector does
 * (bpftrace's filter is `cgroup == id`, and a run's cgroup for it has no room for children).
 */
export async function ebpfFollowsCgroupTree(): Promise<boolean> {
  if (requestedEngine() === 'bpftrace') return false;
  return (await collectorAvailability()).ok;
}

/** A sandbox runs commands in cgroups below the run's: only the collector sees them, so no step down. */
async function startCollectorForTree(ctx: TracerContext, engine: string): Promise<TracerSession> {
  const why =
    "the sandbox runs commands in cgroups below the run's, which only the compiled collector follows";
  if (engine === 'bpftrace') throw new SetupError(`${ENGINE_ENV}=bpftrace, but ${why}`);
  const collector = await collectorAvailability();
  if (!collector.ok) throw new SetupError(`${collector.reason}, and ${why}. Fix: ${collector.fix}`);
  return startCollectorSession(ctx);
}
