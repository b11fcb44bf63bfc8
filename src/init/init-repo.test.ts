import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Ajv2020Module from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { loadCiConfig } from '../ci/ci-config.js';
import { loadConfig } from '../config/load.js';
import { parseYaml } from '../config/yaml.js';
import { jsonSchema } from '../schemas/json-schemas.js';
import { CI_CONFIG_NAME, initRepo, TASK_CONFIG_NAME, WORKFLOW_PATH } from './init-repo.js';
import type { AgentChoice } from './render-config.js';

const NO_AGENT: AgentChoice = { kind: 'none', choices: ['claude-code', 'codex'] };
const CODEX: AgentChoice = { kind: 'profile', name: 'codex', api_host: 'api.openai.com', others: [] };
const ajv = new Ajv2020Module.default({ strict: true, strictTypes: false, allErrors: true });

function repo(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'ag-init-'));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

function init(dir: string, over: Partial<Parameters<typeof initRepo>[1]> = {}) {
  // The system's programs only: a developer's pyenv would change the interpreter init names.
  const env = { PATH: '/usr/bin:/bin' };
  return initRepo(dir, {
    force: false,
    ci: false,
    agent: NO_AGENT,
    action: { kind: 'given', ref: 'o/agentguard@v1' },
    env,
    ...over,
  });
}

function loaded(dir: string) {
  const result = loadConfig(path.join(dir, TASK_CONFIG_NAME));
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result.value;
}

function yamlValue(file: string): unknown {
  const parsed = parseYaml(readFileSync(file, 'utf8'));
  if (!parsed.ok) throw new Error(parsed.problem.message);
  return parsed.value;
}

