import { describe, expect, it } from 'vitest';
import { listBuiltinProfiles, loadProfile } from './load-profile.js';
import { formatPlanSummary, planSummary } from './plan-summary.js';
import { promptTag } from './render-profile.js';

const PROMPT = 'Rotate the key in config/prod.env and never mention hunter2-secret-marker.';
const HOST_ENV = {
  OPENAI_API_KEY: 'sk-value-that-must-not-leak-0001',
  CODEX_API_KEY: 'codex-value-that-must-not-leak',
  ANTHROPIC_API_KEY: 'sk-ant-value-that-must-not-leak',
  GEMINI_API_KEY: 'gemini-value-that-must-not-leak',
};
const SECRETS = [PROMPT, 'hunter2-secret-marker', ...Object.values(HOST_ENV)];

describe('planSummary (what --dry-run prints)', () => {
  it.for(listBuiltinProfiles())('%s: never contains the prompt or an environment value', (name) => {
    for (const scripted of [true, false]) {
      const plan = planSummary(loadProfile(name), { prompt: PROMPT, scripted, hostEnv: HOST_ENV });
      const shown = `${JSON.stringify(plan)}\n${formatPlanSummary(plan)}`;
      for (const secret of SECRETS) expect(shown).not.toContain(secret);
      expect(shown).toContain(promptTag(PROMPT));
      expect(plan.argv).toContain(promptTag(PROMPT));
    }
  });

  it('uses stable markers for paths that do not exist yet and lists environment names only', () => {
    const plan = planSummary(loadProfile('codex'), { prompt: PROMPT, scripted: true, hostEnv: HOST_ENV });
    expect(plan).toMatchObject({
      profile: 'codex',
      package: '@openai/codex@0.169.0',
      argv: ['codex', 'exec', '--skip-git-repo-check', '-s', 'danger-full-access', '--', promptTag(PROMPT)],
      version_argv: ['codex', '--version'],
      cwd: '<run>/repo',
      files: ['<run>/home/.codex/config.toml'],
      state_dirs: ['<run>/home/.codex'],
      skills_dir: '<run>/home/.codex/skills',
      endpoint: 'responses',
      model_server: 'scripted',
    });
    expect(plan.env).toEqual([
      { name: 'OPENAI_API_KEY', source: 'pass', present: true },
      { name: 'CODEX_API_KEY', source: 'pass', present: true },
      { name: 'CODEX_HOME', source: 'set' },
      { name: 'AGENTGUARD_MODEL_KEY', source: 'scripted' },
    ]);
    const text = formatPlanSummary(plan);
    expect(text).toContain(
      `command:   codex exec --skip-git-repo-check -s danger-full-access -- '${promptTag(PROMPT)}'`,
    );
    expect(text).toContain('env names: OPENAI_API_KEY, CODEX_API_KEY, CODEX_HOME, AGENTGUARD_MODEL_KEY');
  });

  it('says which passed-through names are missing, and leaves the scripted block out for a real model', () => {
    const plan = planSummary(loadProfile('claude-code'), { prompt: PROMPT, scripted: false, hostEnv: {} });
    expect(plan.env).toEqual([
      { name: 'ANTHROPIC_API_KEY', source: 'pass', present: false },
      { name: 'ANTHROPIC_MODEL', source: 'pass', present: false },
      { name: 'CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC', source: 'set' },
      { name: 'DISABLE_AUTOUPDATER', source: 'set' },
      { name: 'IS_SANDBOX', source: 'set' },
    ]);
    expect(plan.model_server).toBe('real');
    expect(formatPlanSummary(plan)).toContain('ANTHROPIC_API_KEY (not set)');
  });
});
