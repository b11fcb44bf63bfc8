import { existsSync } from 'node:fs';
import os from 'node:os';
import type { AgentPlan } from '../agents/types.js';
import type { AgentEvidence } from '../evidence/bundle-types.js';
import { runPath } from '../evidence/layout.js';
import type { DiffEvidence, Observation, TestEvidence, WorkspaceEvidence } from '../evidence/types.js';
import { writeFileAtomic, writeJson } from '../evidence/write.js';
import { describeStop, type StopReason, stoppedBy } from '../exec/interrupt.js';
import { profileFacts } from './agent-phase.js';
import type { RunPlan } from './plan-run.js';

/** What filling in needs of a run's plan; a CI run, which has no agent plan, gives just this. */
export type StoppedRunFacts = Pick<RunPlan, 'runDir' | 'runId' | 'cfg' | 'repoDir'> & {
  agent: Pick<AgentEvidence, 'adapter' | 'name' | 'model' | 'metadata'> &
    Pick<AgentPlan, 'vendor_hosts' | 'prompt_off'>;
  sandboxChoice: { sandbox: Pick<RunPlan['sandboxChoice']['sandbox'], 'kind'> };
  tracer: Pick<RunPlan['tracer'], 'requested'>;
};

/**
 * A run ended from outside (interrupt, run time limit) keeps what it collected; each evidence file
 * it did not get to is written saying so, so that the run folder is a complete bundle that
 * `agentguard analyze` accepts and judges (as ERROR). Files that exist are left as they are.
 */
export function fillMissingEvidence(plan: StoppedRunFacts, stop: StopReason): void {
  const why = describeStop(stop);
  const { runDir, runId, cfg } = plan;
  const missing = (file: Parameters<typeof runPath>[1]) => !existsSync(runPath(runDir, file));
  if (missing('workspace')) {
    const workspace: WorkspaceEvidence = {
      run_id: runId,
      repo_dir: plan.repoDir,
      baseline_sha: '',
      template: cfg.repo,
      files: 0,
    };
    writeJson(runPath(runDir, 'workspace'), workspace);
  }
  if (missing('agent')) {
    const agent: AgentEvidence = {
      adapter: plan.agent.adapter,
      name: plan.agent.name,
      version: null,
      model: plan.agent.model,
      metadata: plan.agent.metadata,
      outcome: {
        status: 'stopped',
        by: stoppedBy(stop),
        reason: `stopped by the harness before it started: ${why}`,
      },
      command_id: null,
      ...profileFacts(plan.agent),
    };
    writeJson(runPath(runDir, 'agent'), agent);
  }
  if (missing('diff')) {
    const diff: DiffEvidence = {
      baseline_sha: '',
      files: [],
      added: 0,
      deleted: 0,
      patch_truncated: false,
      patch_bytes: 0,
      ignored_files: [],
      ignored_files_truncated: false,
      workspace_git_changed: false,
    };
    writeJson(runPath(runDir, 'diff'), diff);
    writeFileAtomic(runPath(runDir, 'patch'), '');
  }
  if (missing('tests')) {
    const tests: TestEvidence = {
      ran: false,
      passed: false,
      exit_code: null,
      timed_out: false,
      duration_ms: 0,
      command_id: null,
      reason: why,
    };
    writeJson(runPath(runDir, 'tests'), tests);
  }
  if (missing('observation')) {
    const observation: Observation = {
      // Nothing ran outside the sandbox: the agent never started.
      sandbox: { kind: plan.sandboxChoice.sandbox.kind, isolated: true, detail: `not started: ${why}` },
      tracer: {
        requested: plan.tracer.requested,
        kind: 'off',
        reason: `not started: ${why}`,
        lost_events: 0,
      },
      network: { mode: cfg.network.mode },
      kernel: `${os.type()} ${os.release()}`,
      fallbacks: [],
      window: null,
    };
    writeJson(runPath(runDir, 'observation'), observation);
  }
  if (missing('commands')) writeFileAtomic(runPath(runDir, 'commands'), '');
}
