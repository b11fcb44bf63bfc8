import { describe, expect, it } from 'vitest';
import { POLICY_KEYS } from '../analysis/checks/index.js';
import { makeConfig } from '../analysis/test-bundle.js';
import type { ResolvedConfig } from '../config/schema.js';
import { withPolicy } from './analyse-run.js';

describe('withPolicy', () => {
  it('takes the judging keys from the new policy and the task and agent facts from the run', () => {
    const snapshot = makeConfig({
      name: 'the-run',
      forbidden_paths: [],
      network: { mode: 'allowlist', allow: ['model.agentguard.test'] },
      security: { state_dirs: ['/root/.codex'], disable: ['net-dns-tunnel'] },
    });
    const policy = makeConfig({
      name: 'stricter',
      forbidden_paths: ['secrets/**'],
      security: { state_dirs: ['~/.cache/tool'], disable: [] },
    });
    const judged = withPolicy(snapshot, policy);
    expect(judged.name).toBe('the-run');
    expect(judged.forbidden_paths).toEqual(['secrets/**']);
    expect(judged.security.disable).toEqual([]);
    // The agent's own state folder stays allowed; the scripted model's host stays in the allow list.
    expect(judged.security.state_dirs).toEqual(['~/.cache/tool', '/root/.codex']);
    expect(judged.network.allow).toEqual(['model.agentguard.test']);
  });

  it('takes grader_paths and min_skill_coverage from the new policy', () => {
    const snapshot = makeConfig({ grader_paths: [], min_skill_coverage: 0.5 });
    const policy = makeConfig({ grader_paths: ['answers/**'], min_skill_coverage: 1 });
    const judged = withPolicy(snapshot, policy);
    expect(judged.grader_paths).toEqual(['answers/**']);
    expect(judged.min_skill_coverage).toBe(1);
  });
});

describe('the policy keys', () => {
  it('withPolicy takes exactly POLICY_KEYS from the new policy and every other key from the run', () => {
    const snapshot = makeConfig({ security: { state_dirs: ['/root/.codex'] } });
    // Every value of the new policy is its own object, so where each key came from is unambiguous.
    const policy: Record<string, unknown> = Object.fromEntries(
      Object.keys(snapshot).map((key) => [key, { from: 'policy', key }]),
    );
    policy.security = { ...snapshot.security, state_dirs: [] };
    const judged: Record<string, unknown> = withPolicy(snapshot, policy as ResolvedConfig);
    const snap: Record<string, unknown> = snapshot;
    for (const key of Object.keys(snapshot)) {
      if (key === 'security') continue;
      expect(judged[key], key).toBe(
        (POLICY_KEYS as readonly string[]).includes(key) ? policy[key] : snap[key],
      );
    }
  });

  it('are still every key that was policy before checks declared their own, and no task or agent fact', () => {
    const before = [
      'allowed_paths',
      'forbidden_paths',
      'test_paths',
      'grader_paths',
      'min_skill_coverage',
      'unsafe_commands',
      'command_policy',
      'severity',
      'max_changed_files',
      'max_added_lines',
      'max_deleted_lines',
      'secret_paths',
      'secret_detectors',
      'secret_presets',
      'secret_scan_max_bytes',
      'security',
    ];
    expect(POLICY_KEYS).toEqual(expect.arrayContaining(before));
    const facts = Object.keys(makeConfig()).filter((key) => !before.includes(key));
    for (const key of facts) expect(POLICY_KEYS, key).not.toContain(key);
  });
});
