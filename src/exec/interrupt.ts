/** Why a run was ended from outside: a signal to the CLI, or the run's own time limit. */
export type StopReason =
  | { kind: 'signal'; signal: NodeJS.Signals }
  | { kind: 'run-timeout'; seconds: number }
  /**
   * A setup step failed (`setup_command`, or an install of `setup.dependencies`, named in `step`):
   * the agent never started, and the run is ERROR.
   */
  | {
      kind: 'setup-failed';
      step: string;
      detail: string;
      /** agentguard's own machinery failed (the sandbox bridge), proven, not the config's setup: exit 2. */
      harness?: boolean;
    };

/** The agent outcome's `by` for a run ended this way. */
export function stoppedBy(reason: StopReason): 'interrupt' | 'run-timeout' | 'setup-failed' {
  return reason.kind === 'signal' ? 'interrupt' : reason.kind;
}

export function describeStop(reason: StopReason): string {
  if (reason.kind === 'signal') return `interrupted by ${reason.signal}`;
  if (reason.kind === 'run-timeout') return `run_timeout_seconds (${reason.seconds} s) elapsed`;
  return `${reason.step} failed (${reason.detail})`;
}

/** Thrown out of a step that was waiting when the run was ended; the run writes what it has. */
export class RunStopped extends Error {
  constructor(readonly reason: StopReason) {
    super(describeStop(reason));
    this.name = 'RunStopped';
  }
}

export function stopReasonOf(signal: AbortSignal | undefined): StopReason | null {
  if (!signal?.aborted) return null;
  const reason = signal.reason as StopReason | undefined;
  return reason && typeof reason === 'object' && 'kind' in reason
    ? reason
    : { kind: 'signal', signal: 'SIGTERM' };
}

/** Throws RunStopped when the run has been ended. */
export function throwIfStopped(signal: AbortSignal | undefined): void {
  const reason = stopReasonOf(signal);
  if (reason) throw new RunStopped(reason);
}

/**
 * Waits for `work` unless the run is ended first. A resource that `work` still produces after that
 * is handed to `orphan` (which releases it), so nothing started late outlives the run.
 */
export async function unlessStopped<T>(
  work: Promise<T>,
  signal: AbortSignal | undefined,
  orphan: (late: T) => unknown = () => {},
): Promise<T> {
  if (!signal) return work;
  throwIfStopped(signal);
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<never>((_, reject) => {
    onAbort = () => reject(new RunStopped(stopReasonOf(signal) as StopReason));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work, stopped]);
  } catch (err) {
    if (err instanceof RunStopped) work.then(orphan, () => undefined);
    throw err;
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
    stopped.catch(() => undefined);
  }
}
