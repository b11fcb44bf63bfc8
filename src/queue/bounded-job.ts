import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import { InternalError } from '../errors.js';

/*
 * BullMQ hands a worker its next job by a Lua script that ends in HGETALL of the job's hash: the
 * whole hash, whatever its size, comes into the worker's memory before any of our code sees it.
 * Whoever can write to Redis (any worker, anyone with the password) can make that hash a gigabyte.
 * So the two scripts that fetch a job (moveToActive, and moveToFinished, which fetches the next)
 * are defined on the worker's connection first, with that HGETALL bounded inside Redis: a job whose
 * hash is over the limit comes back with its data replaced by a note of its size, and the worker
 * refuses it naming the limit without ever holding it. BullMQ defines a script only when the
 * connection does not have it yet, so ours are the ones it runs.
 */

/** Largest job hash (all fields and values) a worker loads: a job is a few kilobytes. */
export const JOB_MAX_BYTES = 1024 * 1024;
/** The field a bounded job's data carries instead, with the hash's size. */
export const OVERSIZED_FIELD = 'agentguard_oversized_bytes';
/** A field of an oversized job kept as is when it is this small (name, opts, timestamps, ids). */
const KEPT_FIELD_MAX = 4096;

const require = createRequire(import.meta.url);
type RawScript = { name: string; content: string; keys: number };
const FETCH = 'return {rcall("HGETALL", jobKey), jobId, 0, 0} -- get job data';
const BOUNDED = 'return {agentguardBoundedJob(jobKey), jobId, 0, 0} -- get job data, bounded';

const boundedJob = `local function agentguardBoundedJob(jobKey)
  local fields = redis.call("HKEYS", jobKey)
  local total = 0
  for _, f in ipairs(fields) do total = total + #f + redis.call("HSTRLEN", jobKey, f) end
  if total <= ${JOB_MAX_BYTES} then return redis.call("HGETALL", jobKey) end
  local out = {}
  for _, f in ipairs(fields) do
    if f ~= "data" and #f <= 64 and redis.call("HSTRLEN", jobKey, f) <= ${KEPT_FIELD_MAX} then
      table.insert(out, f)
      table.insert(out, redis.call("HGET", jobKey, f))
    end
  end
  table.insert(out, "data")
  table.insert(out, '{"${OVERSIZED_FIELD}":' .. total .. '}')
  return out
end
`;

/**
 * The job-fetching scripts, bounded, keyed as BullMQ names them on a connection (`name:version`),
 * in the shape of ioredis's `scripts` option. Throws if this BullMQ's scripts no longer fetch a job
 * the way we bound, rather than run unbounded.
 */
function boundedScripts(): Record<string, { lua: string; numberOfKeys: number }> {
  const { version } = require('bullmq/dist/cjs/version.js') as { version: string };
  const scripts = require('bullmq/dist/cjs/scripts/index.js') as Record<string, RawScript>;
  const out: Record<string, { lua: string; numberOfKeys: number }> = {};
  for (const name of ['moveToActive', 'moveToFinished']) {
    const s = scripts[name];
    if (s?.content.split(FETCH).length !== 2)
      throw new InternalError(
        `BullMQ ${version}'s ${name} script does not fetch a job as agentguard bounds it. Fix: install the BullMQ version in package-lock.json.`,
      );
    out[`${s.name}:${version}`] = {
      lua: boundedJob + s.content.replace(FETCH, BOUNDED),
      numberOfKeys: s.keys,
    };
  }
  return out;
}

/** A connection for a BullMQ Worker on which every job it fetches is bounded to JOB_MAX_BYTES inside Redis. */
export function boundedWorkerConnection(redis: Redis): Redis {
  // As an option, not defineCommand: a duplicate BullMQ makes of this connection has them too.
  return redis.duplicate({ scripts: boundedScripts() });
}

/** The size a bounded fetch noted instead of the job's data, or null for a job within the limit. */
export function oversizedJob(data: unknown): number | null {
  if (data === null || typeof data !== 'object') return null;
  const n = (data as Record<string, unknown>)[OVERSIZED_FIELD];
  return typeof n === 'number' ? n : null;
}
