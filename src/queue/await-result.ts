import type { Job, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { RESULT_MAX_BYTES } from './job.js';

/** Longest failure reason a coordinator loads: a worker's refusal is one sentence. */
export const FAILURE_MAX_BYTES = 64 * 1024;

/** How often a job's state is asked for: from quickly after it is enqueued, backing off to this. */
const POLL_FIRST_MS = 50;
const POLL_MAX_MS = 500;

export type Finished = { ok: true; value: unknown } | { ok: false; reason: string };

/**
 * Wait for a job to finish and read its result, bounded: each field is sized in Redis (HSTRLEN)
 * before it is fetched. BullMQ's QueueEvents reads the queue's whole event stream, every event's
 * return value and failure reason with it, and whoever can write to Redis (any worker) can put a
 * gigabyte there; so the coordinator asks for the job's state instead and loads nothing it has not
 * sized. A result over RESULT_MAX_BYTES (or not JSON) is not a result: `{ok: false}` with why.
 * A failed job throws its reason, as BullMQ's waitUntilFinished does; a job gone from the queue
 * throws too, and so does `signal`.
 */
export async function awaitResult(
  queue: Queue,
  redis: Redis,
  job: Job,
  signal: AbortSignal | undefined,
  redact: (text: string) => string,
): Promise<Finished> {
  const key = queue.toKey(job.id as string);
  for (let wait = POLL_FIRST_MS; ; wait = Math.min(POLL_MAX_MS, Math.round(wait * 1.5))) {
    if (signal?.aborted) throw new Error('interrupted while waiting for the queue');
    const state = await job.getState();
    if (state === 'completed') {
      const size = await redis.hstrlen(key, 'returnvalue');
      if (size > RESULT_MAX_BYTES)
        return {
          ok: false,
          reason: `its result is ${size} bytes in Redis, over the ${RESULT_MAX_BYTES} a coordinator loads, so it was not read`,
        };
      const text = await redis.hget(key, 'returnvalue');
      try {
        return { ok: true, value: JSON.parse(text ?? 'null') };
      } catch {
        return { ok: false, reason: 'its result is not JSON' };
      }
    }
    if (state === 'failed') {
      const size = await redis.hstrlen(key, 'failedReason');
      if (size > FAILURE_MAX_BYTES)
        throw new Error(
          `job ${job.id} failed with a reason of ${size} bytes, over the ${FAILURE_MAX_BYTES} a coordinator loads`,
        );
      throw new Error(redact((await redis.hget(key, 'failedReason')) ?? `job ${job.id} failed`));
    }
    if (state === 'unknown') throw new Error(`job ${job.id} is gone from the queue`);
    await sleep(wait, signal);
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
