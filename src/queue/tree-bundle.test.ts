import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { treeSha256 } from '../batch/hashes.js';
import { InputError } from '../errors.js';
import { bundlePaths, extractBundle, sha256Of } from './tree-bundle.js';

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
    extractBundle(a.bytes, a.sha256, dest, 'job 1');
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
    expect(() => extractBundle(a.bytes, 'f'.repeat(64), dest, 'job 3')).toThrow(InputError);
    expect(() => extractBundle(a.bytes, 'f'.repeat(64), dest, 'job 3')).toThrow(/does not match/);
    expect(() => statSync(dest)).toThrow();
  });

  it('refuses names and links that leave the folder', () => {
    for (const entries of [
      [{ path: '../evil', type: 'file', exec: false, data: '' }],
      [{ path: 'a', type: 'symlink', target: '../../etc/passwd' }],
      [{ path: 'a', type: 'symlink', target: '/etc/passwd' }],
    ]) {
      const bytes = gzipSync(Buffer.from(JSON.stringify({ format: 'agentguard-tree-bundle/1', entries })));
      const dest = path.join(tmp(), 'x');
      expect(() => extractBundle(bytes, sha256Of(bytes), dest, 'job')).toThrow(/leaves|points out/);
      expect(() => readFileSync(path.join(dest, '..', 'evil'))).toThrow();
    }
  });
});
