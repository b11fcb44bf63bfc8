import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { type Job, Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { type AttemptWorker, batchDir } from '../batch/run-batch.js';
import type { BatchPlan } from '../batch/types.js';
import { loadConfigOrThrow } from '../config/load.js';
import { errorMessage } from '../errors.js';
import { appendJsonl } from '../evidence/write.js';
import type { RunContext } from '../pipeline/context.js';
import { MANIFEST_FILE } from '../provenance/manifest-schema.js';
import { reportPath } from '../reports/reporters.js';
import {
  type AttemptJob,
  type AttemptResult,
  bundleKey,
  checkResult,
  evidenceKey,
  jobId,
  QUEUE_NAME,
  versionStamp,
} from './job.js';
import { type RedisTarget, redactIn } from './redis-url.js';
import { checkQueueAgent, taskBundle } from './task-bundle.js';
import { extractBundle, sha256Of } from './tree-bundle.js';

/** Task bundles and finished jobs outlive any batch that might resume within a week; Redis frees them after. */
const BUNDLE_TTL_S = 7 * 24 * 3600;
/** Where the coordinator notes which worker ran each attempt: beside the checkpoint. */
export const QUEUE_RESULTS_FILE = 'queue-results.jsonl';

export type QueueCoordinator = { worker: AttemptWorker; close: () => Promise<void> };

/**
 * The batch's per-attempt work, done by queue workers: enqueue the attempt as a job with a stable
 * id (a job already there — a resumed coordinator — is waited for, not added again), wait for its
 * result, check it names this attempt and that its evidence matches its digests, and unpack the
 * evidence into this output folder so the summaries, similarity and seal read it as a local run's.
 * Everything else (order, limits, checkpoint, summaries, history) stays runBatch's.
 */
export async function queueCoordinator(
  ctx: RunContext,
  plan: BatchPlan,
  redis: Redis,
  target: RedisTarget,
  warn: (line: string) => void,
): Promise<QueueCoordinator> {
  for (const a of plan.attempts) checkQueueAgent(a.agent);
  const queue = new Queue<AttemptJob, AttemptResult>(QUEUE_NAME, { connection: redis });
  const events = new QueueEvents(QUEUE_NAME, { connection: redis.duplicate() });
  // Every attempt waited for holds one listener on each until its job finishes: as many as the
  // batch's in-flight attempts, by design, not a leak.
  queue.setMaxListeners(0);
  events.setMaxListeners(0);
  await events.waitUntilReady();
  const bundles = new Map<string, Promise<AttemptJob['task']>>();
  const accepted = new Set<number>();
  const stamp = versionStamp();
  const resultsFile = path.join(batchDir(ctx, plan.batch_id), QUEUE_RESULTS_FILE);

  const uploadTask = (configPath: string) => {
    let p = bundles.get(configPath);
    if (!p) {
      p = (async () => {
        const b = taskBundle(loadConfigOrThrow(configPath));
        // NX: the bytes under a digest never change, so a second coordinator's upload is a no-op.
        await redis.set(bundleKey(b.sha256), b.bytes, 'EX', BUNDLE_TTL_S, 'NX');
        await redis.expire(bundleKey(b.sha256), BUNDLE_TTL_S);
        return { sha256: b.sha256, bytes: b.bytes.length, config: b.config };
      })();
      bundles.set(configPath, p);
    }
    return p;
  };

  const worker: AttemptWorker = async (attempt, batchId) => {
    const data: AttemptJob = {
      schema: 1,
      agentguard: stamp,
      batch_id: batchId,
      attempt,
      task: await uploadTask(attempt.config_path),
      overrides: {
        ...(plan.options.sandbox ? { sandbox: plan.options.sandbox } : {}),
        ...(plan.options.tracer ? { tracer: plan.options.tracer } : {}),
        ...(plan.options.guard ? { guard: plan.options.guard } : {}),
      },
    };
    const id = jobId(batchId, attempt.index);
    // A stable id: BullMQ returns the job already there instead of adding a second one.
    let job: Job<AttemptJob, AttemptResult> = await queue.add('attempt', data, {
      jobId: id,
      // Kept as long as the task bundles: a coordinator resumed within the week collects them.
      removeOnComplete: { age: BUNDLE_TTL_S },
      removeOnFail: { age: BUNDLE_TTL_S },
    });
    // Resuming a batch whose job failed (its worker refused it, its setup failed): run it again.
    if ((await job.getState()) === 'failed') {
      await job.retry('failed');
      job = (await queue.getJob(id)) ?? job;
    }
    const value = await untilFinished(job, events, ctx.signal);
    const checked = checkResult(plan, attempt, value, accepted);
    if (!checked.ok) {
      const line = `queue: rejected a result from job ${id}: ${checked.reason}`;
      warn(line);
      throw new Error(line);
    }
    const r = checked.result;
    const runDir = await receiveEvidence(ctx, redis, r);
    accepted.add(attempt.index);
    appendJsonl(resultsFile, {
      index: r.index,
      job_id: id,
      worker: r.worker,
      remote_run_dir: r.remote_run_dir,
      report_sha256: r.report_sha256,
      manifest_sha256: r.manifest_sha256,
      evidence: r.evidence,
      ...(r.evidence_too_large !== undefined ? { evidence_too_large: r.evidence_too_large } : {}),
    });
    return { ...r.outcome, run_dir: runDir };
  };

  return {
    worker,
    close: async () => {
      await events.close();
      await queue.close();
    },
  };

  async function untilFinished(
    job: Job<AttemptJob, AttemptResult>,
    ev: QueueEvents,
    signal: AbortSignal | undefined,
  ): Promise<unknown> {
    if (!signal) return job.waitUntilFinished(ev);
    let onAbort = () => {};
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(new Error('interrupted while waiting for the queue'));
      signal.addEventListener('abort', onAbort, { once: true });
      if (signal.aborted) onAbort();
    });
    try {
      return await Promise.race([
        job.waitUntilFinished(ev).catch((err: unknown) => {
          throw new Error(redactIn(errorMessage(err), target));
        }),
        aborted,
      ]);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }
}

