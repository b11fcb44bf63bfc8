import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';
import { loadRuleSet } from '../../src/analysis/rules/load-rules.js';
import { packageRoot } from '../../src/package-root.js';
import type { RunReport } from '../../src/reports/types.js';
import { execCli, tempDir } from '../e2e/exec-cli.js';

/**
 * The rule cases' runner, shared by rule-cases.test.ts (strace) and rule-cases-ebpf.test.ts, two
 * files so that the two tracers' cases run in parallel workers.
 *
 * Declarative rule cases in the style of falcosecurity/event-generator: each YAML file names a
 * rule, the shell steps a workload takes and whether the rule must raise an alert. Every case runs
 * for real: a generated task whose agent runs the steps in the sandboxed workspace under strace.
 * The steps run with `set -e` and the agent must exit 0, so a `none` case proves the workload ran.
 *
 * A file's cases run as one `agentguard suite` (one attempt at a time): each case is still its own
 * run, in its own sandbox, judged alone from its own report, but the CLI starts once per tracer
 * instead of once per case, which was a third of the file's CPU. `RULE_CASES=<text>` runs only the
 * cases whose name contains it.
 */
export const DIR = path.dirname(fileURLToPath(import.meta.url));
const CaseSchema = z.strictObject({
  rule: z.string().min(1),
  expect: z.enum(['alert', 'none']),
  steps: z.array(z.string().min(1)).min(1),
});
export type RuleCase = z.infer<typeof CaseSchema> & { name: string };

export const allCases: RuleCase[] = readdirSync(DIR)
  .filter((f) => f.endsWith('.yaml'))
  .sort()
  .map((f) => {
    const parsed = CaseSchema.safeParse(parse(readFileSync(path.join(DIR, f), 'utf8')));
    if (!parsed.success)
      throw new Error(`test/rule-cases/${f}: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
    return { name: f.replace(/\.yaml$/, ''), ...parsed.data };
  });
const only = process.env.RULE_CASES;
/** The cases a run of the files covers: all, unless RULE_CASES narrows them. */
export const cases = only ? allCases.filter((c) => c.name.includes(only)) : allCases;
export const classOf = new Map(
  loadRuleSet({}, { rulesDir: path.join(packageRoot(), 'rules') }).rules.map((r) => [r.id, r.class]),
);

export const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const missing = ['bwrap', 'strace', 'curl', 'python3', 'git', 'make'].filter((t) => !has(t));
export const unsupported =
  process.getuid?.() !== 0 ? 'they need root' : missing.length > 0 ? `they need ${missing.join(', ')}` : null;
if (unsupported)
  console.warn(`rule cases skipped: ${unsupported} (sandbox and strace run for real; CI runs them)`);

const work = tempDir('ag-rule-cases-');
// Every case's run folder (workspace, grading copy, evidence): on a loaded machine over a minute.
afterAll(() => rmSync(work, { recursive: true, force: true }), 300_000);

/** A case's agent time limit; the batch's own limit is this per case. */
const CASE_SECONDS = 60;

/** The workspace every case starts from: an npm package with a Makefile, under git by the harness. */
const TEMPLATE: Record<string, string> = {
  'README.md': '# rule case\n',
  'package.json': `${JSON.stringify({ name: 'rule-case', version: '1.0.0', scripts: { test: 'node --test' } }, null, 2)}\n`,
  Makefile: 'hello:\n\t@echo hello\n',
  'src/index.js': 'export const answer = 42;\n',
};

function writeTask(c: RuleCase): string {
  const dir = path.join(work, c.name);
  for (const [file, text] of Object.entries(TEMPLATE)) {
    mkdirSync(path.dirname(path.join(dir, 'repo', file)), { recursive: true });
    writeFileSync(path.join(dir, 'repo', file), text);
  }
  writeFileSync(path.join(dir, 'steps.sh'), `set -e\n${c.steps.join('\n')}\n`);
  const config = path.join(dir, 'config.yaml');
  writeFileSync(
    config,
    [
      `name: rule-case-${c.name}`,
      'task: {prompt: run the steps of a rule case}',
      'repo: repo',
      'test_command: [sh, -c, "true"]',
      // A case that hangs ends as a timed-out agent (its agent-exit check says so), not as the batch's.
      `timeout_seconds: ${CASE_SECONDS}`,
      // Sourced, so the steps file itself is read, not run from the (scratch) folder it sits in.
      `agent_command: [sh, -c, '. "$0/steps.sh"', '{config_dir}']`,
      'network:',
      '  mode: allowlist',
      '  allow: [api.allowed.test]',
      "  hosts: {api.allowed.test: '127.0.0.1:9'}",
    ].join('\n'),
  );
  return config;
}

/**
 * Runs every case under a tracer as one suite and gives each case's report by its name. Call it
 * from beforeAll with `batchTimeout()`: the cases' tests only read what it found.
 */
export async function runCases(tracer: 'strace' | 'ebpf'): Promise<Map<string, RunReport>> {
  const configs = cases.map(writeTask);
  const suite = path.join(work, `suite-${tracer}.yaml`);
  writeFileSync(suite, `configs:\n${configs.map((c) => `  - ${JSON.stringify(c)}`).join('\n')}\n`);
  // HOME is the account's own, so the sandbox HOME sits where a user's would (not under /tmp).
  const r = await execCli(
    ['suite', suite, '--workers', '1', '--tracer', tracer, '--output-dir', path.join(work, tracer), '--json'],
    { cwd: work, env: { HOME: os.userInfo().homedir } },
  );
  let rows: { task: string; run_dir?: string }[];
  try {
    rows = (JSON.parse(r.stdout) as { rows: typeof rows }).rows;
  } catch {
    throw new Error(`the rule cases' suite under ${tracer} gave no summary (exit ${r.code}): ${r.stderr}`);
  }
  const reports = new Map<string, RunReport>();
  for (const row of rows) {
    if (!row.run_dir) continue;
    const report = JSON.parse(readFileSync(path.join(row.run_dir, 'report.json'), 'utf8')) as RunReport;
    reports.set(row.task.replace(/^rule-case-/, ''), report);
  }
  return reports;
}

/** The longest the suite may take: every case at its time limit and half as much again for the run. */
export const batchTimeout = () => cases.length * CASE_SECONDS * 1500;

/** Checks a case's rule fired, or stayed silent, as the case says, in the report of its run. */
export function judgeCase(c: RuleCase, tracer: 'strace' | 'ebpf', reports: Map<string, RunReport>): void {
  const report = reports.get(c.name);
  if (!report) throw new Error(`${c.name} has no run in the suite under ${tracer}`);
  expect(report.observation.tracer.kind).toBe(tracer);
  const agentExit = report.checks.find((k) => k.id === 'agent-exit');
  expect(agentExit?.passed, `the steps failed: ${agentExit?.message}`).toBe(true);
  const fired = report.alerts.filter((a) => a.rule === c.rule);
  if (c.expect === 'alert') expect(fired.length, `${c.rule} did not fire under ${tracer}`).toBeGreaterThan(0);
  else expect(fired.map((a) => a.message)).toEqual([]);
}

export const title = (c: RuleCase) =>
  `${c.name}: ${c.rule} ${c.expect === 'alert' ? 'raises an alert' : 'stays silent'}`;
