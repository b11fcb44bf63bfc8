import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCiConfig } from './ci-config.js';

const root = mkdtempSync(path.join(tmpdir(), 'ag-ci-config-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function repo(name: string, files: Record<string, string>): string {
  const dir = path.join(root, name);
  mkdirSync(dir);
  for (const [f, text] of Object.entries(files)) writeFileSync(path.join(dir, f), text);
  return dir;
}

describe('loadCiConfig', () => {
  it('resolves the policy keys with the checkout as the repository', () => {
    const dir = repo('ok', {
      '.agentguard.yaml': 'test_command: npm test\nforbidden_paths: ["deploy/**"]\nmax_changed_files: 5\n',
    });
    const { cfg, agent_logs } = loadCiConfig(path.join(dir, '.agentguard.yaml'), dir);
    expect(agent_logs).toEqual([]);
    expect(cfg.repo).toBe(dir);
    expect(cfg.test_command).toEqual(['npm', 'test']);
    expect(cfg.forbidden_paths).toEqual(['deploy/**']);
    expect(cfg.max_changed_files).toBe(5);
  });

  it.each(['task', 'agent_command', 'agent_profile', 'repo', 'model_script'])('refuses %s by name', (key) => {
    const dir = repo(`refuse-${key}`, { 'c.yaml': `test_command: x\n${key}: something\n` });
    expect(() => loadCiConfig(path.join(dir, 'c.yaml'), dir)).toThrow(
      new RegExp(`field '${key}'.*no task or agent`),
    );
  });

  it('takes agent_logs as its own key: globs inside the repository', () => {
    const dir = repo('logs', {
      'c.yaml': 'test_command: x\nagent_logs: [".agent/*.jsonl", logs/run.jsonl]\n',
    });
    expect(loadCiConfig(path.join(dir, 'c.yaml'), dir).agent_logs).toEqual([
      '.agent/*.jsonl',
      'logs/run.jsonl',
    ]);
    const abs = repo('logs-abs', { 'c.yaml': 'test_command: x\nagent_logs: [/tmp/log.jsonl]\n' });
    expect(() => loadCiConfig(path.join(abs, 'c.yaml'), abs)).toThrow(
      /field 'agent_logs': '\/tmp\/log.jsonl' points outside the repository.*--agent-log FILE/,
    );
    const bad = repo('logs-bad', { 'c.yaml': 'test_command: x\nagent_logs: 3\n' });
    expect(() => loadCiConfig(path.join(bad, 'c.yaml'), bad)).toThrow(/field 'agent_logs': must be a list/);
  });

  it('checks the rest as a task config is checked (unknown keys, bad globs, bad patterns)', () => {
    const dir = repo('bad', { 'c.yaml': 'test_command: x\nforbiden_paths: []\n' });
    expect(() => loadCiConfig(path.join(dir, 'c.yaml'), dir)).toThrow(/forbiden_paths/);
    const glob = repo('glob', { 'c.yaml': 'test_command: x\nforbidden_paths: ["/etc/**"]\n' });
    expect(() => loadCiConfig(path.join(glob, 'c.yaml'), glob)).toThrow(/absolute path/);
    const missing = repo('no-tests', { 'c.yaml': 'forbidden_paths: []\n' });
    expect(() => loadCiConfig(path.join(missing, 'c.yaml'), missing)).toThrow(
      /field 'test_command': is missing/,
    );
  });
});
