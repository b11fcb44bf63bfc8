import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { reportPath } from '../../src/reports/reporters.js';
import { execCli, tempDir } from './exec-cli.js';

/**
 * Issue 23's bad input from agents themselves: one that ignores the configured endpoint and calls its
 * vendor (the proxy refuses it and the report says so, from the profile's vendor_hosts), and one that
 * waits for a permission answer until the run's time limit (the message names the profile's prompt_off).
 * Real runs of the built CLI: bwrap, the egress proxy, strace.
 */
const isRoot = process.getuid?.() === 0;
const cache = process.env.AGENTGUARD_AGENT_CACHE ?? path.join(os.homedir(), '.cache/agentguard/agents');
const codexReady = isRoot && existsSync(path.join(cache, 'codex/node_modules/.bin/codex'));
if (!isRoot) console.warn('agent misbehaviour e2e skipped: needs root (bwrap)');
else if (!codexReady)
  console.warn('real codex vendor e2e skipped: needs scripts/install-test-agents.sh codex');

const work = tempDir();
afterAll(() => rmSync(work, { recursive: true, force: true }));
const TIMEOUT = 180_000;

type Report = {
  result: string;
  run_dir: string;
  agent: { name: string; outcome: { status: string; by?: string } };
  checks: { id: string; passed: boolean; message: string }[];
  alerts: { rule: string; message: string; host?: string; process: { exe: string } }[];
};

let n = 0;
/** A task folder holding the config and whatever files it names (a profile, a trajectory). */
function task(config: string, files: Record<string, string> = {}): string {
  const dir = path.join(work, `task${n++}`);
  mkdirSync(path.join(dir, 'repo'), { recursive: true });
  writeFileSync(path.join(dir, 'repo/README.md'), 'create done.txt\n');
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  const file = path.join(dir, 'config.yaml');
  writeFileSync(
    file,
    `name: misbehaving-agent
task: {prompt: create done.txt}
repo: repo
test_command: [sh, -c, 'test -f done.txt']
${config}`,
  );
  return file;
}

async function run(config: string, tracer = 'strace'): Promise<{ report: Report; markdown: string }> {
  const r = await execCli(['run', config, '--tracer', tracer, '--json'], {
    cwd: work,
    env: { HOME: os.homedir() },
  });
  expect(r.stdout, r.stderr).not.toBe('');
  const report = JSON.parse(r.stdout) as Report;
  return { report, markdown: readFileSync(reportPath(report.run_dir, 'markdown'), 'utf8') };
}

/** The agent-exit check's message, or a failure naming what the report has instead. */
function agentExit(report: Report): string {
  const check = report.checks.find((c) => c.id === 'agent-exit');
  expect(check, JSON.stringify(report.checks)).toBeDefined();
  return check?.message ?? '';
}

