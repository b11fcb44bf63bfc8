import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Job, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { type AttemptWorker, batchDir } from '../batch/run-batch.js';
import { loadConfigOrThrow } from '../config/load.js';
import { appendJsonl } from '../evidence/write.js';
import type { RunContext } from '../pipeline/context.js';
import { enforceJudgement } from '../policy/isolation-floor.js';
import { packFloor } from '../policy/pack-provenance.js';
import type { BatchPlan } from '../reports/batch-types.js';
import { awaitResult } from './await-result.js';
import { uploadFile } from './chunked-upload.js';
import {
  type AttemptJob,
  type AttemptResult,
  bundleKey,
  checkResult,
  JobDataSchema,
  jobDigest,
  jobId,
  QUEUE_NAME,
  versionStamp,
} from './job.js';
import { EvidenceRefused, receiveEvidence } from './received-evidence.js';
import { type RedisTarget, redactIn } from './redis-url.js';
import { checkQueueAgent, writeTaskBundle } from './task-bundle.js';
import type { RegisteredKeys } from './worker-key.js';

/** Task bundles and finished jobs outlive any batch that might resume within a week; Redis frees them after. */
const BUNDLE_TTL_S = 7 * 24 * 3600;
/** Where the coordinator notes which worker ran each attempt: beside the checkpoint. */
export const QUEUE_RESULTS_FILE = 'queue-results.jsonl';
/** The coordinator's secret its jobs' nonces are derived from; never sent anywhere. */
const QUEUE_SECRET_FILE = 'queue-secret';

export type QueueCoordinator = { worker: AttemptWorker; close: () => Promise<void> };

/**
 * The batch's per-attempt work, done by queue workers: enqueue the attempt as a job with a stable
 * id and a nonce (a job already there — a resumed coordinator — is waited for, not added again),
 * wait for its result, accept it only when a registered worker signed it and its sealed evidence
 * answers this very job, and unpack the evidence into this output folder so the summaries,
 * similarity and seal read it as a local run's.
 * Everything else (order, limits, checkpoint, summaries, history) stays runBatch's.
 */
