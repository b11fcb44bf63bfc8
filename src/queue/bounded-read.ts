import { createHash } from 'node:crypto';
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import type { Redis } from 'ioredis';

/*
 * A bundle read out of Redis a chunk at a time (GETRANGE) into a private file, never more than the
 * limit, and never held whole in memory: sizing the key first (STRLEN) and then fetching it whole
 * (GET) leaves a moment in which anyone who can write to Redis replaces the key with a value of any
 * size, and GET would bring it all into this process. Here each chunk is written out and hashed as
 * it comes, the count is kept while reading and the read stops one chunk past the limit. Each chunk
 * is awaited, so BullMQ's timers (the job's lock renewal) run in between; a key changed mid-read
 * gives bytes whose digest the caller refuses.
 */

/** The bytes written to the file with their sha256, `missing`, or `over` (the bytes read before stopping, more than `limit`). */
export type BoundedRead =
  | { kind: 'read'; bytes: number; sha256: string }
  | { kind: 'missing' }
  | { kind: 'over'; readBytes: number };

/**
 * Copy the string at `key` into `file` (made here, mode 0600; it must not exist), at most `limit`
 * bytes, `chunkBytes` per round trip. Unless the result is `read`, or when anything throws, the
 * file is removed before this returns.
 */
export async function downloadBounded(
  redis: Redis,
  key: string,
  limit: number,
  file: string,
  chunkBytes = 1024 * 1024,
): Promise<BoundedRead> {
  const fd = openSync(file, 'wx', 0o600);
  const hash = createHash('sha256');
  let total = 0;
  let result: BoundedRead | null = null;
  try {
    for (;;) {
      const part = await redis.getrangeBuffer(key, total, total + chunkBytes - 1);
      total += part.length;
      if (total > limit) {
        result = { kind: 'over', readBytes: total };
        break;
      }
      hash.update(part);
      for (let at = 0; at < part.length; ) at += writeSync(fd, part, at);
      if (part.length < chunkBytes) break;
    }
    result ??= total === 0 ? { kind: 'missing' } : { kind: 'read', bytes: total, sha256: hash.digest('hex') };
  } finally {
    closeSync(fd);
    if (result?.kind !== 'read') rmSync(file, { force: true });
  }
  return result;
}
