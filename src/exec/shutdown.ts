import os from 'node:os';
import type { StopReason } from './interrupt.js';

/**
 * The process-wide "stop now" of the CLI: SIGINT, SIGTERM or SIGHUP abort it, and every run in
 * progress (which received its signal in its RunContext) ends its current step, writes what it
 * collected and releases what it holds. Commands that take it say so with `observeShutdown()`;
 * for the others a signal simply ends the process.
 */
const controller = new AbortController();
let observed = false;

export function shutdownSignal(): AbortSignal {
  observed = true;
  return controller.signal;
}

/** Whether a running command will wind down on its own when asked. */
export function shutdownObserved(): boolean {
  return observed;
}

/** Returns false when a stop was already requested (a second signal: time to force it). */
export function requestShutdown(signal: NodeJS.Signals): boolean {
  if (controller.signal.aborted) return false;
  const reason: StopReason = { kind: 'signal', signal };
  controller.abort(reason);
  return true;
}

/** 128 + the signal's number: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP. */
export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (os.constants.signals[signal] ?? 15);
}
