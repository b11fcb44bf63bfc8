import { randomBytes } from 'node:crypto';

/** Sortable by time, unique across parallel runs thanks to the random suffix. */
export function newRunId(now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${randomBytes(4).toString('hex')}`;
}
