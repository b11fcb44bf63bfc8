import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfigOrThrow } from '../config/load.js';
import { ConfigError } from '../errors.js';
import { packageRoot } from '../package-root.js';
import { treeSha256 } from '../provenance/tree-hashes.js';
import { checkQueueAgent, materialiseTask, writeTaskBundle } from './task-bundle.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('task bundles', () => {
  it('carry a task so that its config loads on the worker with the same repo template', async () => {
    const cfg = loadConfigOrThrow(path.join(packageRoot(), 'benchmarks/js-slugify/config.yaml'));
    const cache = mkdtempSync(path.join(os.tmpdir(), 'ag-task-'));
    dirs.push(cache);
    const b = await writeTaskBundle(cfg, path.join(cache, 'a.bundle'));
    expect(b.config).toBe('js-slugify/config.yaml');
    expect((await writeTaskBundle(cfg, path.join(cache, 'b.bundle'))).sha256).toBe(b.sha256);
    const bytes = readFileSync(path.join(cache, 'a.bundle'));
    const dir = await materialiseTask(cache, b.sha256, async (file) => writeFileSync(file, bytes), 'job');
    const there = loadConfigOrThrow(path.join(dir, b.config));
    expect(there.repo.startsWith(dir)).toBe(true);
    expect(treeSha256(there.repo)).toBe(treeSha256(cfg.repo));
    expect(there.test_command).toEqual(cfg.test_command);
    // Extracted once per digest: the second job of the task does not fetch it again.
    const again = await materialiseTask(
      cache,
      b.sha256,
      async () => {
        throw new Error('fetched again');
      },
      'job',
    );
    expect(again).toBe(dir);
  });

  it('refuse a profile file given in the matrix: it would not travel with the task', () => {
    expect(() => checkQueueAgent({ name: 'p', kind: 'profile', profile: '/home/me/agent.yaml' })).toThrow(
      ConfigError,
    );
    expect(() => checkQueueAgent({ name: 'p', kind: 'profile', profile: 'codex' })).not.toThrow();
  });
});