describe('agentguard init', () => {
  it('a Node project: npm test, its folders, its lockfile forbidden, loads with the real loader', () => {
    const dir = repo({
      'package.json': JSON.stringify({ name: 'x', scripts: { test: 'node --test test/' } }),
      'package-lock.json': '{}',
      'src/index.js': '',
      'test/index.test.js': '',
    });
    init(dir);
    const text = readFileSync(path.join(dir, TASK_CONFIG_NAME), 'utf8');
    expect(text.split('\n')[0]).toMatch(/^# yaml-language-server: \$schema=\S+config\.schema\.json$/);
    const cfg = loaded(dir);
    expect(cfg.repo).toBe(dir);
    expect(cfg.test_command).toEqual(['npm', 'test']);
    expect(cfg.allowed_paths).toContain('src/**');
    expect(cfg.test_paths).toContain('test/**');
    expect(cfg.forbidden_paths).toEqual(expect.arrayContaining(['package-lock.json', '.github/**']));
    expect(cfg.tracer).toBe('auto');
    expect(cfg.agent_profile).toBeUndefined();
    expect(text).toContain('# agent_profile: claude-code');
    // The file an editor checks against the schema passes it too.
    expect(ajv.validate(jsonSchema('config'), yamlValue(path.join(dir, TASK_CONFIG_NAME)))).toBe(true);
  });

  it("npm init's failing placeholder script is no test command; a test folder is", () => {
    const dir = repo({
      'package.json': JSON.stringify({ scripts: { test: 'echo "Error: no test specified" && exit 1' } }),
      'test/a.test.js': '',
    });
    init(dir);
    expect(loaded(dir).test_command).toEqual(['node', '--test', 'test/']);
  });

  it('Python: pytest when the project configures it, unittest discovery otherwise', () => {
    const pytest = repo({ 'pyproject.toml': '[tool.pytest.ini_options]\n', 'tests/test_a.py': '' });
    init(pytest);
    expect(loaded(pytest).test_command).toEqual(['python3', '-m', 'pytest']);
    const plain = repo({
      'pyproject.toml': '[project]\nname = "p"\n',
      'tests/__init__.py': '',
      'tests/test_a.py': '',
      'p/__init__.py': '',
    });
    init(plain);
    const cfg = loaded(plain);
    // tests/ is a package: the top is the top-level folder, so the tests import it as `tests`.
    expect(cfg.test_command).toEqual(['python3', '-m', 'unittest', 'discover', '-s', 'tests', '-t', '.']);
    expect(cfg.allowed_paths).toContain('**/*.py');
    expect(cfg.test_paths).toEqual(expect.arrayContaining(['tests/**', '**/test_*.py']));
  });

  it('Go, Rust, and a Makefile that wins over several ecosystems', () => {
    const go = repo({ 'go.mod': 'module x\n', 'go.sum': '', 'main.go': '' });
    init(go);
    expect(loaded(go).test_command).toEqual(['go', 'test', './...']);
    expect(loaded(go).forbidden_paths).toContain('go.sum');
    expect(loaded(go).test_paths).toContain('**/*_test.go');
    const rust = repo({ 'Cargo.toml': '[package]\n', 'src/lib.rs': '' });
    init(rust);
    expect(loaded(rust).test_command).toEqual(['cargo', 'test']);
    const mixed = repo({
      'go.mod': 'module x\n',
      'pyproject.toml': '',
      Makefile: 'test:\n\tgo test ./...\n',
    });
    init(mixed);
    expect(loaded(mixed).test_command).toEqual(['make', 'test']);
    expect(readFileSync(path.join(mixed, TASK_CONFIG_NAME), 'utf8')).toContain(
      '# Also found (go.mod): test_command: ["go","test","./..."]',
    );
  });

  it('a repository with nothing recognisable still gets a config that loads', () => {
    const dir = repo({ 'notes.txt': 'hi' });
    init(dir);
    const cfg = loaded(dir);
    expect(cfg.test_command[0]).toBe('sh');
    expect(cfg.allowed_paths).toEqual(['**']);
  });

  it('names an installed agent with its API host on the allow list', () => {
    const dir = repo({ 'go.mod': 'module x\n' });
    init(dir, { agent: CODEX });
    const cfg = loaded(dir);
    expect(cfg.agent_profile).toBe('codex');
    expect(cfg.network).toEqual({ mode: 'allowlist', allow: ['api.openai.com'], hosts: {} });
  });

  it('never overwrites without --force, and writes nothing when one file is taken', () => {
    const dir = repo({ 'go.mod': 'module x\n', [TASK_CONFIG_NAME]: 'mine\n' });
    expect(() => init(dir)).toThrow(/already exists.*--force/);
    expect(readFileSync(path.join(dir, TASK_CONFIG_NAME), 'utf8')).toBe('mine\n');
    init(dir, { force: true });
    expect(loaded(dir).test_command).toEqual(['go', 'test', './...']);

    const ci = repo({ 'go.mod': 'module x\n', [WORKFLOW_PATH]: 'mine\n' });
    expect(() => init(ci, { ci: true })).toThrow(/agentguard\.yml already exists/);
    expect(() => readFileSync(path.join(ci, CI_CONFIG_NAME))).toThrow(/ENOENT/);
  });

  it('--ci: a CI policy `agentguard ci` loads and a workflow that uses the action', () => {
    const dir = repo({ 'package.json': JSON.stringify({ scripts: { test: 'vitest' } }), 'yarn.lock': '' });
    const result = init(dir, { ci: true });
    expect(result.written.map((f) => path.relative(dir, f))).toEqual([CI_CONFIG_NAME, WORKFLOW_PATH]);
    const { cfg } = loadCiConfig(path.join(dir, CI_CONFIG_NAME), dir);
    expect(cfg.test_command).toEqual(['yarn', 'test']);
    expect(cfg.forbidden_paths).toContain('yarn.lock');
    const text = readFileSync(path.join(dir, CI_CONFIG_NAME), 'utf8');
    expect(text.split('\n')[0]).toMatch(/\$schema=\S+ci\.schema\.json$/);
    expect(ajv.validate(jsonSchema('ci'), yamlValue(path.join(dir, CI_CONFIG_NAME)))).toBe(true);
    const workflow = yamlValue(path.join(dir, WORKFLOW_PATH)) as {
      on: string;
      jobs: { judge: { steps: { uses?: string; with?: Record<string, string> }[] } };
    };
    expect(workflow.on).toBe('pull_request');
    const step = workflow.jobs.judge.steps.find((s) => s.uses === 'o/agentguard@v1');
    expect(step?.with).toEqual({
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, not a JS template
      base: '${{ github.event.pull_request.base.sha }}',
      config: CI_CONFIG_NAME,
    });
  });
});
