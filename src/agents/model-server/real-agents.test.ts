// Runs the real codex, claude-code and gemini-cli CLIs against the scripted model server, offline.
// They come from scripts/install-test-agents.sh; absent, the tests skip with the reason printed.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startModelServer } from './index.js';
import { inline } from './test-client.js';
import type { ModelRecord } from './types.js';

const CACHE = process.env.AGENTGUARD_AGENT_CACHE ?? path.join(homedir(), '.cache', 'agentguard', 'agents');
const HELLO = path.join(import.meta.dirname, 'fixtures', 'hello.yaml');
const SKILL_READ = path.join(import.meta.dirname, 'fixtures', 'skill-read.yaml');
const PROMPT = 'Create hello.txt containing hi, then show it.';
const TIMEOUT_MS = 120_000;

function agentBin(name: string, bin: string): { path: string; skip: string | false } {
  const file = path.join(CACHE, name, 'node_modules', '.bin', bin);
  if (existsSync(file)) return { path: file, skip: false };
  const reason = `${name} is not installed at ${file} (fix: scripts/install-test-agents.sh ${name})`;
  console.warn(`real ${name} test skipped: ${reason}`);
  return { path: file, skip: reason };
}

const codex = agentBin('codex', 'codex');
const claude = agentBin('claude-code', 'claude');
const gemini = agentBin('gemini-cli', 'gemini');

const temps: string[] = [];
afterEach(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentguard-real-agent-'));
  temps.push(dir);
  return dir;
}

type Run = { code: number | null; stdout: string; stderr: string; ms: number };

/** Run an agent with stdin closed, a clean environment and a hard timeout. */
function runAgent(argv: string[], cwd: string, env: Record<string, string>): Promise<Run> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const [program, ...args] = argv as [string, ...string[]];
    const child = spawn(program, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

function baseEnv(home: string): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8', NO_COLOR: '1' };
}

/** The facts both agents must show: the file exists, outputs flowed back, three scripted turns. */
function expectHelloRun(run: Run, workspace: string, records: ModelRecord[], recordFile: string): void {
  const why = `exit ${run.code}\nstdout:\n${run.stdout.slice(-2000)}\nstderr:\n${run.stderr.slice(-2000)}`;
  expect(run.code, why).toBe(0);
  expect(readFileSync(path.join(workspace, 'hello.txt'), 'utf8')).toBe('hi\n');
  const turns = records.filter((r) => r.kind === 'turn');
  expect(turns.map((r) => r.turn)).toEqual([1, 2, 3]);
  expect(records.filter((r) => r.kind !== 'turn' && r.kind !== 'probe')).toEqual([]);
  expect(turns[0]?.request?.tool_outputs).toEqual([]);
  // The second request carries the output of the first command, the third the `cat`.
  expect(turns[1]?.request?.tool_outputs).toHaveLength(1);
  expect(turns[2]?.request?.tool_outputs.join('')).toContain('hi');
  expect(turns[2]?.request?.step).toBe(2);
  expect(run.stdout).toContain('done');
  expect(readFileSync(recordFile, 'utf8').trim().split('\n')).toHaveLength(records.length);
}

type AgentCase = {
  name: string;
  bin: { path: string; skip: string | false };
  /** Write any config the agent needs and return its argv and environment. */
  setup(url: string, root: string): { argv: string[]; env: Record<string, string> };
};

const AGENTS: AgentCase[] = [
  {
    name: 'codex',
    bin: codex,
    setup(url, root) {
      const codexHome = path.join(root, 'codex-home');
      mkdirSync(codexHome, { recursive: true });
      writeFileSync(
        path.join(codexHome, 'config.toml'),
        [
          'model_provider = "scripted"',
          'model = "scripted-model"',
          '[model_providers.scripted]',
          'name = "scripted"',
          `base_url = "${url}/v1"`,
          'wire_api = "responses"',
          'env_key = "AGENTGUARD_MODEL_KEY"',
          '',
        ].join('\n'),
      );
      return {
        argv: [codex.path, 'exec', '--skip-git-repo-check', '-s', 'danger-full-access', PROMPT],
        env: { ...baseEnv(root), CODEX_HOME: codexHome, AGENTGUARD_MODEL_KEY: 'scripted' },
      };
    },
  },
  {
    name: 'claude-code',
    bin: claude,
    setup(url, root) {
      return {
        argv: [claude.path, '-p', PROMPT, '--dangerously-skip-permissions'],
        env: {
          ...baseEnv(root),
          ANTHROPIC_BASE_URL: url,
          ANTHROPIC_API_KEY: 'scripted',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          IS_SANDBOX: '1',
        },
      };
    },
  },
  {
    name: 'gemini-cli',
    bin: gemini,
    setup(url, root) {
      mkdirSync(path.join(root, '.gemini'), { recursive: true });
      writeFileSync(
        path.join(root, '.gemini', 'settings.json'),
        JSON.stringify({
          security: { auth: { selectedType: 'gemini-api-key' } },
          privacy: { usageStatisticsEnabled: false },
          general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
        }),
      );
      return {
        argv: [gemini.path, '--approval-mode', 'yolo', '-p', PROMPT],
        env: {
          ...baseEnv(root),
          TERM: 'dumb',
          GOOGLE_GEMINI_BASE_URL: url,
          GEMINI_API_KEY: 'scripted',
          // A fixed model skips the 'auto' router's classifier requests.
          GEMINI_MODEL: 'gemini-2.5-flash',
          GEMINI_CLI_TRUST_WORKSPACE: 'true',
          GEMINI_CLI_NO_RELAUNCH: 'true',
          // It writes error reports to the temp folder; keep them in the test's own.
          TMPDIR: root,
        },
      };
    },
  },
];

