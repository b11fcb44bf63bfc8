import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../errors.js';
import { loadProfile } from './load-profile.js';
import { modelBaseUrl, promptTag, type RenderContext, renderProfile } from './render-profile.js';
import { writeRenderedFiles } from './write-files.js';

const PROMPT = 'Fix parse() for empty input; do not touch the tests.';
const CTX: RenderContext = {
  prompt: PROMPT,
  taskFile: '/runs/r1/task/prompt.md',
  repoDir: '/runs/r1/repo',
  agentHome: '/root',
  hostHome: '/runs/r1/home',
  binPath: '/cache/codex/node_modules/.bin/codex',
  hostEnv: { OPENAI_API_KEY: 'sk-real-key-from-the-user', UNRELATED: 'x' },
};
const MODEL = 'http://model.agentguard.test:8080';

const temps: string[] = [];
afterAll(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

describe('renderProfile: codex', () => {
  const codex = loadProfile('codex');

  it('builds argv with the prompt as one whole argument after --, and a display argv with its hash', () => {
    const r = renderProfile(codex, { ...CTX, modelUrl: MODEL });
    expect(r.argv).toEqual([
      '/cache/codex/node_modules/.bin/codex',
      'exec',
      '--skip-git-repo-check',
      '-s',
      'danger-full-access',
      '--',
      PROMPT,
    ]);
    expect(r.display_argv.at(-1)).toBe(promptTag(PROMPT));
    expect(r.display_argv.at(-1)).toMatch(/^<prompt sha256:[0-9a-f]{12}>$/);
    expect(r.display_argv.join(' ')).not.toContain('parse()');
    expect(r.version_argv).toEqual(['/cache/codex/node_modules/.bin/codex', '--version']);
    expect(r.cwd).toBe('/runs/r1/repo');
  });

  it('points CODEX_HOME at its state folder and the scripted provider at the model URL with /v1', () => {
    const r = renderProfile(codex, { ...CTX, modelUrl: MODEL });
    expect(r.env).toEqual({
      OPENAI_API_KEY: 'sk-real-key-from-the-user',
      CODEX_HOME: '/root/.codex',
      AGENTGUARD_MODEL_KEY: 'scripted',
    });
    expect(r.env_missing).toEqual(['CODEX_API_KEY']);
    expect(r.files).toHaveLength(1);
    const [file] = r.files;
    expect(file?.path).toBe('/runs/r1/home/.codex/config.toml');
    expect(file?.agent_path).toBe('/root/.codex/config.toml');
    expect(file?.content).toContain('model_provider = "agentguard"');
    expect(file?.content).toContain(`base_url = "${MODEL}/v1"`);
    expect(file?.content).toContain('wire_api = "responses"');
    expect(file?.content).toContain('env_key = "AGENTGUARD_MODEL_KEY"');
    expect(file?.content).not.toContain('{');
    expect(r.state_dirs).toEqual(['/root/.codex']);
    expect(r.skills_dir).toBe('/root/.codex/skills');
    expect(r).toMatchObject({ endpoint: 'responses', scripted: true, model: null });
  });

  it('against a real model: no scripted provider, no model key, but still no plugins or analytics', () => {
    const r = renderProfile(codex, CTX);
    expect(r.scripted).toBe(false);
    expect(Object.keys(r.env).sort()).toEqual(['CODEX_HOME', 'OPENAI_API_KEY']);
    expect(r.files.map((f) => f.agent_path)).toEqual(['/root/.codex/config.toml']);
    expect(r.files[0]?.content).not.toContain('model_provider');
    expect(r.files[0]?.content).toContain('plugins = false');
  });

  it('accepts a prompt starting with - (it follows --)', () => {
    expect(renderProfile(codex, { ...CTX, prompt: '--help me' }).argv.at(-1)).toBe('--help me');
  });
});

describe('renderProfile: claude-code', () => {
  const claude = loadProfile('claude-code');

  it('sets the Anthropic base URL without /v1 and replaces a real key with the scripted one', () => {
    const r = renderProfile(claude, {
      ...CTX,
      binPath: '/cache/claude-code/node_modules/.bin/claude',
      modelUrl: `${MODEL}/`,
      hostEnv: { ANTHROPIC_API_KEY: 'sk-ant-real' },
    });
    expect(r.argv).toEqual([
      '/cache/claude-code/node_modules/.bin/claude',
      '-p',
      '--dangerously-skip-permissions',
      '--',
      PROMPT,
    ]);
    expect(r.env).toEqual({
      ANTHROPIC_API_KEY: 'scripted',
      ANTHROPIC_BASE_URL: MODEL,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      IS_SANDBOX: '1',
    });
    expect(r.files).toEqual([]);
    expect(r.state_dirs).toEqual(['/root/.claude', '/root/.claude.json', '/root/.claude.json.*']);
    expect(r.skills_dir).toBe('/root/.claude/skills');
  });

  it('passes the real key through when no scripted model is used', () => {
    const r = renderProfile(claude, { ...CTX, hostEnv: { ANTHROPIC_API_KEY: 'sk-ant-real' } });
    expect(r.env.ANTHROPIC_API_KEY).toBe('sk-ant-real');
    expect(r.env.ANTHROPIC_BASE_URL).toBeUndefined();
  });
});

describe('renderProfile: rules applied at render time', () => {
  it('base URLs per API', () => {
    expect(modelBaseUrl('http://h:1', 'responses')).toBe('http://h:1/v1');
    expect(modelBaseUrl('http://h:1/v1/', 'chat')).toBe('http://h:1/v1');
    expect(modelBaseUrl('http://h:1/', 'anthropic')).toBe('http://h:1');
    expect(modelBaseUrl('http://h:1', 'gemini')).toBe('http://h:1');
  });

  it('refuses a prompt starting with - where the agent would read it as an option', () => {
    expect(() => renderProfile(loadProfile('gemini-cli'), { ...CTX, prompt: '-v is broken' })).toThrow(
      /gemini-cli\.yaml: field 'command\[3\]': the prompt starts with '-', which gemini-cli would read as an option/,
    );
  });

  it('refuses a value with a quote or newline where it would go into a config file', () => {
    const modelUrl = 'http://x"\n[model_providers.evil]';
    expect(() => renderProfile(loadProfile('codex'), { ...CTX, modelUrl })).toThrow(ConfigError);
    expect(() => renderProfile(loadProfile('codex'), { ...CTX, modelUrl })).toThrow(
      /field 'scripted.config_files\[0\].content': the value of \{model_url\}/,
    );
    // In argv and the environment the same characters are harmless.
    expect(renderProfile(loadProfile('codex'), { ...CTX, agentHome: '/ho"me' }).env.CODEX_HOME).toBe(
      '/ho"me/.codex',
    );
  });

  it('runs in the config folder with workdir: config_dir, and needs that folder', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'agentguard-render-'));
    temps.push(dir);
    const file = path.join(dir, 'p.yaml');
    writeFileSync(
      file,
      "schema_version: 1\nname: here\nbin: ./run.sh\ncommand: ['{task_file}', '{config_dir}']\nworkdir: config_dir\n",
    );
    const profile = loadProfile(file);
    const r = renderProfile(profile, { ...CTX, binPath: undefined, configDir: dir });
    expect(r.cwd).toBe(dir);
    expect(r.argv).toEqual(['./run.sh', '/runs/r1/task/prompt.md', dir]);
    expect(() => renderProfile(profile, CTX)).toThrow(/field 'command\[1\]': \{config_dir\} has no value/);
  });
});

describe('writeRenderedFiles', () => {
  it('writes owner-only files, creating folders, and refuses to write through a symlink', () => {
    const home = mkdtempSync(path.join(tmpdir(), 'agentguard-home-'));
    temps.push(home);
    const r = renderProfile(loadProfile('codex'), { ...CTX, hostHome: home, modelUrl: MODEL });
    writeRenderedFiles(r.files);
    const written = path.join(home, '.codex', 'config.toml');
    expect(readFileSync(written, 'utf8')).toBe(r.files[0]?.content);
    expect(statSync(written).mode & 0o777).toBe(0o600);
    rmSync(written);
    symlinkSync('/etc/hostname', written);
    expect(() => writeRenderedFiles(r.files)).toThrow(/is a symlink/);
  });
});
