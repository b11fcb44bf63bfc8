import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfigOrThrow } from '../config/load.js';
import { analyseRun } from '../pipeline/analyse-run.js';
import { runTask } from '../pipeline/run-task.js';
import { editingAgentSource, generateRepo } from './generate-repo.js';

/**
 * Harness time of one run on a 2,000-file / 100,000-line repository where the agent changes 200
 * files: total wall time minus the agent's and the tests' own time. Printed as one JSON line.
 */
async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ag-bench-'));
  try {
    generateRepo(path.join(dir, 'repo'), 2000, 50);
    writeFileSync(path.join(dir, 'agent.cjs'), editingAgentSource(200));
    writeFileSync(
      path.join(dir, 'config.yaml'),
      [
        'name: bench-large-repo',
        'task: {prompt: change 200 files}',
        'repo: repo',
        "test_command: ['true']",
        `agent_command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(path.join(dir, 'agent.cjs'))}]`,
        'secret_presets: [private-key, aws-access-key, github-token, generic-api-key]',
      ].join('\n'),
    );
    const cfg = loadConfigOrThrow(path.join(dir, 'config.yaml'));
    const ctx = {
      outputDir: path.join(dir, '.agentguard'),
      env: process.env,
      now: () => new Date(),
      log: () => {},
      history: true,
    };
    const t0 = performance.now();
    const result = await runTask(ctx, cfg, { agent: 'agent-command' });
    const total = performance.now() - t0;
    const agentMs = result.report.commands
      .filter((c) => c.role === 'agent')
      .reduce((n, c) => n + c.duration_ms, 0);
    const testsMs = result.report.commands
      .filter((c) => c.role === 'tests')
      .reduce((n, c) => n + c.duration_ms, 0);
    const a0 = performance.now();
    analyseRun(result.runDir);
    const analyzeMs = performance.now() - a0;
    const figures = {
      changed_files: result.report.diff.changed_files,
      result: result.report.result,
      run_total_ms: Math.round(total),
      agent_ms: agentMs,
      tests_ms: testsMs,
      harness_ms: Math.round(total - agentMs - testsMs),
      analyze_ms: Math.round(analyzeMs),
      peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
    };
    process.stdout.write(`${JSON.stringify(figures)}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
