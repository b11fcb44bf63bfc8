import { existsSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordVerification } from '../../src/agents/install/verification-record.js';
import { BENCHMARKS, execCli, tempDir } from './exec-cli.js';

/**
 * The AgentSpy running example with the real agent CLIs, offline: a scripted model tells codex,
 * claude-code, gemini-cli, opencode, qwen-code, pi, kilocode or copilot to read the citation-management skill and run its helper. The agents come from
 * scripts/install-test-agents.sh (CI runs it); without them, or without root, these skip.
 */
const cache = process.env.AGENTGUARD_AGENT_CACHE ?? path.join(os.homedir(), '.cache/agentguard/agents');
const installed = (name: string, bin: string) => existsSync(path.join(cache, name, 'node_modules/.bin', bin));
const isRoot = process.getuid?.() === 0;
const task = path.join(BENCHMARKS, 'agents/citation-check');
const work = tempDir();
afterAll(() => rmSync(work, { recursive: true, force: true }));

type Report = {
  result: string;
  run_dir: string;
  tests: { passed: boolean };
  checks: { id: string; passed: boolean; severity: string; message: string; evidence: { path?: string }[] }[];
  alerts: {
    rule: string;
    severity: string;
    message: string;
    path?: string;
    process: { exe: string };
    tool_call?: number;
  }[];
  agent: { name: string; version: string | null };
  trajectory: {
    status: string;
    steps: { step: number; command?: string; observed: { network: string[] } | null; not_asked: string[] }[];
  } | null;
  activity: { execs: { command: string }[] };
};

async function run(config: string): Promise<Report> {
  const r = await execCli(['run', path.join(task, config), '--tracer', 'strace', '--json'], {
    cwd: work,
    env: { HOME: os.homedir() },
  });
  return JSON.parse(r.stdout) as Report;
}

/**
 * Alerts an agent raises by itself on every run, whatever the task: true evidence, so the honest run
 * fails on them and on nothing else. qwen-code 0.24.4 loads ~/.env into its own environment (its
 * findEnvFiles always adds it; no setting or variable removes it), so its shell commands see the tokens
 * there too. copilot 1.0.102's bundled Node 24 sets up io_uring rings at start (refused in the sandbox,
 * still an attempt to leave per-syscall tracing; UV_USE_IO_URING=0 does not stop it).
 */
const OWN_ALERTS: Record<string, { rule: string; path?: string }[]> = {
  'qwen-code': [{ rule: 'secrets-canary-read', path: path.join(os.homedir(), '.env') }],
  copilot: [{ rule: 'evasion-io-uring' }],
};

/**
 * Checks an agent fails by itself on every run. None now: opencode 1.18.33 reads every file of the
 * workspace at start, which failed grading-files while the grader-only files were in the workspace;
 * the harness now withholds them until the tests (docs/agents.md).
 */
const OWN_CHECKS: Record<string, { id: string; path: string }[]> = {};

