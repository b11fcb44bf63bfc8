import { readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type AgentName, isAgentName } from '../../agents/index.js';
import { compareTrial } from '../../audit/compare-trials.js';
import { appliesTo } from '../../audit/family-variants.js';
import { observedRun } from '../../audit/observe-trial.js';
import { mapSettled } from '../../batch/scheduler.js';
import { loadConfigOrThrow } from '../../config/load.js';
import type { ResolvedConfig } from '../../config/schema.js';
import { ConfigError, errorMessage, InternalError } from '../../errors.js';
import { stopReasonOf } from '../../exec/interrupt.js';
import { signalExitCode } from '../../exec/shutdown.js';
import { packageRoot } from '../../package-root.js';
import { beginRunSession } from '../../pipeline/run-session.js';
import { runTask } from '../../pipeline/run-task.js';
import type { Contract, Reference } from '../../registry/contract-file.js';
import { loadContract } from '../../registry/load-contract.js';
import { loadRegistry, SHIPPED_REGISTRY } from '../../registry/registry-file.js';
import { renderTable } from '../../reports/table.js';
import { type CliIO, type GlobalOptions, runContext } from '../io.js';

/**
 * What each mock agent should earn is the family's contract (benchmarks/contracts/*.yaml): the demo
 * runs every built-in reference agent of the core families and holds each run to its reference,
 * strictly — no failed check and no alert the contract does not list — so the checks are shown to
 * fire where they should, and only there.
 */
type DemoRun = { cfg: ResolvedConfig; contract: Contract; ref: Reference; agent: AgentName };

function demoPlan(configs: readonly ResolvedConfig[]): DemoRun[] {
  const registry = loadRegistry(path.join(packageRoot(), SHIPPED_REGISTRY));
  return configs.flatMap((cfg) => {
    const family = registry.families.find((f) => f.id === cfg.benchmark_id);
    if (family?.contract === undefined)
      throw new InternalError(`${cfg.config_path} has no family with a contract in ${registry.file}`);
    const loaded = loadContract(family.contract);
    if (!loaded.ok) throw new ConfigError(loaded.issues);
    const contract = loaded.value;
    return contract.references.flatMap((ref) =>
      ref.agent !== 'config' && isAgentName(ref.agent) && appliesTo(ref, cfg)
        ? [{ cfg, contract, ref, agent: ref.agent }]
        : [],
    );
  });
}

export function demoConfigs(): string[] {
  const dir = path.join(packageRoot(), 'benchmarks');
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !d.name.startsWith('.'))
    .map((d) => path.join(dir, d.name, 'config.yaml'))
    .filter((f) => {
      try {
        return readdirSync(path.dirname(f)).includes('config.yaml');
      } catch {
        return false;
      }
    })
    .sort();
}

export async function demoCommand(
  io: CliIO,
  opts: GlobalOptions & { jobs?: number | string },
): Promise<number> {
  const configs = demoConfigs().map((f) => loadConfigOrThrow(f));
  const plan = demoPlan(configs);
  const agents = new Set(plan.map((p) => p.agent));
  const ctx = await beginRunSession(runContext(io, { ...opts, quiet: true }), io.err);
  const jobs = Math.max(1, Number(opts.jobs ?? Math.min(2, os.availableParallelism())) || 1);
  io.err(
    `agentguard demo: ${configs.length} tasks × ${agents.size} mock agents, ${jobs} at a time, ` +
      `results in ${ctx.outputDir}`,
  );
  // One run that cannot be set up is that run's row; the others still run.
  const settled = await mapSettled(
    plan,
    jobs,
    async ({ cfg, agent }) => {
      const { report } = await runTask(ctx, cfg, { agent });
      const { sandbox, tracer } = report.observation;
      io.err(
        `  ${cfg.name} · ${agent}: ${report.result} (sandbox ${sandbox.kind}, tracer ${tracer.kind}${tracer.version ? ` · ${tracer.version}` : ''})`,
      );
      return report;
    },
    ctx.signal,
  );
  let surprises = 0;
  const rows = plan.map(({ cfg, contract, ref, agent }, i) => {
    const outcome = settled[i] as (typeof settled)[number];
    if (outcome.status !== 'done') {
      surprises++;
      const why = outcome.status === 'failed' ? errorMessage(outcome.error) : 'not started: interrupted';
      if (outcome.status === 'failed') io.err(`  ${cfg.name} · ${agent}: ERROR ${why}`);
      return [cfg.name, agent, 'ERROR', '-', '-', '-', `NO (${why})`];
    }
    const report = outcome.value;
    const failed: string[] = report.checks.filter((c) => !c.passed).map((c) => c.id);
    const alerts = report.alerts.map((a) => a.rule);
    const observed = observedRun(report, report.diff.files, 1, report.run_dir, contract.evidence);
    const mismatches = compareTrial(contract, ref, observed, { strict: true });
    if (mismatches.length > 0) surprises++;
    return [
      cfg.name,
      agent,
      report.result,
      String(report.score),
      failed.join(', ') || '-',
      alerts.join(', ') || '-',
      mismatches.length === 0 ? 'yes' : `NO (${mismatches.map((m) => m.message).join('; ')})`,
    ];
  });
  io.out(renderTable(['task', 'agent', 'verdict', 'score', 'failed checks', 'alerts', 'as expected'], rows));
  io.out(
    surprises === 0
      ? `All ${rows.length} runs gave the expected verdict. Reports: ${path.join(ctx.outputDir, 'runs')}\n` +
          `Next: agentguard run benchmarks/attacks/exfil-ssh-key/config.yaml — a skill with a malicious helper.`
      : `${surprises} of ${rows.length} runs did not give the expected verdict.`,
  );
  const stop = stopReasonOf(ctx.signal);
  if (stop?.kind === 'signal') return signalExitCode(stop.signal);
  return surprises === 0 ? 0 : 1;
}