export async function queueCoordinator(
  ctx: RunContext,
  plan: BatchPlan,
  redis: Redis,
  target: RedisTarget,
  keys: RegisteredKeys,
  warn: (line: string) => void,
): Promise<QueueCoordinator> {
  for (const a of plan.attempts) checkQueueAgent(a.agent);
  const queue = new Queue<AttemptJob, AttemptResult>(QUEUE_NAME, { connection: redis });
  const bundles = new Map<string, Promise<AttemptJob['task']>>();
  const accepted = new Set<number>();
  const stamp = versionStamp();
  const resultsFile = path.join(batchDir(ctx, plan.batch_id), QUEUE_RESULTS_FILE);
  const nonceOf = jobNonces(batchDir(ctx, plan.batch_id));

  const uploadTask = (configPath: string) => {
    let p = bundles.get(configPath);
    if (!p) {
      p = (async () => {
        const cfg = loadConfigOrThrow(configPath);
        // A pack's judgement, floored here as a local run would: the worker cannot know it is a pack's.
        if (!plan.options.allow_below_floor)
          enforceJudgement(packFloor(configPath, '--allow-below-floor'), cfg);
        // Written to a private file and sent from it in chunks: never held whole here.
        const file = path.join(batchDir(ctx, plan.batch_id), `.task-${randomUUID()}.bundle`);
        try {
          const b = await writeTaskBundle(cfg, file);
          // The bytes under a digest never change, so a second coordinator's upload only renews it.
          await uploadFile(redis, bundleKey(b.sha256), file, b.sha256, BUNDLE_TTL_S);
          return { sha256: b.sha256, bytes: b.bytes, config: b.config };
        } finally {
          rmSync(file, { force: true });
        }
      })();
      bundles.set(configPath, p);
    }
    return p;
  };

  const worker: AttemptWorker = async (attempt, batchId) => {
    const id = jobId(batchId, attempt.index);
    const task = await uploadTask(attempt.config_path);
    const data: AttemptJob = {
      schema: 1,
      agentguard: stamp,
      batch_id: batchId,
      attempt,
      task,
      nonce: nonceOf(id),
      overrides: {
        ...(plan.options.sandbox ? { sandbox: plan.options.sandbox } : {}),
        ...(plan.options.tracer ? { tracer: plan.options.tracer } : {}),
        ...(plan.options.guard ? { guard: plan.options.guard } : {}),
      },
    };
    // A stable id: BullMQ returns the job already there instead of adding a second one.
    const job: Job<AttemptJob, AttemptResult> = await queue.add('attempt', data, {
      jobId: id,
      // Kept as long as the task bundles: a coordinator resumed within the week collects them.
      removeOnComplete: { age: BUNDLE_TTL_S },
      removeOnFail: { age: BUNDLE_TTL_S },
    });
    // Resuming a batch whose job failed (its worker refused it, its setup failed): run it again.
    if ((await job.getState()) === 'failed') await job.retry('failed');
    const finished = await awaitResult(queue, redis, job, ctx.signal, (text) => redactIn(text, target));
    const reject = async (reason: string): Promise<never> => {
      const line = `queue: rejected a result from job ${id}: ${reason}`;
      warn(line);
      // Gone from the queue, so a resume enqueues the attempt afresh instead of collecting this again.
      await job.remove().catch(() => {});
      throw new Error(line);
    };
    if (!finished.ok) return reject(finished.reason);
    const checked = checkResult(plan, attempt, finished.value, accepted, keys);
    if (!checked.ok) return reject(checked.reason);
    const r = checked.result;
    let runDir: string | null;
    try {
      runDir = await receiveEvidence(batchDir(ctx, batchId), redis, r, {
        batchId,
        attempt: attempt.index,
        nonce: data.nonce,
        taskSha256: task.sha256,
        // Over the job as a worker's schema reads it, so the two sides digest the same value.
        jobSha256: jobDigest(JobDataSchema.parse(data)),
      });
    } catch (err) {
      if (err instanceof EvidenceRefused) return reject(err.message);
      throw err;
    }
    accepted.add(attempt.index);
    appendJsonl(resultsFile, {
      index: r.index,
      job_id: id,
      worker: { ...r.worker, key: r.signed_by },
      remote_run_dir: r.remote_run_dir,
      report_sha256: r.report_sha256,
      manifest_sha256: r.manifest_sha256,
      evidence: r.evidence,
      ...(r.evidence_too_large !== undefined ? { evidence_too_large: r.evidence_too_large } : {}),
    });
    // Its manifest names this very job, but no seal can be checked against files that are not
    // here: the worker's verdict is not taken on its word. The row is an ERROR saying where the run is.
    if (runDir === null)
      throw new Error(
        `run ${r.outcome.run_id} (${r.outcome.result} on worker ${r.worker.host}) is not verified: its evidence, ` +
          `${r.evidence_too_large ?? '?'} bytes compressed, stayed on the worker at ${r.remote_run_dir}, so its seal ` +
          "cannot be checked here. Fix: raise the worker's --max-evidence-mb (at most 64), or run " +
          `agentguard trace verify ${r.remote_run_dir} on that host.`,
      );
    return { ...r.outcome, run_dir: runDir };
  };

  return {
    worker,
    close: async () => {
      await queue.close();
    },
  };
}

/**
 * The nonce of each job: an HMAC of its id under a secret kept in the batch folder (mode 0600), so
 * a resumed coordinator expects the same nonces, and nothing in Redis tells it what to expect.
 */
function jobNonces(dir: string): (id: string) => string {
  const file = path.join(dir, QUEUE_SECRET_FILE);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, randomBytes(32).toString('hex'), { flag: 'wx', mode: 0o600 });
  }
  const secret = readFileSync(file, 'utf8').trim();
  return (id) => createHmac('sha256', secret).update(id).digest('hex');
}