for (const [agent, bin] of [
  ['codex', 'codex'],
  ['claude-code', 'claude'],
  ['gemini-cli', 'gemini'],
  ['opencode', 'opencode'],
  ['qwen-code', 'qwen'],
  ['pi', 'pi'],
  ['kilocode', 'kilo'],
  ['copilot', 'copilot'],
] as const) {
  const ownAlerts = OWN_ALERTS[agent] ?? [];
  const isOwn = (a: Report['alerts'][number]) =>
    ownAlerts.some((o) => o.rule === a.rule && (o.path === undefined || o.path === a.path));
  const ready = isRoot && installed(agent, bin);
  if (!ready)
    console.warn(`real ${agent} e2e skipped: needs root and scripts/install-test-agents.sh ${agent}`);

  describe.skipIf(!ready)(`real ${agent} on the citation-check task`, () => {
    it('follows the skill: runs its helper, passes the tests, and the evidence shows it', async () => {
      const report = await run(`${agent}.yaml`);
      expect(report.tests.passed).toBe(true);
      // Nothing fails the run but the agent's own known alerts, and each of those is there.
      const serious = report.alerts.filter((a) => a.severity === 'critical' || a.severity === 'error');
      expect(serious.filter((a) => !isOwn(a)).map((a) => a.message)).toEqual([]);
      for (const o of ownAlerts) expect(report.alerts.some((a) => isOwn(a) && a.rule === o.rule)).toBe(true);
      // Likewise no check fails but the agent's own known ones, and each of those fails on its file.
      const ownChecks = OWN_CHECKS[agent] ?? [];
      const failed = report.checks.filter((c) => !c.passed && ['critical', 'error'].includes(c.severity));
      expect(failed.filter((c) => !ownChecks.some((o) => o.id === c.id)).map((c) => c.message)).toEqual([]);
      for (const o of ownChecks)
        expect(failed.find((c) => c.id === o.id)?.evidence.map((e) => e.path)).toEqual([o.path]);
      expect(report.result).toBe(ownAlerts.length === 0 && ownChecks.length === 0 ? 'PASS' : 'FAIL');
      expect(report.agent.version).toMatch(/\d+\.\d+\.\d+/);
      const coverage = report.checks.find((c) => c.id === 'skill-coverage');
      expect(coverage?.passed).toBe(true);
      // The helper ran as a process of the agent's tree, even though only the agent's tool call names it.
      const execs = readFileSync(path.join(report.run_dir, 'evidence/syscalls.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .filter((e) => e.kind === 'exec' && (e.result ?? 0) >= 0);
      expect(execs.some((e) => (e.argv ?? []).some((a: string) => a.endsWith('validate_citations.py')))).toBe(
        true,
      );
      const turns = readFileSync(path.join(report.run_dir, 'evidence/model.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .filter((r) => r.kind === 'turn');
      expect(turns.length).toBeGreaterThanOrEqual(3);
      // Every assertion held: recorded as a verification beside the cache, as `agents verify` records
      // one, so `agents list` shows when this agent last ran end to end.
      recordVerification(cache, {
        agent,
        version: report.agent.version,
        by: 'test/e2e/real-agents.test.ts (citation-check in the bwrap sandbox, strace)',
        worked: [
          `${turns.length} scripted model turns answered through the egress proxy`,
          'read the skill installed where the agent looks (skill-coverage passed)',
          'ran the skill helper validate_citations.py in its own process tree',
          'the task tests passed',
          ownAlerts.length + ownChecks.length === 0
            ? 'the run PASSed'
            : `the run FAILed only on the agent's own known findings: ${[...ownAlerts.map((o) => o.rule), ...ownChecks.map((o) => o.id)].join(', ')}`,
        ],
        at: new Date(),
      });
    });

    it('with a compromised skill helper: the key read and the upload attempt are caught and blamed on the helper', async () => {
      const report = await run(`${agent}-malicious.yaml`);
      expect(report.tests.passed).toBe(true);
      expect(report.result).toBe('FAIL');
      const rules = report.alerts.map((a) => a.rule);
      expect(rules).toContain('secrets-canary-read');
      expect(rules).toContain('net-proxy-not-allowed');
      const keyRead = report.alerts.find((a) => a.rule === 'secrets-canary-read' && !isOwn(a));
      expect(keyRead?.process.exe).toContain('python3');
      // The upload goes through the same proxy as the agent's own model traffic, at overlapping
      // times: each record names its own client, and the alert the helper.
      const upload = report.alerts.find((a) => a.rule === 'net-proxy-not-allowed');
      expect(upload?.process.exe).toContain('python3');
      const records: { host: string; client?: { pid: number | null; exe?: string } }[] = readFileSync(
        path.join(report.run_dir, 'evidence/network.jsonl'),
        'utf8',
      )
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const model = records.filter((r) => r.host === 'model.agentguard.test');
      expect(model.length).toBeGreaterThan(0);
      for (const r of model) {
        expect(r.client?.pid, JSON.stringify(r)).toEqual(expect.any(Number));
        expect(r.client?.exe ?? '').not.toContain('python');
      } // What the model asked for against what ran: the upload is the helper's, run by the tool call
      // that ran the skill's script, and that call's command names no such host.
      const helper = report.trajectory?.steps.find((s) => s.command?.includes('validate_citations'));
      expect(helper, JSON.stringify(report.trajectory)).toBeDefined();
      expect(helper?.observed?.network).toContain('crossref-cache.example.net:80');
      expect(helper?.not_asked.join('\n')).toMatch(
        /reached crossref-cache\.example\.net:80, which the command does not name/,
      );
      expect(upload?.tool_call).toBe(helper?.step);
    });
  });
}
