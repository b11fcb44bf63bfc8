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
 */
export const DIR = path.dirname(fileURLToPath(import.meta.url));
const CaseSchema = z.strictObject({
  rule: z.string().min(1),
  expect: z.enum(['alert', 'none']),
  steps: z.array(z.string().min(1)).min(1),
});
export type RuleCase = z.infer<typeof CaseSchema> & { name: string };

export const cases: RuleCase[] = readdirSync(DIR)
  .filter((f) => f.endsWith('.yaml'))
  .sort()
  .map((f) => {
    const parsed = CaseSchema.safeParse(parse(readFileSync(path.join(DIR, f), 'utf8')));
    if (!parsed.success)
      throw new Error(`test/rule-cases/${f}: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
    return { name: f.replace(/\.yaml$/, ''), ...parsed.data };
  });
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
afterAll(() => rmSync(work, { recursive: true, force: true }));

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

/** Runs a case under a tracer and checks its rule fired, or stayed silent, as the case says. */
export async function runCase(c: RuleCase, tracer: 'strace' | 'ebpf'): Promise<void> {
  // HOME is the account's own, so the sandbox HOME sits where a user's would (not under /tmp).
  const r = await execCli(['run', writeTask(c), '--tracer', tracer, '--json'], {
    cwd: work,
    env: { HOME: os.userInfo().homedir },
  });
  const report = JSON.parse(r.stdout) as RunReport;
  expect(report.observation.tracer.kind).toBe(tracer);
  const agentExit = report.checks.find((k) => k.id === 'agent-exit');
  expect(agentExit?.passed, `the steps failed: ${agentExit?.message}`).toBe(true);
  const fired = report.alerts.filter((a) => a.rule === c.rule);
  if (c.expect === 'alert') expect(fired.length, `${c.rule} did not fire under ${tracer}`).toBeGreaterThan(0);
  else expect(fired.map((a) => a.message)).toEqual([]);
}

export const title = (c: RuleCase) =>
  `${c.name}: ${c.rule} ${c.expect === 'alert' ? 'raises an alert' : 'stays silent'}`;
