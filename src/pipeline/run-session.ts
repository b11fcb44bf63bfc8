import { enableOwnerRegistry } from '../exec/owner-registry.js';
import { shutdownSignal } from '../exec/shutdown.js';
import type { RunContext } from './context.js';
import { faultFromEnv } from './faults.js';
import { describeSweep, sweepStale } from './host-sweep.js';

/**
 * What `run` and `demo` do before their first run: clean up after agentguard processes that died
 * without doing so (told in one line), leave notes so that this one can be cleaned up after too,
 * and give the runs the process's stop signal and the test seam.
 */
export async function beginRunSession(ctx: RunContext, warn: (line: string) => void): Promise<RunContext> {
  const swept = describeSweep(await sweepStale());
  if (swept) warn(swept);
  enableOwnerRegistry();
  const fault = faultFromEnv(ctx.env);
  return { ...ctx, signal: shutdownSignal(), ...(fault ? { fault } : {}) };
}
