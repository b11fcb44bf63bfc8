import type { Redis } from 'ioredis';

/*
 * A task bundle read out of Redis a chunk at a time (GETRANGE), never more than the limit: sizing
 * the key first (STRLEN) and then fetching it whole (GET) leaves a moment in which anyone who can
 * write to Redis replaces the key with a value of any size, and GET would bring it all into the
 * worker's memory. Here the count is kept while reading and the read stops one chunk past the
 * limit. Each chunk is awaited, so BullMQ's timers (the job's lock renewal) run in between; a key
 * changed mid-read gives bytes whose digest the extraction refuses.
 */

/** The bytes read, `missing`, or `over` (the bytes read before stopping, more than `limit`). */
export type BoundedRead =
  | { kind: 'read'; bytes: Buffer }
  | { kind: 'missing' }
  | { kind: 'over'; readBytes: number };

/** Read the string at `key`, at most `limit` bytes, `chunkBytes` per round trip. */
export async function readBoundedString(
  redis: Redis,
  key: string,
  limit: number,
  chunkBytes = 1024 * 1024,
): Promise<BoundedRead> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const part = await redis.getrangeBuffer(key, total, total + chunkBytes - 1);
    total += part.length;
    if (total > limit) return { kind: 'over', readBytes: total };
    if (part.length > 0) chunks.push(part);
    if (part.length < chunkBytes) break;
  }
  return total === 0 ? { kind: 'missing' } : { kind: 'read', bytes: Buffer.concat(chunks, total) };
}
