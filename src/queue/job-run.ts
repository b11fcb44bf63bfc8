import { readdirSync } from 'node:fs';
import path from 'node:path';
import { attemptConfig, attemptOutcome, runOverrides } from '../batch/run-batch.js';
import { READ_LIMITS, readEvidenceBytes } from '../evidence/read.js';
import type { RunContext } from '../pipeline/context.js';
import { runTask } from '../pipeline/run-task.js';
import { NOT_ARTIFACTS } from '../provenance/artifacts.js';
import { MANIFEST_FILE } from '../provenance/manifest-schema.js';
import { reportPath } from '../reports/reporters.js';
import { checkAgentEnvironment } from './agent-env.js';
import { writeBundleFile } from './bundle-writer.js';
import { type AttemptJob, type AttemptResult, JobDataSchema, jobDigest } from './job.js';
import { loadJobConfig } from './job-config.js';
import { sha256Of } from './tree-bundle.js';

/*
 * One queue job's run, as the job process does it (job-process.ts): the task config loaded from
 * the extracted bundle, the run with the floor, and the run's evidence bundled into a file. It runs
 * in a process of its own so that nothing the run does synchronously (git on a large tree, a slow
 * copy, a loaded machine) holds up the worker's event loop, where BullMQ renews the job's lock.
 */

/** What the worker hands the job process (JSON on its stdin). */
export type JobRequest = {
  job_id: string;
  data: AttemptJob;
  task_dir: string;
  /** The environment a run may take variables from: the harness's and the operator's --agent-env names. */
  env: Record<string, string>;
  output_dir: string;
  history: boolean;
  /** The operator's --agent-env: the only variables a job's agent may be given. */
  agent_env: string[];
  /** Unset when the operator allowed runs below the floor. */
  floor: { input: string; allow_flag: string } | null;
  /** Where the job process writes the run's evidence bundle. */
  evidence_file: string;
};

/** What the job process answers (one JSON line on its stdout). */
export type JobAnswer =
  | {
      kind: 'done';
      result: Omit<
        AttemptResult,
        'signed_by' | 'signature' | 'worker' | 'evidence' | 'evidence_too_large' | 'manifest'
      >;
      /** The sealed manifest's text: it goes back instead of the evidence when that stays here. */
      manifest: string;
      evidence: { sha256: string; bytes: number };
    }
  /** The job itself is refused (bundle, config, floor): another worker would refuse it too. */
  | { kind: 'refused'; message: string }
  | { kind: 'failed'; message: string }
  /** The run was stopped by a signal: no result. */
  | { kind: 'stopped' };

/** Run the job of `req` in this process under `ctx`; the evidence bundle goes to req.evidence_file. */
export async function runJobHere(ctx: RunContext, req: JobRequest): Promise<JobAnswer> {
  const what = `job ${req.job_id}`;
  const { data } = req;
  const loaded = attemptConfig(loadJobConfig(req.task_dir, data.task.config, what), data.attempt.agent);
  const agentEnv = new Set(req.agent_env);
  checkAgentEnvironment(loaded.cfg, loaded.opts.agent, agentEnv, what);
  const run = await runTask(ctx, loaded.cfg, {
    ...loaded.opts,
    ...runOverrides(data.overrides),
    batch: {
      id: data.batch_id,
      attempt: data.attempt.index,
      queue: {
        nonce: data.nonce,
        task_sha256: data.task.sha256,
        job_sha256: jobDigest(JobDataSchema.parse(data)),
      },
    },
    ...(req.floor
      ? {
          floor: {
            input: req.floor.input,
            allowFlag: req.floor.allow_flag,
            root: req.task_dir,
            agentEnv,
          },
        }
      : {}),
  });
  if (ctx.signal?.aborted) return { kind: 'stopped' };
  const { run_dir: _local, ...outcome } = attemptOutcome(run);
  // Read as from any run folder: a regular file, no link followed, bounded.
  const fromRun = (file: string) =>
    readEvidenceBytes(file, { within: run.runDir, maxBytes: READ_LIMITS.json });
  const manifestText = fromRun(path.join(run.runDir, MANIFEST_FILE));
  const names = readdirSync(run.runDir).filter((n) => n === MANIFEST_FILE || !NOT_ARTIFACTS.has(n));
  // The run's evidence and reports, without the workspace copies (repo, baseline.git, grading, home, net) the seal leaves out too.
  const bundle = await writeBundleFile(run.runDir, names, req.evidence_file);
  return {
    kind: 'done',
    result: {
      schema: 1,
      batch_id: data.batch_id,
      index: data.attempt.index,
      outcome: { ...outcome, run_id: run.report.run_id },
      remote_run_dir: run.runDir,
      report_sha256: sha256Of(fromRun(reportPath(run.runDir, 'json'))),
      manifest_sha256: sha256Of(manifestText),
    },
    manifest: manifestText.toString('utf8'),
    evidence: bundle,
  };
}
