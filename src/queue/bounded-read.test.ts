import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBoundedString } from './bounded-read.js';
import { connectRedis } from './connect.js';
import { hasRedisServer, type RedisServer, startRedis } from './local-redis.js';

const hasRedis = hasRedisServer();
if (!hasRedis) console.warn('bounded read tests skipped: redis-server is not installed');

let server: RedisServer | null = null;
let redis: Awaited<ReturnType<typeof connectRedis>> | null = null;
beforeAll(async () => {
  if (!hasRedis) return;
  server = await startRedis({ password: 'bounded-read-pass' });
  redis = await connectRedis({ url: server.url, password: 'bounded-read-pass' } as never);
});
afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

describe.skipIf(!hasRedis)('a bundle read out of a real Redis, bounded while reading', () => {
  it('reads a value whole in chunks, an exact multiple of the chunk included', async () => {
    const r = redis as NonNullable<typeof redis>;
    for (const size of [1, 999, 1000, 1001, 4000]) {
      const value = Buffer.alloc(size, size % 251);
      await r.set('bundle:a', value);
      const read = await readBoundedString(r, 'bundle:a', 4000, 1000);
      expect(read.kind, String(size)).toBe('read');
      if (read.kind === 'read') expect(read.bytes.equals(value)).toBe(true);
    }
    expect(await readBoundedString(r, 'bundle:none', 4000, 1000)).toEqual({ kind: 'missing' });
  });

  it('stops one chunk past the limit, however large the value, never holding it whole', async () => {
    const r = redis as NonNullable<typeof redis>;
    await r.set('bundle:big', Buffer.alloc(8 * 1024 * 1024, 7));
    const read = await readBoundedString(r, 'bundle:big', 100_000, 64 * 1024);
    expect(read).toEqual({ kind: 'over', readBytes: 2 * 64 * 1024 });
    await r.set('bundle:edge', Buffer.alloc(100_001, 1));
    expect((await readBoundedString(r, 'bundle:edge', 100_000, 50_000)).kind).toBe('over');
    await r.set('bundle:edge', Buffer.alloc(100_000, 1));
    expect((await readBoundedString(r, 'bundle:edge', 100_000, 50_000)).kind).toBe('read');
  });

  it('a key that grows while it is read is still cut at the limit', async () => {
    const r = redis as NonNullable<typeof redis>;
    await r.set('bundle:grow', Buffer.alloc(30_000, 2));
    // Another client appends between the reader's round trips (what STRLEN-then-GET would miss).
    const other = r.duplicate();
    let appended = 0;
    const grow = (async () => {
      for (let i = 0; i < 200; i++) {
        await other.append('bundle:grow', Buffer.alloc(10_000, 3));
        appended += 1;
      }
    })();
    const read = await readBoundedString(r, 'bundle:grow', 60_000, 1_000);
    await grow;
    other.disconnect();
    expect(appended).toBe(200);
    if (read.kind === 'read') expect(read.bytes.length).toBeLessThanOrEqual(60_000);
    else expect(read).toMatchObject({ kind: 'over' });
  });
});
