import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordVerification, verificationsDir } from '../../src/agents/install/verification-record.js';
import { BENCHMARKS, execCli, tempDir } from './exec-cli.js';

// `agentguard agents list` against a cache of its own: one agent at the pinned version, one at another.
const cache = tempDir();
const realCache = process.env.AGENTGUARD_AGENT_CACHE ?? path.join(os.homedir(), '.cache/agentguard/agents');
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
  offline_reason: string | null;
  verified: { version: string | null; verified_at: string; by: string; worked: string[] } | null;
  last_verified: string;
  skills_dir: string | null;
  installed: string | null;
  status: string;
};

describe('agentguard agents list', () => {
  it('shows per profile whether it runs offline, where its skills go, and what the cache holds', async () => {
    fakeInstall('pi', '@mariozechner/pi-coding-agent', '0.73.1', 'pi');
    fakeInstall('copilot', '@github/copilot', '1.0.0', 'copilot');
    const env = { AGENTGUARD_AGENT_CACHE: cache };
    const json = await execCli(['agents', 'list', '--json'], { cwd: cache, env });
    expect(json.code, json.stderr).toBe(0);
    const rows = (JSON.parse(json.stdout) as { agents: Row[] }).agents;
    const by = new Map(rows.map((r) => [r.name, r]));
    expect(by.get('pi')).toMatchObject({ offline: true, skills_dir: '~/.pi/agent/skills', status: 'ok' });
    expect(by.get('copilot')).toMatchObject({ installed: '1.0.0', status: 'other-version' });
    expect(by.get('qwen-code')).toMatchObject({ offline: true, installed: null, status: 'not installed' });
    const online = rows.filter((r) => !r.offline).map((r) => r.name);
    expect(online).toEqual(['amp', 'auggie', 'crush']);
    for (const name of online) expect(by.get(name)?.offline_reason).toMatch(/\w/);
    expect(by.get('amp')?.offline_reason).toContain(
      'no supported setting points Amp at another model endpoint',
    );
    // A fresh cache has verified nothing.
    expect(rows.every((r) => r.verified === null)).toBe(true);

    const table = await execCli(['agents', 'list'], { cwd: cache, env });
    expect(table.stdout).toMatch(
      /agent\s+package\s+model API\s+offline\s+skills\s+installed\s+status\s+last verified/,
    );
    expect(table.stdout).toMatch(
      /\bpi\s+@mariozechner\/pi-coding-agent@0\.73\.1\s+chat\s+yes\s+~\/\.pi\/agent\/skills\s+0\.73\.1\s+ok\s+never/,
    );
    expect(table.stdout).toMatch(/\bamp\s+@ampcode\/cli@0\.0\.1790712063-gb89205\s+-\s+no \(online only\)/);
  });

  it('shows the last verification recorded beside the cache, and "unreadable" for a damaged record', async () => {
    recordVerification(cache, {
      agent: 'codex',
      version: '0.169.0',
      by: 'test',
      worked: ['exit: exit 0'],
      at: new Date('2026-11-30T08:00:00Z'),
    });
    writeFileSync(path.join(verificationsDir(cache), 'gemini-cli.json'), '{');
    const env = { AGENTGUARD_AGENT_CACHE: cache };
    const table = await execCli(['agents', 'list'], { cwd: cache, env });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/\bcodex\s.*\s2026-11-30 \(0\.169\.0\)\s*$/m);
    expect(table.stdout).toMatch(/\bgemini-cli\s.*\sunreadable\s*$/m);
    expect(table.stdout).toMatch(/\bclaude-code\s.*\snever\s*$/m);
    const rows = (
      JSON.parse((await execCli(['agents', 'list', '--json'], { cwd: cache, env })).stdout) as {
        agents: Row[];
      }
    ).agents;
    expect(rows.find((r) => r.name === 'gemini-cli')).toMatchObject({
      verified: null,
      last_verified: 'unreadable',
    });
    expect(rows.find((r) => r.name === 'codex')?.verified).toMatchObject({
      version: '0.169.0',
      verified_at: '2026-11-30T08:00:00.000Z',
      worked: ['exit: exit 0'],
    });
  });
});

const piReady = process.getuid?.() === 0 && existsSync(path.join(realCache, 'pi/node_modules/.bin/pi'));
if (!piReady) console.warn('agents verify e2e skipped: needs scripts/install-test-agents.sh pi');

