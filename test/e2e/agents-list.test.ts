import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { execCli, tempDir } from './exec-cli.js';

// `agentguard agents list` against a cache of its own: one agent at the pinned version, one at another.
const cache = tempDir();
afterAll(() => rmSync(cache, { recursive: true, force: true }));

function fakeInstall(name: string, pkg: string, version: string, bin: string): void {
  const dir = path.join(cache, name, 'node_modules');
  mkdirSync(path.join(dir, pkg), { recursive: true });
  writeFileSync(path.join(dir, pkg, 'package.json'), JSON.stringify({ name: pkg, version }));
  mkdirSync(path.join(dir, '.bin'), { recursive: true });
  writeFileSync(path.join(dir, '.bin', bin), '#!/bin/sh\n', { mode: 0o755 });
}

type Row = {
  name: string;
  offline: boolean;
  skills_dir: string | null;
  installed: string | null;
  status: string;
};

describe('agentguard agents list', () => {
  it('shows per profile whether it runs offline, where its skills go, and what the cache holds', async () => {
    fakeInstall('pi', '@mariozechner/pi-coding-agent', '0.73.1', 'pi');
    fakeInstall('copilot', '@github/copilot', '1.0.0', 'copilot');
    const env = { AGENTGUARD_AGENT_CACHE: cache };
    const json = await execCli(['agents', 'list', '--json'], { env });
    expect(json.code, json.stderr).toBe(0);
    const rows = (JSON.parse(json.stdout) as { agents: Row[] }).agents;
    const by = new Map(rows.map((r) => [r.name, r]));
    expect(by.get('pi')).toMatchObject({ offline: true, skills_dir: '~/.pi/agent/skills', status: 'ok' });
    expect(by.get('copilot')).toMatchObject({ installed: '1.0.0', status: 'other-version' });
    expect(by.get('qwen-code')).toMatchObject({ offline: true, installed: null, status: 'not installed' });
    expect(rows.every((r) => r.offline)).toBe(true);

    const table = await execCli(['agents', 'list'], { env });
    expect(table.stdout).toMatch(/agent\s+package\s+model API\s+offline\s+skills\s+installed\s+status/);
    expect(table.stdout).toMatch(
      /\bpi\s+@mariozechner\/pi-coding-agent@0\.73\.1\s+chat\s+yes\s+~\/\.pi\/agent\/skills\s+0\.73\.1\s+ok/,
    );
  });
});
