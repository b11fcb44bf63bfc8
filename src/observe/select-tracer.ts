import type { TracerKind } from '../evidence/types.js';
import type { Tracer } from './types.js';

export type TracerChoice = {
  tracer: Tracer | null;
  kind: TracerKind;
  version?: string;
  /** Why this tracer (and not a better one) was chosen. */
  reason: string;
  fallbacks: { component: 'tracer'; wanted: string; used: string; reason: string }[];
};

const ORDER: Exclude<TracerKind, 'off'>[] = ['ebpf', 'strace'];

/**
 * Pick the tracer: `auto` tries ebpf, then strace, then off; an explicit choice that cannot run
 * degrades the same way, and every step down is recorded with the reason and the fix.
 */
export async function selectTracer(
  requested: 'auto' | TracerKind,
  registry: Record<Exclude<TracerKind, 'off'>, Tracer>,
): Promise<TracerChoice> {
  if (requested === 'off')
    return { tracer: null, kind: 'off', reason: 'tracing turned off by configuration', fallbacks: [] };
  const candidates = requested === 'auto' ? ORDER : ORDER.slice(ORDER.indexOf(requested));
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
          wanted: requested === 'auto' ? (ORDER[0] as string) : requested,
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
    wanted: requested === 'auto' ? 'ebpf' : requested,
    used: 'off',
    reason,
  });
  return { tracer: null, kind: 'off', reason, fallbacks };
}
