import type { AttemptOutcome } from '../batch/run-batch.js';
import type { Attempt, BatchPlan } from '../batch/types.js';
import { COLLECTOR_PROTOCOL } from '../observe/ebpf/collector/paths.js';
import { agentguardVersion } from '../version.js';

/** The one BullMQ queue every coordinator enqueues into and every worker pulls from. */
export const QUEUE_NAME = 'agentguard-attempts';
/** Redis keys beside BullMQ's own: task bundles and evidence bundles, by sha256. */
export const KEY_PREFIX = 'agentguard';
export const bundleKey = (sha256: string) => `${KEY_PREFIX}:bundle:${sha256}`;
export const evidenceKey = (sha256: string) => `${KEY_PREFIX}:evidence:${sha256}`;

/** What a worker must share with the coordinator to run its jobs the same way. */
export type VersionStamp = { version: string; collector_protocol: string };

export function versionStamp(): VersionStamp {
  return { version: agentguardVersion(), collector_protocol: COLLECTOR_PROTOCOL };
}

/** Null when the worker may run the job; else the versioned reason it refuses it. */
export function versionRefusal(job: VersionStamp, mine: VersionStamp = versionStamp()): string | null {
  if (job.version === mine.version && job.collector_protocol === mine.collector_protocol) return null;
  return (
    `refused by a worker of agentguard ${mine.version} (collector protocol ${mine.collector_protocol}): ` +
    `the job is from agentguard ${job.version} (collector protocol ${job.collector_protocol}). ` +
    'Fix: run workers of the same agentguard version as the coordinator.'
  );
}

/** A job's data: one attempt of one batch, with everything a worker on another host needs. */
export type AttemptJob = {
  schema: 1;
  agentguard: VersionStamp;
  batch_id: string;
  attempt: Attempt;
  /** The task's folders (config, repo template, …) as a tree bundle stored under bundleKey(sha256). */
  task: { sha256: string; bytes: number; config: string };
  /** The batch's --sandbox/--tracer/--guard, applied over the task's config as locally. */
  overrides: Pick<BatchPlan['options'], 'sandbox' | 'tracer' | 'guard'>;
};

/**
 * What a worker returns: the row's fields, where the run is on the worker, and digests the
 * coordinator checks the evidence bundle against before it accepts the result.
 */
export type AttemptResult = {
  schema: 1;
  batch_id: string;
  index: number;
  worker: { host: string; pid: number };
  outcome: Omit<AttemptOutcome, 'run_dir'>;
  /** The run folder on the worker's host. */
  remote_run_dir: string;
  report_sha256: string;
  manifest_sha256: string | null;
  /** The run's evidence (without its workspace copies) under evidenceKey(sha256); null when over the limit. */
  evidence: { sha256: string; bytes: number } | null;
  evidence_too_large?: number;
};

/**
 * A stable id per attempt: enqueueing the same attempt again (a resumed coordinator) finds the
 * job already there instead of adding a second one. BullMQ refuses ':' in custom ids.
 */
export function jobId(batchId: string, index: number): string {
  return `${batchId.replaceAll(':', '_')}.${index}`;
}

/**
 * Accept a worker's result for `attempt` of `plan`, or say why not: it must name this batch and an
 * attempt of it, the very attempt its job was, and be the first accepted for that attempt.
 */
export function checkResult(
  plan: Pick<BatchPlan, 'batch_id' | 'attempts'>,
  attempt: Attempt,
  value: unknown,
  accepted: ReadonlySet<number>,
): { ok: true; result: AttemptResult } | { ok: false; reason: string } {
  const r = value as Partial<AttemptResult> | null;
  if (r === null || typeof r !== 'object' || r.schema !== 1 || typeof r.outcome !== 'object')
    return { ok: false, reason: 'not an agentguard attempt result' };
  if (r.batch_id !== plan.batch_id) return { ok: false, reason: `it names batch ${String(r.batch_id)}` };
  if (typeof r.index !== 'number' || !plan.attempts.some((a) => a.index === r.index))
    return { ok: false, reason: `batch ${plan.batch_id} has no attempt ${String(r.index)}` };
  if (r.index !== attempt.index)
    return { ok: false, reason: `it is for attempt ${r.index}, not ${attempt.index}` };
  if (accepted.has(r.index)) return { ok: false, reason: `attempt ${r.index} already has a result` };
  return { ok: true, result: r as AttemptResult };
}
