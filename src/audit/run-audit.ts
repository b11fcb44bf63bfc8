import { isAgentName } from '../agents/index.js';
import { resolveAgentBin } from '../agents/install/resolve-bin.js';
import { loadProfile } from '../agents/profiles/load-profile.js';
import { batchDir, type Progress, planPairs, runBatch } from '../batch/run-batch.js';
import type { ResolvedConfig } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import type { RunContext } from '../pipeline/context.js';
import type { Contract, Reference } from '../registry/contract-file.js';
import type { ValidatedFamily } from '../registry/validate-registry.js';
import type { ReferenceOutcome, StaticFinding } from '../reports/audit-types.js';
import type { AgentSpec, BatchPlan, Row } from '../reports/batch-types.js';
import { compareReference } from './compare-trials.js';
import { appliesTo, contractConfigs } from './family-variants.js';
import { observeTrial } from './observe-trial.js';

/*
 * The execution audit: every contract reference's agent on each variant it names (the newest
 * version the contract describes), `trials` times, as ONE ordinary batch — so each child run keeps
 * its report, manifest and history row exactly as a matrix's would, and `reports batches` lists it.
 * Then each trial's report is compared with the contract (compare-trials.ts).
 */

export type RunAuditOptions = {
  trials: number;
  strict: boolean;
  options: BatchPlan['options'];
  registryFile: string;
};

/** One reference on one variant: the unit an audit judges. */
type Job = {
  family: string;
  contract: Contract;
  reference: number;
  ref: Reference;
  cfg: ResolvedConfig;
  agent: AgentSpec | { skipped: string };
};

export type RunAuditResult = {
  batch: { id: string; dir: string } | null;
  outcomes: ReferenceOutcome[];
  findings: StaticFinding[];
};

export async function runAudit(
  ctx: RunContext,
  families: readonly ValidatedFamily[],
  opts: RunAuditOptions,
  progress?: Progress,
): Promise<RunAuditResult> {
  const findings: StaticFinding[] = [];
  const jobs: Job[] = [];
  for (const vf of families) {
    const contract = vf.contract;
    if (contract === undefined) {
      findings.push({
        severity: 'error',
        code: 'no-contract',
        family: vf.family.id,
        file: opts.registryFile,
        message: `family '${vf.family.id}' has no contract: nothing to run it against`,
      });
      continue;
    }
    const configs = contractConfigs(vf, true);
    for (const [reference, ref] of contract.references.entries())
      for (const cfg of configs.filter((c) => appliesTo(ref, c)))
        jobs.push({ family: vf.family.id, contract, reference, ref, cfg, agent: agentFor(ref, cfg) });
  }

  const runnable = jobs.filter((j): j is Job & { agent: AgentSpec } => !('skipped' in j.agent));
  let rows: Row[] = [];
  let batch: RunAuditResult['batch'] = null;
  if (runnable.length > 0) {
    const plan = planPairs(ctx, {
      kind: 'matrix',
      sourceFile: opts.registryFile,
      pairs: runnable.map((j) => ({ agent: j.agent, cfg: j.cfg })),
      configs: [...new Map(runnable.map((j) => [j.cfg.config_path, j.cfg])).values()],
      trials: opts.trials,
      options: opts.options,
    });
    batch = { id: plan.batch_id, dir: batchDir(ctx, plan.batch_id) };
    rows = (await runBatch(ctx, plan, progress)).rows;
  }

  // Attempts are planned job by job, `trials` each, in order: attempt index → job.
  const outcomes = jobs.map((job): ReferenceOutcome => {
    const head = {
      family: job.family,
      reference: job.reference,
      agent: job.ref.agent,
      variant: job.cfg.name,
      config: job.cfg.config_path,
    };
    if ('skipped' in job.agent)
      return { ...head, status: 'skipped', skipped: job.agent.skipped, trials: [], across_trials: [] };
    const first = runnable.indexOf(job as Job & { agent: AgentSpec }) * opts.trials;
    const mine = rows.filter((r) => r.index >= first && r.index < first + opts.trials);
    if (mine.length === 0)
      return {
        ...head,
        status: 'skipped',
        skipped: 'not run: the batch was interrupted',
        trials: [],
        across_trials: [],
      };
    const observed = mine.map((r) => observeTrial(r, job.contract.evidence));
    return { ...head, ...compareReference(job.contract, job.ref, observed, { strict: opts.strict }) };
  });
  return { batch, outcomes, findings };
}

/**
 * The batch agent for a reference: a built-in adapter, or the config's own agent as `suite` runs
 * it. An agent CLI that is not installed here is a skip with the reason, not a failed contract:
 * the fixture may be fine, this machine just cannot run it.
 */
function agentFor(ref: Reference, cfg: ResolvedConfig): AgentSpec | { skipped: string } {
  if (ref.agent !== 'config') {
    if (!isAgentName(ref.agent)) return { skipped: `'${ref.agent}' is not a built-in agent` };
    return { name: ref.agent, kind: 'builtin', adapter: ref.agent };
  }
  if (cfg.agent_profile !== undefined) {
    try {
      const bin = resolveAgentBin(loadProfile(cfg.agent_profile));
      if (!bin.ok) return { skipped: `skipped: agent not installed: ${bin.message} (fix: ${bin.fix})` };
    } catch (err) {
      return {
        skipped: `skipped: agent profile '${cfg.agent_profile}' cannot be loaded: ${errorMessage(err)}`,
      };
    }
    return { name: 'agent-profile', kind: 'builtin', adapter: 'agent-profile' };
  }
  if (cfg.agent_command !== undefined)
    return { name: 'agent-command', kind: 'builtin', adapter: 'agent-command' };
  return { skipped: `${cfg.config_path} names no agent_command or agent_profile for the 'config' reference` };
}
