import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { InputError } from '../errors.js';
import { treeSha256 } from '../provenance/tree-hashes.js';
import { BUNDLE_FORMAT, bundlePaths, extractBundleFile, sha256Of } from './tree-bundle.js';

const TASK = { expandedBytes: 64 << 20, entries: 1000, links: true };

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(path.join(os.tmpdir(), 'ag-bundle-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function sampleTask(): string {
  const root = tmp();
  mkdirSync(path.join(root, 'task/repo/src'), { recursive: true });
  writeFileSync(path.join(root, 'task/config.yaml'), 'name: t\n');
  writeFileSync(path.join(root, 'task/repo/src/a.js'), 'x\n');
  writeFileSync(path.join(root, 'task/repo/run.sh'), '#!/bin/sh\n', { mode: 0o755 });
  mkdirSync(path.join(root, 'task/.agentguard/runs'), { recursive: true });
  writeFileSync(path.join(root, 'task/.agentguard/runs/big'), 'not bundled');
  return root;
}

describe('tree bundles', () => {
  it('are content-addressed: the same tree gives the same digest, and extract to the same tree', async () => {
    const root = sampleTask();
    const a = bundlePaths(root, ['task'], new Set(['.agentguard']));
    const b = bundlePaths(root, ['task'], new Set(['.agentguard']));
    expect(a.sha256).toBe(b.sha256);
    const dest = path.join(tmp(), 'x');
    await extract(a.bytes, a.sha256, dest, 'job 1', TASK);
    rmSync(path.join(root, 'task/.agentguard'), { recursive: true });
    expect(treeSha256(path.join(dest, 'task'))).toBe(treeSha256(path.join(root, 'task')));
    expect(statSync(path.join(dest, 'task/repo/run.sh')).mode & 0o111).not.toBe(0);
    writeFileSync(path.join(root, 'task/repo/src/a.js'), 'y\n');
    expect(bundlePaths(root, ['task']).sha256).not.toBe(a.sha256);
  });

  it('refuses bytes whose digest differs from the job, writing nothing', async () => {
    const root = sampleTask();
    const a = bundlePaths(root, ['task']);
    const dest = path.join(tmp(), 'x');
    await expect(extract(a.bytes, 'f'.repeat(64), dest, 'job 3', TASK)).rejects.toThrow(InputError);
    await expect(extract(a.bytes, 'f'.repeat(64), dest, 'job 3', TASK)).rejects.toThrow(/does not match/);
    expect(() => statSync(dest)).toThrow();
  });

  it('refuses names and links that leave the folder, at any step of a chain, writing nothing', async () => {
    for (const entries of [
      [{ path: '../evil', type: 'file', exec: false, size: 0 }],
      [{ path: 'a', type: 'symlink', target: '../../etc/passwd' }],
      [{ path: 'a', type: 'symlink', target: '/etc/passwd' }],
      // A chain: each target, normalised as text, stays inside (`..` from d is the root, `d/up/..` is d);
      // resolved, `d/up/..` is the folder's parent and `c` reaches its sibling etc.
      [
        { path: 'd', type: 'dir' },
        { path: 'd/up', type: 'symlink', target: '..' },
        { path: 'esc', type: 'symlink', target: 'd/up/..' },
        { path: 'c', type: 'symlink', target: 'esc/../etc' },
      ],
      // A loop is refused, not followed forever.
      [
        { path: 'x', type: 'symlink', target: 'y' },
        { path: 'y', type: 'symlink', target: 'x' },
      ],
    ]) {
      const bytes = listing(entries);
      const dest = path.join(tmp(), 'x');
      await expect(extract(bytes, sha256Of(bytes), dest, 'job', TASK)).rejects.toThrow(/leaves|points out/);
      expect(existsSync(dest)).toBe(false);
      expect(() => readFileSync(path.join(dest, '..', 'evil'))).toThrow();
    }
  });

  it('keeps links that stay inside, and refuses any link where the bundle may hold none (evidence)', async () => {
    const bytes = listing([
      { path: 'f', type: 'file', exec: false, size: 2, content: 'hi' },
      { path: 'd', type: 'dir' },
      { path: 'd/l', type: 'symlink', target: '../f' },
    ]);
    const dest = path.join(tmp(), 'x');
    await extract(bytes, sha256Of(bytes), dest, 'job', TASK);
    expect(readFileSync(path.join(dest, 'd/l'), 'utf8')).toBe('hi');
    const dest2 = path.join(tmp(), 'y');
    await expect(extract(bytes, sha256Of(bytes), dest2, 'run', { ...TASK, links: false })).rejects.toThrow(
      /is a link, which this bundle may not hold/,
    );
    expect(existsSync(dest2)).toBe(false);
  });

  it('refuses entries that are not files, folders or links, and names given twice', async () => {
    for (const entries of [
      [{ path: 'dev', type: 'chardev', major: 1, minor: 5 }],
      [{ path: 'f', type: 'file', exec: false, size: '42' }],
      [
        { path: 'f', type: 'file', exec: false, size: 0 },
        { path: 'f', type: 'symlink', target: '/etc/shadow' },
      ],
      [
        { path: 'l', type: 'symlink', target: 'd' },
        { path: 'l/f', type: 'file', exec: false, size: 0 },
      ],
    ]) {
      const bytes = listing(entries);
      const dest = path.join(tmp(), 'x');
      await expect(extract(bytes, sha256Of(bytes), dest, 'job', TASK)).rejects.toThrow(
        /not a file, folder or link|appears twice|lies under a link/,
      );
      expect(existsSync(dest)).toBe(false);
    }
  });

  it('refuses more entries than the limit: empty files compress to nothing but each costs an inode', async () => {
    const entries = Array.from({ length: 1001 }, (_, i) => ({
      path: `f${i}`,
      type: 'file',
      exec: false,
      size: 0,
    }));
    const bytes = listing(entries);
    const dest = path.join(tmp(), 'x');
    await expect(extract(bytes, sha256Of(bytes), dest, 'job', TASK)).rejects.toThrow(
      /holds more than the 1000 entries allowed/,
    );
    expect(existsSync(dest)).toBe(false);
  });

  it('refuses a bundle cut short, a file whose content is cut short, and a size on a folder, writing nothing', async () => {
    const a = bundlePaths(sampleTask(), ['task']);
    const cut = a.bytes.subarray(0, a.bytes.length - 20);
    const short = listing([{ path: 'f', type: 'file', exec: false, size: 10, content: 'abc' }]);
    const sized = listing([{ path: 'd', type: 'dir', size: 3, content: 'abc' }]);
    const long = listing([{ path: 'x'.repeat(20_000), type: 'dir' }]);
    for (const [bytes, why] of [
      [cut, /not a gzip'd record stream/],
      [short, /cut short inside record 1/],
      [sized, /not a file, folder or link/],
      [long, /header over 16384 bytes/],
    ] as const) {
      const dest = path.join(tmp(), 'x');
      await expect(extract(bytes, sha256Of(bytes), dest, 'job', TASK)).rejects.toThrow(why);
      expect(existsSync(dest)).toBe(false);
    }
  });

  it('stops gunzipping at the limit: a 1 MB bomb costs no more than the limit', async () => {
    // Concatenated gzip members are one stream: 256 × (1 MiB of zeros) is 256 KB that expands to
    // 256 MiB, the shape of the 1 MB bundle that cost a worker 2.2 GB.
    // Here one file of a gigabyte, its content in 256 members of 1 MiB of zeros.
    const head = listing([{ path: 'f', type: 'file', exec: false, size: 1 << 30 }]);
    const member = gzipSync(Buffer.alloc(1 << 20, 0), { level: 9 });
    const bomb = Buffer.concat([head, ...Array.from({ length: 256 }, () => member)]);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const dest = path.join(tmp(), 'x');
    const before = process.memoryUsage().rss;
    await expect(
      extract(bomb, sha256Of(bomb), dest, 'job', { ...TASK, expandedBytes: 16 << 20 }),
    ).rejects.toThrow(/expands past 16777216 bytes/);
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
    expect(existsSync(dest)).toBe(false);
  });
});

/** A bundle of these headers, each followed by its `content` (taken out of the header). */
function listing(entries: unknown[]): Buffer {
  const parts = [Buffer.from(`${JSON.stringify({ format: BUNDLE_FORMAT })}\n`)];
  for (const e of entries as Record<string, unknown>[]) {
    const { content, ...header } = e;
    parts.push(Buffer.from(`${JSON.stringify(header)}\n`));
    if (typeof content === 'string') parts.push(Buffer.from(content));
  }
  return gzipSync(Buffer.concat(parts));
}

/** Extract `bytes` as a worker does: from a file of their own beside the destination. */
async function extract(
  bytes: Buffer,
  sha256: string,
  dest: string,
  what: string,
  limits: typeof TASK,
): Promise<void> {
  const file = path.join(tmp(), 'bundle');
  writeFileSync(file, bytes);
  await extractBundleFile(file, sha256, dest, what, limits);
}
