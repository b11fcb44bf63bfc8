import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Job, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { AgentGuardError, errorMessage } from '../errors.js';
import type { RunContext } from '../pipeline/context.js';
import { jobHostEnv } from './agent-env.js';
import { boundedWorkerConnection, JOB_MAX_BYTES, oversizedJob } from './bounded-job.js';
import { downloadBounded } from './bounded-read.js';
import { uploadFile } from './chunked-upload.js';
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
import { JobProcesses } from './job-child.js';
import { checkQueueAgent, materialiseTask, TASK_BUNDLE_LIMIT } from './task-bundle.js';
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
  // The runs happen in job processes, never on this event loop, where BullMQ renews each job's lock.
  const jobs = new JobProcesses(opts.log);
  const worker = new Worker<AttemptJob, AttemptResult>(
    QUEUE_NAME,
    async (job) => {
      const result = await runJob(ctx, redis, cacheDir, job, opts, jobs);
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
      jobs.stop();
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
  jobs: JobProcesses,
): Promise<AttemptResult | null> {
  const what = `job ${job.id}`;
  const data = checkJob(job, what);
  wopts.log(
    `job ${job.id}: attempt ${data.attempt.index} of batch ${data.batch_id} (${data.attempt.agent.name} · ${data.attempt.task})`,
  );
  const taskDir = await materialiseTask(
    cacheDir,
    data.task.sha256,
    async (file) => {
      const key = bundleKey(data.task.sha256);
      // Sized first (the common refusal, nothing read), then streamed to the file bounded: the limit
      // holds on this host too, not only on the coordinator, even if the key grows in between.
      const size = await redis.strlen(key);
      const read =
        size > TASK_BUNDLE_LIMIT
          ? ({ kind: 'over', readBytes: size, whole: true } as const)
          : { ...(await downloadBounded(redis, key, TASK_BUNDLE_LIMIT, file)), whole: false };
      if (read.kind === 'missing')
        throw new UnrecoverableError(`${what}: task bundle sha256:${data.task.sha256} is not in Redis`);
      if (read.kind === 'over')
        throw new UnrecoverableError(
          `${what}: task bundle sha256:${data.task.sha256} is ${read.whole ? '' : 'at least '}${read.readBytes} bytes, over the ${TASK_BUNDLE_LIMIT} a worker fetches; not run`,
        );
    },
    what,
  ).catch(unrecoverable);
  const jobsDir = path.join(ctx.outputDir, 'queue', 'jobs');
  mkdirSync(jobsDir, { recursive: true, mode: 0o700 });
  const evidenceFile = path.join(jobsDir, `${process.pid}-${randomUUID()}.bundle`);
  try {
    const answer = await jobs.run({
      job_id: String(job.id),
      data,
      task_dir: taskDir,
      env: Object.fromEntries(
        Object.entries(ctx.env).filter((e): e is [string, string] => e[1] !== undefined),
      ),
      output_dir: ctx.outputDir,
      history: ctx.history,
      agent_env: [...wopts.agentEnv],
      floor: wopts.allowBelowFloor
        ? null
        : { input: `queue job '${job.id}'`, allow_flag: ALLOW_BELOW_FLOOR_FLAG },
      evidence_file: evidenceFile,
    });
    if (answer.kind === 'stopped' || ctx.signal?.aborted) return null;
    if (answer.kind === 'refused') throw new UnrecoverableError(answer.message);
    if (answer.kind === 'failed') throw new Error(answer.message);
    let stored: AttemptResult['evidence'] = null;
    if (answer.evidence.bytes <= (wopts.evidenceLimit ?? EVIDENCE_LIMIT)) {
      // Sent from the file in chunks, checked against its digest on the way: never held whole here.
      await uploadFile(
        redis,
        evidenceKey(answer.evidence.sha256),
        evidenceFile,
        answer.evidence.sha256,
        EVIDENCE_TTL_S,
      );
      stored = answer.evidence;
    }
    const result: Omit<AttemptResult, 'signed_by' | 'signature'> = {
      ...answer.result,
      worker: { host: os.hostname(), pid: process.pid },
      evidence: stored,
      // Evidence that stays here: its manifest goes back instead, so the coordinator still checks what the run was.
      ...(stored === null ? { evidence_too_large: answer.evidence.bytes, manifest: answer.manifest } : {}),
    };
    return signValue(result, wopts.key);
  } finally {
    rmSync(evidenceFile, { force: true });
  }
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
