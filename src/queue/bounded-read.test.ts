import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sha256Text } from '../provenance/digest.js';
import { downloadBounded } from './bounded-read.js';
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
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tmpFile = () => {
  const d = mkdtempSync(path.join(os.tmpdir(), 'ag-download-'));
  dirs.push(d);
  return path.join(d, 'bundle');
};

describe.skipIf(!hasRedis)('a bundle streamed out of a real Redis into a file, bounded while reading', () => {
  it('writes a value whole in chunks, an exact multiple of the chunk included, with its digest', async () => {
    const r = redis as NonNullable<typeof redis>;
    for (const size of [1, 999, 1000, 1001, 4000]) {
      const value = Buffer.alloc(size, size % 251);
      await r.set('bundle:a', value);
      const file = tmpFile();
      const read = await downloadBounded(r, 'bundle:a', 4000, file, 1000);
      expect(read, String(size)).toEqual({ kind: 'read', bytes: size, sha256: sha256Text(value) });
      expect(readFileSync(file).equals(value)).toBe(true);
      expect(statSync(file).mode & 0o777).toBe(0o600);
    }
    const file = tmpFile();
    expect(await downloadBounded(r, 'bundle:none', 4000, file, 1000)).toEqual({ kind: 'missing' });
    expect(existsSync(file)).toBe(false);
  });

  it('stops one chunk past the limit, however large the value, and leaves no file', async () => {
    const r = redis as NonNullable<typeof redis>;
    await r.set('bundle:big', Buffer.alloc(8 * 1024 * 1024, 7));
    const file = tmpFile();
    expect(await downloadBounded(r, 'bundle:big', 100_000, file, 64 * 1024)).toEqual({
      kind: 'over',
      readBytes: 2 * 64 * 1024,
    });
    expect(readdirSync(path.dirname(file))).toEqual([]);
    await r.set('bundle:edge', Buffer.alloc(100_001, 1));
    expect((await downloadBounded(r, 'bundle:edge', 100_000, tmpFile(), 50_000)).kind).toBe('over');
    await r.set('bundle:edge', Buffer.alloc(100_000, 1));
    expect((await downloadBounded(r, 'bundle:edge', 100_000, tmpFile(), 50_000)).kind).toBe('read');
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
    const file = tmpFile();
    const read = await downloadBounded(r, 'bundle:grow', 60_000, file, 1_000);
    await grow;
    other.disconnect();
    expect(appended).toBe(200);
    if (read.kind === 'read') expect(statSync(file).size).toBe(read.bytes);
    else {
      expect(read).toMatchObject({ kind: 'over' });
      expect(existsSync(file)).toBe(false);
    }
  });

  it('refuses to write through a file that is already there (a link planted at its name)', async () => {
    const r = redis as NonNullable<typeof redis>;
    await r.set('bundle:a', 'x');
    const file = tmpFile();
    const { symlinkSync } = await import('node:fs');
    symlinkSync('/etc/hostname', file);
    await expect(downloadBounded(r, 'bundle:a', 10, file)).rejects.toThrow(/EEXIST/);
  });
});
