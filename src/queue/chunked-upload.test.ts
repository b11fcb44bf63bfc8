import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../package-root.js';
import { writeBundleFile } from './bundle-writer.js';
import { uploadFile } from './chunked-upload.js';
import { connectRedis } from './connect.js';
import { hasRedisServer, type RedisServer, startRedis } from './local-redis.js';
import { bundlePaths, sha256Of } from './tree-bundle.js';

/*
 * A bundle written to a file a chunk at a time is the bundle made in memory, byte for byte; it goes
 * into a real Redis in chunks, whole or not at all, and a coordinator sending a 48 MiB task that does
 * not compress holds less than the bundle while it writes and sends it (measured in a process of its own: its
 * peak resident memory, VmHWM, from just before).
 */

const hasRedis = hasRedisServer();
if (!hasRedis) console.warn('chunked upload tests skipped: redis-server is not installed');
const work = mkdtempSync(path.join(os.tmpdir(), 'ag-upload-'));
let server: RedisServer | null = null;
let redis: Awaited<ReturnType<typeof connectRedis>> | null = null;
beforeAll(async () => {
  if (!hasRedis) return;
  server = await startRedis({ password: 'chunked-upload-pass' });
  redis = await connectRedis({ url: server.url, password: 'chunked-upload-pass' } as never);
});
afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

function sampleTree(): string {
  const root = path.join(work, 'tree');
  mkdirSync(path.join(root, 'task/repo/src'), { recursive: true });
  writeFileSync(path.join(root, 'task/config.yaml'), 'name: t\n');
  writeFileSync(path.join(root, 'task/repo/src/big.bin'), Buffer.alloc(3 * 1024 * 1024 + 17, 7));
  writeFileSync(path.join(root, 'task/repo/empty'), '');
  return root;
}

describe('bundles written to a file and sent in chunks', () => {
  it('a file bundle is the in-memory bundle, byte for byte', async () => {
    const root = sampleTree();
    const file = path.join(work, 'a.bundle');
    const written = await writeBundleFile(root, ['task'], file);
    const inMemory = bundlePaths(root, ['task']);
    expect(written).toEqual({ sha256: inMemory.sha256, bytes: inMemory.bytes.length });
    expect(sha256Of(readFileSync(file))).toBe(inMemory.sha256);
  });

  it.skipIf(!hasRedis)(
    'lands whole under its key in chunks, keeps bytes already there, and refuses bytes that changed',
    async () => {
      const r = redis as NonNullable<typeof redis>;
      const file = path.join(work, 'b.bundle');
      const b = await writeBundleFile(sampleTree(), ['task'], file);
      await uploadFile(r, 'bundle:b', file, b.sha256, 60, 64 * 1024);
      expect(sha256Of(await r.getBuffer('bundle:b').then((v) => v as Buffer))).toBe(b.sha256);
      expect(await r.ttl('bundle:b')).toBeGreaterThan(0);
      // A second sender of the same digest renews it and sends nothing.
      await uploadFile(r, 'bundle:b', path.join(work, 'missing'), b.sha256, 120);
      expect(await r.ttl('bundle:b')).toBeGreaterThan(60);
      await expect(uploadFile(r, 'bundle:c', file, 'f'.repeat(64), 60, 64 * 1024)).rejects.toThrow(
        /changed after its digest/,
      );
      expect(await r.exists('bundle:c')).toBe(0);
      expect(await r.keys('bundle:c*')).toEqual([]);
    },
  );

  it.skipIf(!hasRedis)(
    'a 48 MiB task that does not compress costs the sender less than holding its bundle would',
    () => {
      const script = `
      import { randomBytes } from 'node:crypto';
      import { mkdirSync, readFileSync, writeFileSync, appendFileSync } from 'node:fs';
      import { Redis } from 'ioredis';
      const dist = ${JSON.stringify(path.join(packageRoot(), 'dist/queue'))};
      const { writeBundleFile } = await import(dist + '/bundle-writer.js');
      const { uploadFile } = await import(dist + '/chunked-upload.js');
      const dir = ${JSON.stringify(path.join(work, 'big'))};
      mkdirSync(dir + '/task', { recursive: true });
      for (let i = 0; i < 48; i++) appendFileSync(dir + '/task/noise.bin', randomBytes(1024 * 1024));
      const redis = new Redis(${JSON.stringify(server?.url ?? '')}, { password: 'chunked-upload-pass' });
      await redis.ping();
      const hwm = () => Number(readFileSync('/proc/self/status', 'utf8').match(/VmHWM:\\s+(\\d+) kB/)[1]) * 1024;
      global.gc?.();
      writeFileSync('/proc/self/clear_refs', '5');
      const before = hwm();
      const b = await writeBundleFile(dir, ['task'], dir + '/task.bundle');
      await uploadFile(redis, 'bundle:big', dir + '/task.bundle', b.sha256, 60);
      const len = await redis.strlen('bundle:big');
      console.log(JSON.stringify({ grew: hwm() - before, bytes: b.bytes, len }));
      redis.disconnect();
    `;
      const r = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
        cwd: packageRoot(),
        encoding: 'utf8',
        timeout: 120_000,
      });
      expect(r.status, r.stderr).toBe(0);
      const seen = JSON.parse(r.stdout.trim().split('\n').at(-1) as string);
      console.log(
        `chunked upload: 48 MiB task, ${seen.bytes} bytes bundled; sender peak RSS grew ${seen.grew} bytes`,
      );
      expect(seen.bytes, JSON.stringify(seen)).toBeGreaterThan(48 * 1024 * 1024);
      expect(seen.len).toBe(seen.bytes);
      // In memory it would cost the listing, the concatenation and the gzip output: over 100 MiB.
      // Streamed it measured 36–43 MB here (zlib's and the write streams' buffers; issue 35 says
      // what is left): bounded below what holding the 48 MiB bundle alone would take with them.
      expect(seen.grew, JSON.stringify(seen)).toBeLessThan(64 * 1024 * 1024);
    },
    150_000,
  );
});
