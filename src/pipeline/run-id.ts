import { randomBytes } from 'node:crypto';

/** Sortable by time, unique across parallel runs thanks to the random suffix. */
export function newRunId(now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${randomBytes(4).toString('hex')}`;
}

/** What newRunId makes: a run id that is also a safe folder name (no `/`, no `..`). */
export const RUN_ID_PATTERN = /^\d{8}-\d{6}-[0-9a-f]{8}$/;
