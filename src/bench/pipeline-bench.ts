import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfigOrThrow } from '../config/load.js';
import { errorMessage } from '../errors.js';
import { analyseRun } from '../pipeline/analyse-run.js';
import { runTask } from '../pipeline/run-task.js';
import { editingAgentSource, generateRepo } from './generate-repo.js';

/**
 * Harness time of one run on a 2,000-file / 100,000-line repository where the agent changes 200
 * files: total wall time minus the agent's and the tests' own time, without a tracer and then with
 * each tracer. Printed as one JSON line.
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
    // The pipeline's own cost (the target) is measured without a tracer; each tracer's start and
    // stop (bpftrace compiles its probes, ~7 s here) is then shown on its own.
    const one = async (tracer: 'off' | 'strace' | 'ebpf') => {
      const t0 = performance.now();
      const result = await runTask(ctx, cfg, { agent: 'agent-command', tracer });
      const total = performance.now() - t0;
      const own = (role: string) =>
        result.report.commands.filter((c) => c.role === role).reduce((n, c) => n + c.duration_ms, 0);
      return { result, total, agentMs: own('agent'), testsMs: own('tests') };
    };
    const base = await one('off');
    const a0 = performance.now();
    analyseRun(base.result.runDir);
    const analyzeMs = performance.now() - a0;
    const figures: Record<string, number | string> = {
      changed_files: base.result.report.diff.changed_files,
      result: base.result.report.result,
      sandbox: base.result.report.observation.sandbox.kind,
      run_total_ms: Math.round(base.total),
      agent_ms: base.agentMs,
      tests_ms: base.testsMs,
      harness_ms: Math.round(base.total - base.agentMs - base.testsMs),
      analyze_ms: Math.round(analyzeMs),
      peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
    };
    for (const tracer of ['strace', 'ebpf'] as const) {
      try {
        const r = await one(tracer);
        const used = r.result.report.observation.tracer.kind;
        figures[`harness_with_${tracer}_ms`] =
          used === tracer ? Math.round(r.total - r.agentMs - r.testsMs) : `not measured (${used} used)`;
      } catch (err) {
        figures[`harness_with_${tracer}_ms`] = `not measured: ${errorMessage(err).slice(0, 80)}`;
      }
    }
    process.stdout.write(`${JSON.stringify(figures)}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
