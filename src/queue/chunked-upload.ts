import { createHash, randomUUID } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import type { Redis } from 'ioredis';

/*
 * A bundle file put into Redis a chunk at a time (APPEND to a private key, then RENAMENX into
 * place), the counterpart of downloadBounded: the sender holds one chunk, never the bundle, however
 * large it is. The key appears whole or not at all, so a worker never reads half a bundle under its
 * digest; one already there (the same bytes, by their digest) is kept and only its expiry renewed.
 */

/**
 * Put `file`'s bytes at `key`, expiring after `ttlSeconds`, `chunkBytes` per round trip, when they
 * have the digest `sha256` (the name the key gives them); bytes that changed since they were named
 * are dropped and refused.
 */
export async function uploadFile(
  redis: Redis,
  key: string,
  file: string,
  sha256: string,
  ttlSeconds: number,
  chunkBytes = 1024 * 1024,
): Promise<void> {
  if ((await redis.exists(key)) === 1) {
    await redis.expire(key, ttlSeconds);
    return;
  }
  const hash = createHash('sha256');
  const partial = `${key}:partial:${randomUUID()}`;
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(chunkBytes);
    let first = true;
    for (;;) {
      const n = readSync(fd, buf, 0, chunkBytes, null);
      if (n === 0 && !first) break;
      const chunk = buf.subarray(0, n);
      hash.update(chunk);
      // The partial key expires too: a sender killed half-way leaves nothing for long.
      if (first) await redis.set(partial, chunk, 'EX', ttlSeconds);
      else await redis.append(partial, chunk);
      first = false;
      if (n < chunkBytes) break;
    }
    if (hash.digest('hex') !== sha256)
      throw new Error(`${file} changed after its digest sha256:${sha256} was taken; not sent`);
    if ((await redis.renamenx(partial, key)) === 0) await redis.del(partial);
    await redis.expire(key, ttlSeconds);
  } catch (err) {
    await redis.del(partial).catch(() => {});
    throw err;
  } finally {
    closeSync(fd);
  }
}
