import { readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Job, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { attemptConfig, attemptOutcome, runOverrides } from '../batch/run-batch.js';
import { AgentGuardError, errorMessage } from '../errors.js';
import { READ_LIMITS, readEvidenceBytes } from '../evidence/read.js';
import type { RunContext } from '../pipeline/context.js';
import { runTask } from '../pipeline/run-task.js';
import { NOT_ARTIFACTS } from '../provenance/artifacts.js';
import { MANIFEST_FILE } from '../provenance/manifest-schema.js';
import { reportPath } from '../reports/reporters.js';
import { checkAgentEnvironment, jobHostEnv } from './agent-env.js';
import { boundedWorkerConnection, JOB_MAX_BYTES, oversizedJob } from './bounded-job.js';
import { readBoundedString } from './bounded-read.js';
import {
  type AttemptJob,
  type AttemptResult,
  bundleKey,
  evidenceKey,
  JobDataSchema,
  jobId,
  QUEUE_NAME,
  versionRefusal,
} from './job.js';
import { loadJobConfig } from './job-config.js';
import { checkQueueAgent, materialiseTask, TASK_BUNDLE_LIMIT } from './task-bundle.js';
import { bundlePaths, sha256Of } from './tree-bundle.js';
import { signValue, type WorkerKey } from './worker-key.js';

/** Evidence bundles over this (by default) stay on the worker; the row then has no local run folder. */
export const EVIDENCE_LIMIT = 32 * 1024 * 1024;
/** The coordinator fetches evidence as soon as it sees the result; a day covers a coordinator restart. */
const EVIDENCE_TTL_S = 24 * 3600;

export type WorkerOptions = {
  concurrency: number;
  /**
   * How long a job's lock lasts without renewal: a worker silent for this long (killed, host gone)
   * has its job moved back to the queue for another worker. Stalled jobs are looked for as often.
   */
  lockMs: number;
  log: (line: string) => void;
  /** Largest compressed evidence bundle sent back through Redis, in bytes. */
  evidenceLimit?: number;
  /** The worker's own key: every result is signed with it. */
  key: WorkerKey;
  /**
   * The operator's --allow-below-floor: jobs may then run below the isolation floor. Without it every
   * job runs with the floor, whatever its task config or overrides ask.
   */
  allowBelowFloor: boolean;
  /**
   * The operator's --agent-env: the only variables of this worker's environment a job's agent may
   * be given (agent_environment, a profile's env_pass). A job asking for another is refused.
   */
  agentEnv: ReadonlySet<string>;
};

/** The operator's flag that lets this worker's jobs run below the isolation floor. */
export const ALLOW_BELOW_FLOOR_FLAG = '--allow-below-floor';

/**
 * Pull attempts from the queue and run each with the local pipeline (sandbox, tracer, checks) into
 * this host's output folder, until `ctx.signal` stops it. A job from another agentguard version is
 * refused with both versions in the reason; a task bundle whose bytes do not match the job's digest
 * is refused before anything runs. Resolves when the worker has stopped.
 */
export async function runQueueWorker(session: RunContext, redis: Redis, opts: WorkerOptions): Promise<void> {
  // Runs see the harness's settings and the allowed names only, whatever a job's config asks for.
  const ctx: RunContext = { ...session, env: jobHostEnv(session.env, opts.agentEnv) };
  const cacheDir = path.join(ctx.outputDir, 'queue', 'tasks');
  // The worker's own connection (BullMQ does not close a connection it was given), on which every
  // job it fetches is bounded inside Redis before it reaches this process.
  const connection = boundedWorkerConnection(redis);
  const worker = new Worker<AttemptJob, AttemptResult>(
    QUEUE_NAME,
    async (job) => {
      const result = await runJob(ctx, redis, cacheDir, job, opts);
      if (result === null) return new Promise<never>(() => {}); // see runJob
      opts.log(`job ${job.id}: ${result.outcome.result} (run ${result.outcome.run_id})`);
      return result;
    },
    {
      connection,
      concurrency: opts.concurrency,
      lockDuration: opts.lockMs,
      stalledInterval: opts.lockMs,
      maxStalledCount: 1,
      autorun: false,
    },
  );
  worker.on('failed', (job, err) =>
    opts.log(`job ${job?.id ?? '?'}: refused or failed: ${errorMessage(err)}`),
  );
  worker.on('error', (err) => opts.log(`queue: ${errorMessage(err)}`));
  const stopped = new Promise<void>((resolve) => {
    const stop = () => {
      // Forced: a job in progress is not completed; its lock lapses and another worker runs it.
      void worker.close(true).then(resolve, resolve);
    };
    if (ctx.signal?.aborted) stop();
    else ctx.signal?.addEventListener('abort', stop, { once: true });
  });
  void worker.run();
  await worker.waitUntilReady();
  opts.log(
    `worker ${os.hostname()}:${process.pid} waiting for jobs on ${QUEUE_NAME}, ${opts.concurrency} at a time`,
  );
  await stopped;
  connection.disconnect();
}

/**
 * One job: the result, or null when this worker is stopping (the run was cut short, so it is no
 * result; the job is left unfinished for another worker, as if this one had been killed).
 */
async function runJob(
  ctx: RunContext,
  redis: Redis,
  cacheDir: string,
  job: Job<AttemptJob, AttemptResult>,
  wopts: WorkerOptions,
): Promise<AttemptResult | null> {
  const what = `job ${job.id}`;
  const data = checkJob(job, what);
  wopts.log(
    `job ${job.id}: attempt ${data.attempt.index} of batch ${data.batch_id} (${data.attempt.agent.name} · ${data.attempt.task})`,
  );
  const taskDir = await materialiseTask(
    cacheDir,
    data.task.sha256,
    async () => {
      const key = bundleKey(data.task.sha256);
      // Sized first (the common refusal, nothing read), then read bounded: the limit holds on this
      // host too, not only on the coordinator, even if the key grows in between (bounded-read.ts).
      const size = await redis.strlen(key);
      const read =
        size > TASK_BUNDLE_LIMIT
          ? ({ kind: 'over', readBytes: size, whole: true } as const)
          : { ...(await readBoundedString(redis, key, TASK_BUNDLE_LIMIT)), whole: false };
      if (read.kind === 'missing')
        throw new UnrecoverableError(`${what}: task bundle sha256:${data.task.sha256} is not in Redis`);
      if (read.kind === 'over')
        throw new UnrecoverableError(
          `${what}: task bundle sha256:${data.task.sha256} is ${read.whole ? '' : 'at least '}${read.readBytes} bytes, over the ${TASK_BUNDLE_LIMIT} a worker fetches; not run`,
        );
      return read.bytes;
    },
    what,
  ).catch(unrecoverable);
  const { cfg, opts } = await Promise.resolve()
    .then(() => {
      const loaded = attemptConfig(loadJobConfig(taskDir, data.task.config, what), data.attempt.agent);
      checkAgentEnvironment(loaded.cfg, loaded.opts.agent, wopts.agentEnv, what);
      return loaded;
    })
    .catch(unrecoverable);
  const run = await runTask(ctx, cfg, {
    ...opts,
    ...runOverrides(data.overrides),
    batch: {
      id: data.batch_id,
      attempt: data.attempt.index,
      queue: { nonce: data.nonce, task_sha256: data.task.sha256 },
    },
    ...(wopts.allowBelowFloor
      ? {}
      : {
          floor: {
            input: `queue job '${job.id}'`,
            allowFlag: ALLOW_BELOW_FLOOR_FLAG,
            root: taskDir,
            agentEnv: wopts.agentEnv,
          },
        }),
  }).catch(unrecoverable);
  if (ctx.signal?.aborted) return null;
  const { run_dir: _local, ...outcome } = attemptOutcome(run);
  const evidence = bundleRun(run.runDir);
  // Read as from any run folder: a regular file, no link followed, bounded.
  const fromRun = (file: string) =>
    readEvidenceBytes(file, { within: run.runDir, maxBytes: READ_LIMITS.json });
  const manifestText = fromRun(path.join(run.runDir, MANIFEST_FILE));
  let stored: AttemptResult['evidence'] = null;
  if (evidence.bytes.length <= (wopts.evidenceLimit ?? EVIDENCE_LIMIT)) {
    await redis.set(evidenceKey(evidence.sha256), evidence.bytes, 'EX', EVIDENCE_TTL_S);
    stored = { sha256: evidence.sha256, bytes: evidence.bytes.length };
  }
  const result: Omit<AttemptResult, 'signed_by' | 'signature'> = {
    schema: 1,
    batch_id: data.batch_id,
    index: data.attempt.index,
    worker: { host: os.hostname(), pid: process.pid },
    outcome: { ...outcome, run_id: run.report.run_id },
    remote_run_dir: run.runDir,
    report_sha256: sha256Of(fromRun(reportPath(run.runDir, 'json'))),
    manifest_sha256: sha256Of(manifestText),
    evidence: stored,
    // Evidence that stays here: its manifest goes back instead, so the coordinator still checks what the run was.
    ...(stored === null
      ? { evidence_too_large: evidence.bytes.length, manifest: manifestText.toString('utf8') }
      : {}),
  };
  return signValue(result, wopts.key);
}

/** A job's data checked as data before anything is fetched or run: the worker trusts nothing in Redis. */
function checkJob(job: Job<AttemptJob, AttemptResult>, what: string): AttemptJob {
  const data = job.data;
  const oversized = oversizedJob(data);
  if (oversized !== null)
    throw new UnrecoverableError(
      `${what}: the job is ${oversized} bytes in Redis, over the ${JOB_MAX_BYTES} a worker loads; not run. Fix: enqueue it again with agentguard matrix --queue (a job is a few kilobytes).`,
    );
  const refusal = versionRefusal(data.agentguard ?? { version: '?', collector_protocol: '?' });
  if (refusal) throw new UnrecoverableError(refusal);
  const parsed = JobDataSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UnrecoverableError(
      `${what}: not an agentguard attempt job: field '${issue?.path.join('.') ?? ''}': ${issue?.message ?? ''}`,
    );
  }
  if (job.id !== jobId(data.batch_id, data.attempt.index))
    throw new UnrecoverableError(
      `job id ${job.id} does not name attempt ${data.attempt.index} of batch ${data.batch_id}`,
    );
  try {
    checkQueueAgent(data.attempt.agent);
  } catch (err) {
    throw new UnrecoverableError(`${what}: ${errorMessage(err)}`);
  }
  return data;
}

/** Refusals of the job itself (bad bundle, config, floor) are final: another worker would refuse it too. */
function unrecoverable(err: unknown): never {
  throw err instanceof UnrecoverableError || !(err instanceof AgentGuardError)
    ? err
    : new UnrecoverableError(errorMessage(err));
}

/** A run's evidence and reports, without the workspace copies (repo, baseline.git, grading, home, net) the seal leaves out too. */
function bundleRun(runDir: string) {
  const names = readdirSync(runDir).filter((n) => n === MANIFEST_FILE || !NOT_ARTIFACTS.has(n));
  return bundlePaths(runDir, names);
}