describe('agentguard agents verify', () => {
  it.skipIf(!piReady)('runs the installed pi offline on the smoke task and prints each step', async () => {
    const r = await execCli(['agents', 'verify', 'pi'], {
      cwd: cache,
      env: { AGENTGUARD_AGENT_CACHE: realCache },
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('pi 0.73.1: verified offline');
    for (const step of ['version', 'exit', 'model', 'skill', 'helper'])
      expect(r.stdout).toMatch(new RegExp(`ok\\s+${step}\\b`));
    expect(r.stdout).toContain('3 of 3 scripted turns answered (chat)');
    expect(r.stdout).toContain('report.txt: "citations ok: 1\\n"');
    // The success is recorded beside the cache, and `agents list` shows it with today's date.
    const list = await execCli(['agents', 'list', '--json'], {
      cwd: cache,
      env: { AGENTGUARD_AGENT_CACHE: realCache },
    });
    const pi = (JSON.parse(list.stdout) as { agents: Row[] }).agents.find((a) => a.name === 'pi');
    expect(pi?.verified?.version).toContain('0.73.1');
    expect(pi?.verified?.by).toContain('agents verify');
    expect(Date.now() - Date.parse(pi?.verified?.verified_at ?? '')).toBeLessThan(10 * 60_000);
    expect(pi?.verified?.worked).toContain('helper: report.txt: "citations ok: 1\\n"');
  });

  it('refuses an online-only agent, exit 2, saying why, before looking for it or the network', async () => {
    const r = await execCli(['agents', 'verify', 'amp'], {
      cwd: cache,
      env: { AGENTGUARD_AGENT_CACHE: cache },
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('agents verify amp');
    expect(r.stderr).toContain('online-only (offline: false)');
    expect(r.stderr).toContain('no supported setting points Amp at another model endpoint');
    expect(r.stderr).not.toContain('agents install amp');
    for (const name of ['auggie', 'crush']) {
      const other = await execCli(['agents', 'verify', name], { cwd: cache });
      expect(other.code).toBe(2);
      expect(other.stderr).toContain('online-only');
    }
    expect(existsSync(path.join(verificationsDir(cache), 'amp.json'))).toBe(false);
  });

  it('refuses a scripted model for an online-only agent in a run, exit 2, naming model_script', async () => {
    const dir = tempDir();
    const demo = path.join(BENCHMARKS, 'agents/demos/js-slugify');
    writeFileSync(
      path.join(dir, 'config.yaml'),
      readFileSync(path.join(demo, 'config.yaml'), 'utf8')
        .replace('agent_profile: pi', 'agent_profile: amp')
        .replace('repo: ../../../js-slugify/repo', `repo: ${path.join(BENCHMARKS, 'js-slugify/repo')}`),
    );
    copyFileSync(path.join(demo, 'trajectory.yaml'), path.join(dir, 'trajectory.yaml'));
    const r = await execCli(['run', 'config.yaml', '--dry-run'], { cwd: dir });
    rmSync(dir, { recursive: true, force: true });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "field 'model_script': the agent profile 'amp' is online-only (offline: false)",
    );
    expect(r.stderr).toContain('Fix: remove model_script');
  });

  it('fails, exit 1, naming the steps that did not happen, for an agent that ignores the model', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'idle.yaml');
    writeFileSync(
      file,
      'schema_version: 1\nname: idle\nbin: /bin/true\ncommand: ["{task_prompt}"]\nendpoint: chat\nskills_dir: "~/.idle/skills"\n',
    );
    const r = await execCli(['agents', 'verify', file, '--json'], { cwd: cache });
    rmSync(dir, { recursive: true, force: true });
    expect(r.code, r.stderr).toBe(1);
    const out = JSON.parse(r.stdout) as {
      ok: boolean;
      steps: { step: string; ok: boolean; detail: string }[];
    };
    expect(out.ok).toBe(false);
    expect(out.steps.map((s) => [s.step, s.ok])).toEqual([
      ['exit', true],
      ['model', false],
      ['skill', false],
      ['helper', false],
    ]);
    expect(out.steps[1]?.detail).toContain('0 of 3 scripted turns answered');
  });

  it('exit 2 with the fix for an agent that is not installed, and for an unknown name', async () => {
    const r = await execCli(['agents', 'verify', 'qwen-code'], {
      cwd: cache,
      env: { AGENTGUARD_AGENT_CACHE: cache },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('agents verify qwen-code');
    expect(r.stderr).toMatch(/agents install qwen-code/);
    const unknown = await execCli(['agents', 'verify', 'qwen'], { cwd: cache });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("no built-in agent profile 'qwen'");
  });
});
