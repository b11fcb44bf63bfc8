import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { InputError } from '../errors.js';
import { treeSha256 } from '../provenance/tree-hashes.js';
import { bundlePaths, extractBundle, sha256Of } from './tree-bundle.js';

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
  it('are content-addressed: the same tree gives the same digest, and extract to the same tree', () => {
    const root = sampleTask();
    const a = bundlePaths(root, ['task'], new Set(['.agentguard']));
    const b = bundlePaths(root, ['task'], new Set(['.agentguard']));
    expect(a.sha256).toBe(b.sha256);
    const dest = path.join(tmp(), 'x');
    extractBundle(a.bytes, a.sha256, dest, 'job 1', TASK);
    rmSync(path.join(root, 'task/.agentguard'), { recursive: true });
    expect(treeSha256(path.join(dest, 'task'))).toBe(treeSha256(path.join(root, 'task')));
    expect(statSync(path.join(dest, 'task/repo/run.sh')).mode & 0o111).not.toBe(0);
    writeFileSync(path.join(root, 'task/repo/src/a.js'), 'y\n');
    expect(bundlePaths(root, ['task']).sha256).not.toBe(a.sha256);
  });

  it('refuses bytes whose digest differs from the job, writing nothing', () => {
    const root = sampleTask();
    const a = bundlePaths(root, ['task']);
    const dest = path.join(tmp(), 'x');
    expect(() => extractBundle(a.bytes, 'f'.repeat(64), dest, 'job 3', TASK)).toThrow(InputError);
    expect(() => extractBundle(a.bytes, 'f'.repeat(64), dest, 'job 3', TASK)).toThrow(/does not match/);
    expect(() => statSync(dest)).toThrow();
  });

  it('refuses names and links that leave the folder, at any step of a chain, writing nothing', () => {
    for (const entries of [
      [{ path: '../evil', type: 'file', exec: false, data: '' }],
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
      expect(() => extractBundle(bytes, sha256Of(bytes), dest, 'job', TASK)).toThrow(/leaves|points out/);
      expect(existsSync(dest)).toBe(false);
      expect(() => readFileSync(path.join(dest, '..', 'evil'))).toThrow();
    }
  });

  it('keeps links that stay inside, and refuses any link where the bundle may hold none (evidence)', () => {
    const bytes = listing([
      { path: 'f', type: 'file', exec: false, data: Buffer.from('hi').toString('base64') },
      { path: 'd', type: 'dir' },
      { path: 'd/l', type: 'symlink', target: '../f' },
    ]);
    const dest = path.join(tmp(), 'x');
    extractBundle(bytes, sha256Of(bytes), dest, 'job', TASK);
    expect(readFileSync(path.join(dest, 'd/l'), 'utf8')).toBe('hi');
    const dest2 = path.join(tmp(), 'y');
    expect(() => extractBundle(bytes, sha256Of(bytes), dest2, 'run', { ...TASK, links: false })).toThrow(
      /is a link, which this bundle may not hold/,
    );
    expect(existsSync(dest2)).toBe(false);
  });

  it('refuses entries that are not files, folders or links, and names given twice', () => {
    for (const entries of [
      [{ path: 'dev', type: 'chardev', major: 1, minor: 5 }],
      [{ path: 'f', type: 'file', exec: false, data: 42 }],
      [
        { path: 'f', type: 'file', exec: false, data: '' },
        { path: 'f', type: 'symlink', target: '/etc/shadow' },
      ],
      [
        { path: 'l', type: 'symlink', target: 'd' },
        { path: 'l/f', type: 'file', exec: false, data: '' },
      ],
    ]) {
      const bytes = listing(entries);
      const dest = path.join(tmp(), 'x');
      expect(() => extractBundle(bytes, sha256Of(bytes), dest, 'job', TASK)).toThrow(
        /not a file, folder or link|appears twice|lies under a link/,
      );
      expect(existsSync(dest)).toBe(false);
    }
  });

  it('refuses more entries than the limit: empty files compress to nothing but each costs an inode', () => {
    const entries = Array.from({ length: 1001 }, (_, i) => ({
      path: `f${i}`,
      type: 'file',
      exec: false,
      data: '',
    }));
    const bytes = listing(entries);
    const dest = path.join(tmp(), 'x');
    expect(() => extractBundle(bytes, sha256Of(bytes), dest, 'job', TASK)).toThrow(
      /holds 1001 entries, over the 1000/,
    );
    expect(existsSync(dest)).toBe(false);
  });

  it('stops gunzipping at the limit: a 1 MB bomb costs no more than the limit', () => {
    // Concatenated gzip members are one stream: 256 × (1 MiB of spaces) is 256 KB that expands to
    // 256 MiB, the shape of the 1 MB bundle that cost a worker 2.2 GB.
    const member = gzipSync(Buffer.alloc(1 << 20, 0x20), { level: 9 });
    const bomb = Buffer.concat(Array.from({ length: 256 }, () => member));
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const dest = path.join(tmp(), 'x');
    const before = process.memoryUsage().rss;
    expect(() =>
      extractBundle(bomb, sha256Of(bomb), dest, 'job', { ...TASK, expandedBytes: 16 << 20 }),
    ).toThrow(/expands past 16777216 bytes/);
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
    expect(existsSync(dest)).toBe(false);
  });
});

function listing(entries: unknown[]): Buffer {
  return gzipSync(Buffer.from(JSON.stringify({ format: 'agentguard-tree-bundle/1', entries })));
}
