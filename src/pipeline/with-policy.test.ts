import { describe, expect, it } from 'vitest';
import { makeConfig } from '../analysis/test-bundle.js';
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