/** Start a server on `script`, run the agent in a fresh workspace, stop the server. */
async function runAgainst(
  agent: AgentCase,
  script: Parameters<typeof startModelServer>[0]['script'],
  before?: (url: string) => Promise<void>,
  files: Record<string, string> = {},
) {
  const root = tempDir();
  const workspace = path.join(root, 'ws');
  mkdirSync(workspace);
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(workspace, name), text);
  const recordFile = path.join(root, 'evidence', 'model.jsonl');
  const { url, server } = await startModelServer({ script, recordFile });
  try {
    await before?.(url);
    const { argv, env } = agent.setup(url, root);
    const run = await runAgent(argv, workspace, env);
    const records = await server.stop();
    return { run, records, workspace, recordFile };
  } finally {
    await server.stop();
  }
}

describe('real agents against the scripted model server', () => {
  it.skipIf(codex.skip)(
    'codex 0.169.0 runs exec_command twice and answers done (Responses API)',
    async () => {
      const agent = AGENTS[0] as AgentCase;
      const { run, records, workspace, recordFile } = await runAgainst(agent, HELLO);
      console.log(`real codex run: ${run.ms} ms wall, ${records.length} model requests`);
      expectHelloRun(run, workspace, records, recordFile);
      expect(records.every((r) => r.api === 'responses' && r.path === '/v1/responses')).toBe(true);
      expect(records[0]?.request?.tools_offered).toContain('exec_command');
      expect(records[0]?.response.tool_calls).toEqual([
        { name: 'exec_command', arguments: '{"cmd":"echo hi > hello.txt"}' },
      ]);
    },
    TIMEOUT_MS + 10_000,
  );

  it.skipIf(claude.skip)(
    'claude-code 2.1.328 runs Bash twice and answers done (Anthropic Messages API)',
    async () => {
      const agent = AGENTS[1] as AgentCase;
      const { run, records, workspace, recordFile } = await runAgainst(agent, HELLO);
      console.log(`real claude-code run: ${run.ms} ms wall, ${records.length} model requests`);
      expectHelloRun(run, workspace, records, recordFile);
      expect(records.every((r) => r.api === 'anthropic' && r.path === '/v1/messages?beta=true')).toBe(true);
      expect(records[0]?.request?.tools_offered).toEqual(expect.arrayContaining(['Bash', 'Read', 'Skill']));
      expect(records[1]?.response.tool_calls).toEqual([
        { name: 'Bash', arguments: '{"command":"cat hello.txt"}' },
      ]);
    },
    TIMEOUT_MS + 10_000,
  );

  it.skipIf(gemini.skip)(
    'gemini-cli 0.61.0 runs run_shell_command twice and answers done (Gemini API)',
    async () => {
      const agent = AGENTS[2] as AgentCase;
      const { run, records, workspace, recordFile } = await runAgainst(agent, HELLO);
      console.log(`real gemini-cli run: ${run.ms} ms wall, ${records.length} model requests`);
      expectHelloRun(run, workspace, records, recordFile);
      expect(
        records.every(
          (r) =>
            r.api === 'gemini' && r.path === '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
        ),
      ).toBe(true);
      expect(records[0]?.request?.tools_offered).toEqual(
        expect.arrayContaining(['run_shell_command', 'read_file', 'activate_skill']),
      );
      expect(records[1]?.response.tool_calls).toEqual([
        { name: 'run_shell_command', arguments: '{"command":"cat hello.txt"}' },
      ]);
    },
    TIMEOUT_MS + 10_000,
  );

  it.skipIf(gemini.skip)(
    'gemini-cli runs a named read_file call and follows a when branch chosen by its output',
    async () => {
      const script = inline([
        { calls: [{ tool: 'read_file', args: { file_path: 'answer.txt' } }] },
        {
          when: [{ contains: 'yes', shell: 'touch took-yes.txt' }, { shell: 'touch took-no.txt' }],
        },
        { final: 'done' },
      ]);
      const agent = AGENTS[2] as AgentCase;
      const { run, records, workspace } = await runAgainst(agent, script, undefined, {
        'answer.txt': 'yes\n',
      });
      expect(run.code, run.stderr.slice(-1000)).toBe(0);
      expect(records[1]?.request?.tool_outputs.join('')).toContain('yes');
      expect(existsSync(path.join(workspace, 'took-yes.txt'))).toBe(true);
      expect(existsSync(path.join(workspace, 'took-no.txt'))).toBe(false);
      expect(records.map((r) => [r.kind, r.turn, r.branch])).toEqual([
        ['turn', 1, null],
        ['turn', 2, 1],
        ['turn', 3, null],
      ]);
    },
    TIMEOUT_MS + 10_000,
  );

  it.skipIf(codex.skip)(
    'codex follows a when branch chosen by its real tool output',
    async () => {
      const script = inline([
        { shell: 'cat answer.txt' },
        {
          when: [{ contains: 'yes', shell: 'touch took-yes.txt' }, { shell: 'touch took-no.txt' }],
        },
        { final: 'done' },
      ]);
      const agent = AGENTS[0] as AgentCase;
      const { run, records, workspace } = await runAgainst(agent, script, undefined, {
        'answer.txt': 'yes\n',
      });
      expect(run.code, run.stderr.slice(-1000)).toBe(0);
      expect(existsSync(path.join(workspace, 'took-yes.txt'))).toBe(true);
      expect(existsSync(path.join(workspace, 'took-no.txt'))).toBe(false);
      expect(records.map((r) => [r.kind, r.turn, r.branch])).toEqual([
        ['turn', 1, null],
        ['turn', 2, 1],
        ['turn', 3, null],
      ]);
    },
    TIMEOUT_MS + 10_000,
  );

  it.skipIf(claude.skip)(
    'claude-code runs named tools with raw arguments (Read, Skill) next to Bash',
    async () => {
      const agent = AGENTS[1] as AgentCase;
      const skill = '---\nname: citation-check\ndescription: check citations\n---\nRun check.sh\n';
      const { run, records } = await runAgainst(agent, SKILL_READ, undefined, { 'SKILL.md': skill });
      expect(run.code, run.stderr.slice(-1000)).toBe(0);
      expect(records.map((r) => r.kind)).toEqual(['turn', 'turn', 'turn']);
      expect(records[0]?.response.tool_calls).toEqual([
        { name: 'Read', arguments: '{"file_path":"SKILL.md"}' },
      ]);
      expect(records[1]?.request?.tool_outputs.join('')).toContain('name: citation-check');
      expect(records[1]?.response.tool_calls.map((c) => c.name)).toEqual(['Bash', 'Skill']);
      expect(records[2]?.request?.tool_outputs).toHaveLength(2);
      expect(records[2]?.request?.tool_outputs[0]).toContain('SKILL.md');
    },
    TIMEOUT_MS + 10_000,
  );

  it.for(AGENTS)(
    '$name stops at once, failing, when the exhausted script refuses it',
    { timeout: TIMEOUT_MS + 10_000 },
    async (agent, ctx) => {
      if (agent.bin.skip) return ctx.skip(agent.bin.skip);
      // Use up a one-turn script from a plain client so the agent's first request is refused.
      const exhaust = async (url: string) => {
        for (const input of ['first', 'second']) {
          const body = { model: 'm', input, tools: [{ type: 'function', name: 'exec_command' }] };
          await fetch(`${url}/v1/responses`, { method: 'POST', body: JSON.stringify(body) });
        }
      };
      const { run, records } = await runAgainst(agent, inline([{ shell: 'ls' }]), exhaust);
      expect(run.code, run.stderr.slice(-1000)).not.toBe(0);
      expect(run.ms).toBeLessThan(60_000);
      expect(`${run.stdout}${run.stderr}`).toContain('agentguard model-server');
      const agentRecords = records.slice(2);
      expect(agentRecords.length).toBeGreaterThan(0);
      expect(agentRecords.every((r) => r.status === 400 && (r.kind === 'refused' || r.kind === 'loop'))).toBe(
        true,
      );
    },
  );
});
