/*
 * The end of a sandbox's in-guest trace, as the microvm launcher writes it beside the trace file and
 * the guest tracer (guest-tracer.ts) reads it back; the guest runner (sandbox/microvm/guest/)
 * reports it. A type and a file name only, with no imports: nothing here loads in the guest.
 */

/**
 * How the trace port's stream ended, written by the launcher beside the trace file
 * (`traceEndFile`): the collector drained with its lost-event count, strace stood in for the
 * collector (why), or the trace broke off (why).
 */
export type GuestTraceEnd =
  | { engine: 'collector'; version: string; missing: string[]; lost: number }
  | { engine: 'strace'; reason: string }
  | { error: string };

export function traceEndFile(traceFile: string): string {
  return `${traceFile}.end.json`;
}
