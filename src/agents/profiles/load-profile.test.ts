import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { promptHint } from '../../analysis/checks/agent-exit.js';
import { ConfigError } from '../../errors.js';
import { listBuiltinProfiles, loadProfile, loadProfileResult } from './load-profile.js';
import { runsOffline } from './schema.js';

const dir = mkdtempSync(path.join(tmpdir(), 'agentguard-profile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const VALID = `schema_version: 1
name: my-agent
bin: my-agent
command: [run, '{task_prompt}']
`;

let n = 0;
function profileFile(text: string): string {
  const file = path.join(dir, `p${n++}.yaml`);
  writeFileSync(file, text);
  return file;
}

/** The single issue a bad profile produces, as the CLI would print it. */
function problem(text: string): string {
  const file = profileFile(text);
  try {
    loadProfile(file);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    const message = (err as Error).message;
    expect(message.startsWith(`${file}: `)).toBe(true);
    expect(message).toContain('Fix: ');
    return (message.split('\n')[0] ?? '').slice(file.length + 2);
  }
  throw new Error('the profile loaded');
}

describe('built-in profiles', () => {
  it('ships eight offline profiles and three online-only ones, each valid and pinned', () => {
    expect(listBuiltinProfiles()).toEqual([
      'amp',
      'auggie',
      'claude-code',
      'codex',
      'copilot',
      'crush',
      'gemini-cli',
      'kilocode',
      'opencode',
      'pi',
      'qwen-code',
    ]);
    const online = ['amp', 'auggie', 'crush'];
    for (const name of listBuiltinProfiles()) {
      const profile = loadProfile(name);
      expect(profile.name).toBe(name);
      expect(profile.file.endsWith(path.join('agents', `${name}.yaml`))).toBe(true);
      expect(profile.package?.version).toMatch(/^\d+\.\d+\.\d+(-[0-9a-z]+)?$/);
      expect(profile.command).toContain('{task_prompt}');
      // Every built-in says which it is; an online-only one says why and has no model API to play.
      expect(profile.offline).toBe(!online.includes(name));
      expect(runsOffline(profile)).toBe(profile.offline);
      if (profile.offline) expect(profile.endpoint).toBeDefined();
      else expect([profile.endpoint, profile.offline_reason === undefined]).toEqual([undefined, false]);
    }
    expect(loadProfile('codex').package).toEqual({ name: '@openai/codex', version: '0.169.0' });
    expect(loadProfile('claude-code').package).toEqual({
      name: '@anthropic-ai/claude-code',
      version: '2.1.328',
    });
  });

  it('each names its vendor hosts, and its prompt-off arguments appear in its command as written', () => {
    for (const name of listBuiltinProfiles()) {
      const profile = loadProfile(name);
      expect(profile.vendor_hosts.length, name).toBeGreaterThan(0);
      if (profile.prompt_off) expect(promptHint(profile.prompt_off, profile.command), name).toBe('');
    }
    expect(loadProfile('codex').vendor_hosts).toContain('api.openai.com');
    expect(loadProfile('claude-code').vendor_hosts).toContain('api.anthropic.com');
    expect(loadProfile('gemini-cli').vendor_hosts).toContain('generativelanguage.googleapis.com');
    expect(loadProfile('claude-code').prompt_off).toEqual(['--dangerously-skip-permissions']);
    expect(loadProfile('gemini-cli').prompt_off).toEqual(['--approval-mode', 'yolo']);
  });

  it('suggests the closest name for an unknown built-in', () => {
    expect(() => loadProfile('codx')).toThrow(/no built-in agent profile 'codx'.*Fix: use 'codex'/);
  });

  it('loads a profile file by path with defaults filled in', () => {
    const profile = loadProfile(profileFile(VALID));
    expect(profile).toMatchObject({
      name: 'my-agent',
      workdir: 'repo',
      env_pass: [],
      env_set: {},
      scripted: { env_set: {}, config_files: [] },
    });
  });
});

describe('profile errors name the file, the field and the fix', () => {
  it('an unknown key, with the key it was probably meant to be', () => {
    expect(problem(VALID.replace('command:', 'comand:'))).toMatch(
      /^field 'comand': 'comand' is not a known key\. Fix: did you mean 'command'\? See src\/agents\/profiles\/README\.md\.$/,
    );
    expect(problem(`${VALID}scripted: {env_sett: {}}\n`)).toMatch(
      /field 'scripted.env_sett'.*did you mean 'env_set'/,
    );
  });

  it('a nested typo suggests the key of that level, inside lists too, and is one issue, not also a missing key', () => {
    const file = path.join(dir, 'nested.yaml');
    writeFileSync(
      file,
      `${VALID}package: {name: x, verison: 1.2.0}\nscripted: {config_files: [{path: '~/.x', contnet: y}]}\n`,
    );
    const result = loadProfileResult(file);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map((i) => [i.field, i.suggestion])).toEqual([
      ['package.verison', 'version'],
      ['scripted.config_files[0].contnet', 'content'],
    ]);
  });

  it('a missing field', () => {
    expect(problem(VALID.replace('bin: my-agent\n', ''))).toBe(
      "field 'bin': is required but missing. Fix: add 'bin'.",
    );
  });

  it('a placeholder embedded in a longer argument', () => {
    expect(problem(VALID.replace("[run, '{task_prompt}']", "[run, '--prompt={task_prompt}']"))).toMatch(
      /^field 'command\[1\]': embeds \{task_prompt\} inside '--prompt=\{task_prompt\}'\. Fix: make the placeholder a whole argument/,
    );
    expect(problem(`${VALID}env_set: {CFG: '{state_dir}/x.json'}\nstate_dirs: ['~/.x']\n`)).toMatch(
      /field 'env_set.CFG': embeds \{state_dir\}.*whole value/,
    );
  });

  it('an unknown placeholder', () => {
    expect(problem(VALID.replace('{task_prompt}', '{prompt}'))).toMatch(
      /^field 'command\[1\]': uses the unknown placeholder \{prompt\}\. Fix: use one of \{task_prompt\}/,
    );
    const file = `${VALID}state_dirs: ['~/.x']\nconfig_files: [{path: '~/.x/c.toml', content: 'url = "{modelurl}"'}]\n`;
    expect(problem(file)).toMatch(
      /field 'config_files\[0\].content': uses the unknown placeholder \{modelurl\}/,
    );
  });

  it('a placeholder where it may not go: the model URL outside the scripted block, the prompt outside argv', () => {
    expect(problem(`${VALID}env_set: {BASE: '{model_url}'}\n`)).toMatch(
      /field 'env_set.BASE': uses \{model_url\}, which only the scripted block may use\. Fix: move it to scripted/,
    );
    expect(problem(`${VALID}config_files: [{path: '~/.x/p', content: 'say {task_prompt}'}]\n`)).toMatch(
      /field 'config_files\[0\].content': uses \{task_prompt\}/,
    );
    expect(problem(`${VALID}version_command: ['{task_prompt}']\n`)).toMatch(/field 'version_command\[0\]'/);
  });

  it('variables the harness owns, and values shaped like credentials', () => {
    expect(problem(`${VALID}env_set: {HTTPS_PROXY: 'http://elsewhere:1'}\n`)).toMatch(
      /field 'env_set.HTTPS_PROXY': is set by the harness itself/,
    );
    expect(problem(`${VALID}env_pass: [no_proxy]\n`)).toMatch(/field 'env_pass\[0\]'/);
    expect(problem(`${VALID}env_set: {OPENAI_API_KEY: sk-abcdefghijklmnopqrstuvwx}\n`)).toMatch(
      /field 'env_set.OPENAI_API_KEY': looks like a credential.*list OPENAI_API_KEY in env_pass/,
    );
  });

  it('paths that leave HOME, and {state_dir} without a state folder', () => {
    expect(problem(`${VALID}config_files: [{path: '~/../etc/passwd', content: x}]\n`)).toMatch(
      /field 'config_files\[0\].path': '~\/\.\.\/etc\/passwd' is not a path under HOME/,
    );
    expect(problem(`${VALID}config_files: [{path: '/etc/x', content: x}]\n`)).toMatch(
      /config_files\[0\].path/,
    );
    expect(problem(`${VALID}state_dirs: [/var/lib/x]\n`)).toMatch(/field 'state_dirs\[0\]'/);
    expect(problem(`${VALID}skills_dir: ../skills\n`)).toMatch(/field 'skills_dir'/);
    expect(problem(`${VALID}env_set: {HOME_OF_X: '{state_dir}'}\n`)).toMatch(
      /field 'state_dirs': \{state_dir\} is used but no state folder is declared/,
    );
  });

  it('a schema version this agentguard does not read, and a wrong type', () => {
    expect(problem(VALID.replace('schema_version: 1', 'schema_version: 2'))).toMatch(
      /^field 'schema_version': 2 is not a profile version this agentguard reads/,
    );
    expect(problem(`${VALID}metadata: {tier: [1]}\n`)).toMatch(/field 'metadata.tier'/);
    expect(problem(VALID.replace('bin: my-agent', 'bin: 12'))).toMatch(
      /field 'bin': must be a string, not a number\. Fix: quote it/,
    );
    expect(problem(`${VALID}package: {name: x, version: ^1.2.0}\n`)).toMatch(
      /field 'package.version'.*exact version/,
    );
    expect(problem(`${VALID}scripted: {env_set: {K: v}}\n`)).toMatch(/field 'endpoint': is required when/);
  });

  it('offline: absent follows endpoint; true needs endpoint; false takes no scripted block; a reason needs false', () => {
    expect(runsOffline(loadProfile(profileFile(VALID)))).toBe(false);
    expect(runsOffline(loadProfile(profileFile(`${VALID}endpoint: chat\n`)))).toBe(true);
    expect(runsOffline(loadProfile(profileFile(`${VALID}endpoint: chat\noffline: false\n`)))).toBe(false);
    expect(problem(`${VALID}offline: true\n`)).toMatch(
      /^field 'offline': is true but no endpoint.*Fix: set endpoint/,
    );
    expect(problem(`${VALID}endpoint: chat\noffline: false\nscripted: {env_set: {K: v}}\n`)).toMatch(
      /^field 'scripted': is never applied/,
    );
    expect(problem(`${VALID}offline_reason: needs the vendor\n`)).toMatch(
      /^field 'offline_reason': .*Fix: set offline: false/,
    );
    expect(problem(`${VALID}offline: 'no'\n`)).toMatch(/^field 'offline'/);
  });

  it('vendor hosts are host names; prompt_off is literal arguments', () => {
    expect(loadProfile(profileFile(VALID)).vendor_hosts).toEqual([]);
    expect(
      loadProfile(profileFile(`${VALID}vendor_hosts: [api.example.com, '*.example.org']\n`)).vendor_hosts,
    ).toEqual(['api.example.com', '*.example.org']);
    expect(problem(`${VALID}vendor_hosts: ['https://api.example.com/v1']\n`)).toMatch(
      /^field 'vendor_hosts.*must be a host name like 'api.openai.com'/,
    );
    expect(problem(`${VALID}vendor_hosts: ['api.example.com:443']\n`)).toMatch(/^field 'vendor_hosts/);
    expect(problem(`${VALID}prompt_off: ['{repo_dir}']\n`)).toMatch(
      /^field 'prompt_off\[0\]': '\{repo_dir\}' holds a placeholder.*Fix: write the arguments themselves/,
    );
    expect(problem(`${VALID}prompt_off: []\n`)).toMatch(/^field 'prompt_off'/);
  });

  it('reports every problem of a file at once', () => {
    const file = profileFile(`${VALID.replace('{task_prompt}', '{prompt}')}env_set: {PATH: /x}\n`);
    const result = loadProfileResult(file);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.issues.map((i) => i.field)).toEqual(['command[1]', 'env_set.PATH']);
  });

  it('an unreadable or malformed file', () => {
    expect(() => loadProfile(path.join(dir, 'missing.yaml'))).toThrow(/the profile file does not exist/);
    expect(problem('name: [unclosed\n')).toMatch(/^is not valid YAML at line/);
    expect(problem('- a list\n')).toMatch(/^must be a YAML mapping/);
  });
});