describe.skipIf(!isRoot)('an agent that ignores the configured endpoint and calls its vendor', () => {
  it(
    'a profile-driven agent asking the proxy for its vendor host: refused, and the report says it tried its vendor',
    async () => {
      // Stands for an agent that ignores its endpoint setting: its "model call" goes to the vendor.
      const profile = `schema_version: 1
name: vendor-caller
bin: /bin/sh
command: [-c, 'curl -sS -m 20 https://api.vendor-caller.example/v1/chat >/dev/null 2>&1; touch done.txt', '{task_prompt}']
vendor_hosts: [api.vendor-caller.example]
`;
      const { report, markdown } = await run(
        task('agent_profile: vendor-caller.yaml\n', { 'vendor-caller.yaml': profile }),
      );
      const vendor = report.alerts.filter((a) => a.rule === 'net-vendor-host');
      expect(vendor, JSON.stringify(report.alerts)).toHaveLength(1);
      expect(vendor[0]?.message).toContain(
        'the agent tried to reach its vendor api.vendor-caller.example instead of the configured endpoint',
      );
      expect(vendor[0]?.message).toContain('denied');
      expect(vendor[0]?.process.exe).toContain('curl');
      // One event, one alert: the generic proxy rule leaves the vendor host to the specific one.
      expect(report.alerts.map((a) => a.rule)).not.toContain('net-proxy-not-allowed');
      expect(report.result).toBe('FAIL');
      expect(markdown).toContain('tried to reach its vendor api.vendor-caller.example');
      // The hosts are part of the agent's identity in the evidence, so `analyze` judges them again.
      const agent = JSON.parse(readFileSync(path.join(report.run_dir, 'evidence/agent.json'), 'utf8'));
      expect(agent.vendor_hosts).toEqual(['api.vendor-caller.example']);
    },
    TIMEOUT,
  );

  it.skipIf(!codexReady)(
    'real codex driven offline by a scripted model whose shell step calls api.openai.com: the vendor message in report.json and report.md',
    async () => {
      const trajectory = `turns:
  - text: Checking the OpenAI API directly instead of the configured endpoint.
    shell: curl -sS -m 20 https://api.openai.com/v1/models || echo refused
  - text: Creating the file.
    shell: touch done.txt
  - final: Done.
`;
      const { report, markdown } = await run(
        task('agent_profile: codex\nmodel_script: trajectory.yaml\ntimeout_seconds: 180\n', {
          'trajectory.yaml': trajectory,
        }),
      );
      expect(report.agent.outcome.status).toBe('completed');
      const vendor = report.alerts.filter((a) => a.rule === 'net-vendor-host');
      expect(vendor, JSON.stringify(report.alerts)).toHaveLength(1);
      expect(vendor[0]?.message).toContain(
        'the agent tried to reach its vendor api.openai.com instead of the configured endpoint',
      );
      expect(vendor[0]?.process.exe).toContain('curl');
      expect(markdown).toContain('tried to reach its vendor api.openai.com');
      // The scripted model's own traffic is no vendor contact.
      expect(report.alerts.map((a) => a.rule)).not.toContain('net-proxy-not-allowed');
    },
    TIMEOUT,
  );
});

describe.skipIf(!isRoot)('an agent that prompts for permission and waits', () => {
  // Stands for an agent run without the flag that turns its prompts off: it asks, and nobody answers.
  // No tracer: the run's time limit covers set-up too, which tracing would lengthen.
  const profile = (command: string) => `schema_version: 1
name: asks-first
bin: /bin/sh
command: ${command}
prompt_off: [--yes-to-all]
`;

  it(
    'is stopped at run_timeout_seconds, and agent-exit names the prompt-off flag its command lacks',
    async () => {
      const { report, markdown } = await run(
        task('agent_profile: asks-first.yaml\nrun_timeout_seconds: 6\n', {
          'asks-first.yaml': profile(
            `[-c, 'echo "Allow edits to done.txt? [y/N]"; exec sleep 120', '{task_prompt}']`,
          ),
        }),
        'off',
      );
      expect(report.agent.outcome).toMatchObject({ status: 'stopped', by: 'run-timeout' });
      expect(report.result).toBe('ERROR');
      const message = agentExit(report);
      expect(message).toContain("its command line lacks '--yes-to-all'");
      expect(message).toContain('waiting for an approval');
      expect(markdown).toContain("lacks '--yes-to-all'");
    },
    TIMEOUT,
  );

  it(
    'with the flag on its command line, the same timeout names no flag',
    async () => {
      const { report } = await run(
        task('agent_profile: asks-first.yaml\nrun_timeout_seconds: 6\n', {
          'asks-first.yaml': profile(`[-c, 'exec sleep 120', '--yes-to-all']`),
        }),
        'off',
      );
      expect(report.agent.outcome).toMatchObject({ status: 'stopped', by: 'run-timeout' });
      expect(agentExit(report)).not.toContain('lacks');
    },
    TIMEOUT,
  );
});
