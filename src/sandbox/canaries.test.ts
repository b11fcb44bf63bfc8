import { linkSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { seedCanaryHome } from './canaries.js';

const home = mkdtempSync(path.join(tmpdir(), 'ag-canaries-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('seedCanaryHome', () => {
  it('records each canary file by identity, which a hard link to it shares', () => {
    const canaries = seedCanaryHome(home);
    expect(canaries.map((c) => c.path).sort()).toEqual(['.aws/credentials', '.env', '.npmrc', '.ssh/id_rsa']);
    for (const c of canaries) {
      const st = statSync(path.join(home, c.path));
      expect([c.dev, c.ino]).toEqual([st.dev, st.ino]);
    }
    const key = canaries.find((c) => c.kind === 'ssh-key');
    linkSync(path.join(home, '.ssh/id_rsa'), path.join(home, 'alias'));
    expect(statSync(path.join(home, 'alias')).ino).toBe(key?.ino);
  });
});
