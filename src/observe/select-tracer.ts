import { SetupError } from '../errors.js';
import { TRACER_KINDS, type TracerKind, type TracerName, type TracerRequest } from '../evidence/kinds.js';
import { RunStopped } from '../exec/interrupt.js';
import type { Tracer, TracerSession } from './types.js';

export type TracerChoice = {
  tracer: Tracer | null;
  kind: TracerKind;
  version?: string;
  /** Why this tracer (and not a better one) was chosen. */
  reason: string;
  fallbacks: { component: 'tracer'; wanted: string; used: string; reason: string }[];
};

/**
 * Pick the tracer: `auto` tries the tracers in TRACER_KINDS order (ebpf, then strace), then off;
 * an explicit choice that cannot run degrades the same way down that order, and every step down is
 * recorded with the reason and the fix.
 */
export async function selectTracer(
  requested: TracerRequest,
  registry: Record<TracerName, Tracer>,
): Promise<TracerChoice> {
  if (requested === 'off')
    return { tracer: null, kind: 'off', reason: 'tracing turned off by configuration', fallbacks: [] };
  const candidates =
    requested === 'auto' ? TRACER_KINDS : TRACER_KINDS.slice(TRACER_KINDS.indexOf(requested));
  const fallbacks: TracerChoice['fallbacks'] = [];
  const skipped: string[] = [];
  for (const kind of candidates) {
    const availability = await registry[kind].available();
    if (availability.ok) {
      const reason =
        skipped.length === 0
          ? requested === 'auto'
            ? `${kind} is the best tracer available here`
            : `${kind} requested`
          : `${kind} used because ${skipped.join('; ')}`;
      if (skipped.length > 0) {
        fallbacks.push({
          component: 'tracer',
          wanted: requested === 'auto' ? (TRACER_KINDS[0] as string) : requested,
          used: kind,
          reason: skipped.join('; '),
        });
      }
      return { tracer: registry[kind], kind, version: availability.version, reason, fallbacks };
    }
    skipped.push(`${kind} is unavailable (${availability.reason}; fix: ${availability.fix})`);
  }
  const reason = `no tracer can run: ${skipped.join('; ')}`;
  fallbacks.push({
    component: 'tracer',
    wanted: requested === 'auto' ? (TRACER_KINDS[0] as string) : requested,
    used: 'off',
    reason,
  });
  return { tracer: null, kind: 'off', reason, fallbacks };
}

/** The tracer a run asked for (config and --tracer merged) and the one chosen for it, settled before the run. */
export type TracerPlan = { requested: TracerRequest; choice: TracerChoice };

export type StartedTracer = Omit<TracerChoice, 'tracer'> & { session: TracerSession | null };

/**
 * Choose and start the tracer. Under `auto`, one whose start() fails gives way to the next
 * (ebpf → strace → off), each step recorded with the reason and printed as a warning. A tracer the
 * user asked for by name that does not start is a SetupError: they asked for that evidence.
 */
export async function startTracer(
  requested: TracerRequest,
  registry: Record<TracerName, Tracer>,
  start: (tracer: Tracer) => Promise<TracerSession>,
  log: (line: string) => void,
  /** The choice made when the run was planned; without it the tracer is chosen now. */
  chosen?: TracerChoice,
  /**
   * Set when no other tracer could see the run (the sandbox hides it from all but this one): under
   * `auto` a failed start then gives 'off', recorded, instead of the next tracer.
   */
  onlyThis?: string,
): Promise<StartedTracer> {
  const choice = chosen ?? (await selectTracer(requested, registry));
  for (const f of choice.fallbacks) log(`warning: tracer ${f.used} instead of ${f.wanted}: ${f.reason}`);
  const fallbacks = [...choice.fallbacks];
  let current: TracerChoice = choice;
  for (;;) {
    const { tracer, kind } = current;
    if (!tracer) return { ...current, fallbacks, session: null };
    try {
      const session = await start(tracer);
      if (session.fallback) {
        log(
          `warning: tracer ${session.fallback.used} instead of ${session.fallback.wanted}: ${session.fallback.reason}`,
        );
        fallbacks.push(session.fallback);
      }
      return { ...current, fallbacks, session };
    } catch (err) {
      if (err instanceof RunStopped) throw err;
      const started = `${kind} did not start: ${err instanceof Error ? err.message : String(err)}`;
      const why = onlyThis ? `${started}; ${onlyThis}` : started;
      if (requested !== 'auto') {
        throw new SetupError(
          `tracer '${kind}' was requested but ${why}. Fix: see 'agentguard doctor', or choose another with --tracer.`,
          { cause: err },
        );
      }
      const rest = onlyThis ? [] : TRACER_KINDS.slice(TRACER_KINDS.indexOf(kind as TracerName) + 1);
      const next = rest[0] !== undefined ? await selectTracer(rest[0], registry) : null;
      const used = next?.kind ?? 'off';
      const fallback = { component: 'tracer' as const, wanted: kind, used, reason: why };
      log(`warning: tracer ${used} instead of ${kind}: ${why}`);
      fallbacks.push(fallback, ...(next?.fallbacks ?? []));
      current = next
        ? { ...next, reason: `${next.kind} used because ${why}` }
        : { tracer: null, kind: 'off', reason: `no tracer started: ${why}`, fallbacks: [] };
    }
  }
}