/**
 * The worker's evidence unpacked under this output folder's runs/, checked against the digests the
 * worker sent; the local run folder, or null when the evidence stayed on the worker (over the size
 * limit) and the row points nowhere here.
 */
async function receiveEvidence(ctx: RunContext, redis: Redis, r: AttemptResult): Promise<string | null> {
  if (r.evidence === null || r.outcome.run_id === null) return null;
  const runDir = path.join(ctx.outputDir, 'runs', r.outcome.run_id);
  // Already here: a resumed coordinator collecting a job it had unpacked before it was stopped.
  if (!existsSync(runDir)) {
    const bytes = await redis.getBuffer(evidenceKey(r.evidence.sha256));
    if (bytes === null)
      throw new Error(
        `evidence bundle sha256:${r.evidence.sha256} of run ${r.outcome.run_id} is gone from Redis`,
      );
    mkdirSync(path.dirname(runDir), { recursive: true });
    extractBundle(bytes, r.evidence.sha256, runDir, `run ${r.outcome.run_id}`);
  }
  const report = sha256Of(readFileSync(reportPath(runDir, 'json')));
  if (report !== r.report_sha256)
    throw new Error(
      `run ${r.outcome.run_id}: report.json is sha256:${report}, the worker said ${r.report_sha256}`,
    );
  const manifestFile = path.join(runDir, MANIFEST_FILE);
  const manifest = existsSync(manifestFile) ? sha256Of(readFileSync(manifestFile)) : null;
  if (manifest !== r.manifest_sha256)
    throw new Error(`run ${r.outcome.run_id}: manifest.json does not match the worker's digest`);
  await redis.del(evidenceKey(r.evidence.sha256));
  return runDir;
}
