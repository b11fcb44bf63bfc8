import type { TracerOutput } from './types.js';

/**
 * Adds one wrapped command's part to a session's output. Later commands' sequence numbers follow
 * the earlier ones', so the first command's (the agent's, which the live guard cited) stay as they were.
 */
export function appendRoot(out: TracerOutput, part: Omit<TracerOutput, 'version'>): void {
  const offset = out.events.length;
  for (const e of part.events) out.events.push(offset === 0 ? e : { ...e, seq: e.seq + offset });
  out.lost_events += part.lost_events;
  out.warnings.push(...part.warnings);
}
