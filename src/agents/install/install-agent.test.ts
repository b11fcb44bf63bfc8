// Installs the real codex CLI from the npm registry into a temporary cache (npm's own download
// cache makes repeats cheap). Without a reachable registry the install test skips with the reason.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, SetupError } from '../../errors.js';
import { loadProfile } from '../profiles/load-profile.js';
import { agentCacheDir } from './agent-cache.js';
import { installAgent } from './install-agent.js';
import { installedAgents } from './installed-agents.js';
import { resolveAgentBin } from './resolve-bin.js';

const temps: string[] = [];
afterAll(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentguard-agents-'));
  temps.push(dir);
  return dir;
}

function registrySkip(): string | false {
  const probe = spawnSync('npm', ['view', '@openai/codex', 'version'], { encoding: 'utf8', timeout: 60_000 });
  if (probe.status === 0) return false;
  const why = probe.error?.message ?? (probe.stderr.trim().split('\n').at(-1) || `exit ${probe.status}`);
  const reason = `the npm registry is not reachable ('npm view @openai/codex version': ${why})`;
  console.warn(`real agent install test skipped: ${reason}`);
  return reason;
}
const skip = registrySkip();

describe('installAgent with the real npm registry', () => {
  it.skipIf(skip)(
    'installs the pinned codex into the cache (AGENTGUARD_AGENT_CACHE), runs it, lists it, and keeps it on a second call',
    async () => {
      const cache = tempDir();
      const env = { ...process.env, AGENTGUARD_AGENT_CACHE: cache };
      const logged: string[] = [];
      const started = Date.now();
      const first = await installAgent('codex', { env, log: (l) => logged.push(l) });
      console.log(`real codex install: ${Date.now() - started} ms`);
      expect(first).toEqual({
        name: 'codex',
        package: '@openai/codex',
        version: '0.169.0',
        dir: path.join(cache, 'codex'),
        bin: path.join(cache, 'codex', 'node_modules', '.bin', 'codex'),
        fresh: true,
      });
      expect(logged).toEqual([`installing @openai/codex@0.169.0 into ${path.join(cache, 'codex')}`]);

      const version = spawnSync(first.bin, ['--version'], { encoding: 'utf8', timeout: 60_000 });
      expect(version.status, version.stderr).toBe(0);
      expect(version.stdout.trim()).toBe('codex-cli 0.169.0');

      const again = await installAgent('codex', { cacheDir: cache, npm: '/nonexistent/npm' });
      expect(again.fresh).toBe(false);

      expect(installedAgents(cache)).toEqual([
        {
          name: 'codex',
          dir: first.dir,
          package: '@openai/codex',
          version: '0.169.0',
          pinned: '0.169.0',
          bin: first.bin,
          status: 'ok',
        },
      ]);
      expect(resolveAgentBin(loadProfile('codex'), { env })).toEqual({
        ok: true,
        path: first.bin,
        dir: first.dir,
        version: '0.169.0',
        source: 'cache',
      });
    },
    600_000,
  );

  it.skipIf(skip)(
    'an unreachable registry is one clear setup error naming the fix',
    async () => {
      const env = {
        ...process.env,
        npm_config_registry: 'http://127.0.0.1:9/',
        npm_config_fetch_retries: '0',
        npm_config_cache: tempDir(),
      };
      const run = installAgent('codex', { cacheDir: tempDir(), env });
      await expect(run).rejects.toThrow(SetupError);
      await expect(installAgent('codex', { cacheDir: tempDir(), env })).rejects.toThrow(
        /^cannot install agent 'codex' \(@openai\/codex@0\.169\.0\): the npm registry http:\/\/127\.0\.0\.1:9 could not be reached \(ECONNREFUSED\)\. Fix: check the network/,
      );
    },
    120_000,
  );
});

describe('installAgent errors that need no registry', () => {
  it('npm missing', async () => {
    await expect(installAgent('codex', { cacheDir: tempDir(), npm: '/nonexistent/npm' })).rejects.toThrow(
      "cannot install agent 'codex' (@openai/codex@0.169.0): npm is not installed (or not on PATH). Fix: install Node.js 20 or newer, which brings npm.",
    );
  });

  it('an unknown profile, and a profile without a package', async () => {
    await expect(installAgent('codexx', { cacheDir: tempDir() })).rejects.toThrow(ConfigError);
    await expect(installAgent('codexx', { cacheDir: tempDir() })).rejects.toThrow(/Fix: use 'codex'/);
    const file = path.join(tempDir(), 'mine.yaml');
    writeFileSync(file, "schema_version: 1\nname: mine\nbin: mine\ncommand: ['{task_prompt}']\n");
    await expect(installAgent(file, { cacheDir: tempDir() })).rejects.toThrow(
      /field 'package': profile 'mine' names no npm package to install/,
    );
  });
});

describe('resolveAgentBin and installedAgents without installing', () => {
  it('says how to install an agent that is missing or at another version', () => {
    const cache = tempDir();
    expect(resolveAgentBin(loadProfile('claude-code'), { cacheDir: cache })).toEqual({
      ok: false,
      message: `agent 'claude-code' (@anthropic-ai/claude-code@2.1.328) is not installed in ${path.join(cache, 'claude-code')}`,
      fix: "run 'agentguard agents install claude-code'",
    });
    // An older install left in the cache: a real package layout with another version.
    const dir = path.join(cache, 'claude-code');
    const pkgDir = path.join(dir, 'node_modules', '@anthropic-ai', 'claude-code');
    mkdirSync(pkgDir, { recursive: true });
    mkdirSync(path.join(dir, 'node_modules', '.bin'));
    writeFileSync(
      path.join(pkgDir, 'package.json'),
      '{"name":"@anthropic-ai/claude-code","version":"2.0.0"}',
    );
    writeFileSync(path.join(pkgDir, 'cli.js'), '#!/usr/bin/env node\n', { mode: 0o755 });
    symlinkSync('../@anthropic-ai/claude-code/cli.js', path.join(dir, 'node_modules', '.bin', 'claude'));
    mkdirSync(path.join(cache, 'something-else'));
    const resolved = resolveAgentBin(loadProfile('claude-code'), { cacheDir: cache });
    expect(resolved).toMatchObject({ ok: false, message: expect.stringContaining('installed at 2.0.0') });
    expect(installedAgents(cache).map((a) => [a.name, a.status, a.version])).toEqual([
      ['claude-code', 'other-version', '2.0.0'],
      ['something-else', 'no-profile', null],
    ]);
    expect(installedAgents(path.join(cache, 'none'))).toEqual([]);
  });

  it('finds a profile without a package on PATH, and honours AGENTGUARD_AGENT_CACHE', () => {
    const file = path.join(tempDir(), 'sh.yaml');
    writeFileSync(file, "schema_version: 1\nname: sh-agent\nbin: sh\ncommand: [-c, '{task_prompt}']\n");
    expect(resolveAgentBin(loadProfile(file), { env: { PATH: '/usr/bin:/bin' } })).toMatchObject({
      ok: true,
      path: '/usr/bin/sh',
      source: 'path',
    });
    expect(resolveAgentBin(loadProfile(file), { env: { PATH: '/nonexistent' } })).toMatchObject({
      ok: false,
    });
    expect(agentCacheDir({ AGENTGUARD_AGENT_CACHE: '/x/y' })).toBe('/x/y');
    expect(agentCacheDir({})).toMatch(/\.cache\/agentguard\/agents$/);
  });
});
