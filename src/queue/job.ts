import { createHash } from 'node:crypto';
import { z } from 'zod';
import { AGENT_NAMES } from '../agents/types.js';
import { SANDBOX_KINDS, TRACER_CHOICES } from '../evidence/kinds.js';
import { COLLECTOR_PROTOCOL } from '../observe/ebpf/collector/paths.js';
import { GUARD_MODES } from '../pipeline/live-guard.js';
import { RUN_ID_PATTERN } from '../pipeline/run-id.js';
import { canonicalJson } from '../provenance/digest.js';
import type { Attempt, BatchPlan } from '../reports/batch-types.js';
import { agentguardVersion } from '../version.js';
import { type RegisteredKeys, signatureProblem } from './worker-key.js';

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
  /** Fresh per attempt from the coordinator: the run's sealed manifest must name it (BatchRef.queue). */
  nonce: string;
};

/**
 * A job's data as a worker accepts it: whatever else is in Redis, a job names a known agent kind,
 * known sandbox, tracer and guard values, a task bundle by digest and the nonce to seal.
 */
export const JobDataSchema = z.object({
  schema: z.literal(1),
  batch_id: z.string().min(1).max(200),
  attempt: z.object({
    index: z.number().int().nonnegative(),
    agent: z.discriminatedUnion('kind', [
      z.object({ name: z.string(), kind: z.literal('builtin'), adapter: z.enum(AGENT_NAMES) }),
      z.object({ name: z.string(), kind: z.literal('command'), argv: z.array(z.string()).min(1) }),
      z.object({ name: z.string(), kind: z.literal('profile'), profile: z.string().min(1) }),
    ]),
    task: z.string(),
    config_path: z.string(),
    trial: z.number().int().positive(),
  }),
  task: z.object({
    sha256: z.string().regex(/^[0-9a-f]{64}$/, 'a sha256 in hex'),
    bytes: z.number().int().nonnegative(),
    // Relative to the extracted bundle, and inside it.
    config: z
      .string()
      .min(1)
      .refine(
        (c) => !c.startsWith('/') && c.split('/').every((p) => p !== '..' && p !== ''),
        'a path inside the bundle',
      ),
  }),
  overrides: z.strictObject({
    sandbox: z.enum(SANDBOX_KINDS).optional(),
    tracer: z.enum(TRACER_CHOICES).optional(),
    guard: z.enum(GUARD_MODES as ['off', 'audit', 'enforce']).optional(),
  }),
  nonce: z.string().regex(/^[0-9a-f]{64}$/, "the coordinator's nonce"),
});

/** A job's data as a worker reads it from Redis. */
export type JobData = z.output<typeof JobDataSchema>;

/**
 * The digest of everything a job asks a worker to do — the agent and its trial, the task bundle,
 * the batch's overrides, the batch and nonce — over the job as the worker's schema reads it. The
 * worker seals it in the run's manifest and the coordinator compares it with its own job's: an
 * agent, override or task changed in Redis on the way (another program's command put in place of
 * the agent under test) is a run of another job, not an answer to this one.
 */
export function jobDigest(data: JobData): string {
  return createHash('sha256').update(canonicalJson(data)).digest('hex');
}

/** Largest evidence bundle a coordinator fetches (compressed); a worker's --max-evidence-mb is at most this. */
export const EVIDENCE_MAX_BYTES = 64 * 1024 * 1024;
/** Largest evidence listing once uncompressed: the coordinator stops gunzipping here. */
export const EVIDENCE_EXPANDED_MAX_BYTES = 256 * 1024 * 1024;
/** Files and folders of a run's evidence (a traced run has a few hundred). */
export const EVIDENCE_ENTRIES_MAX = 100_000;
/** A manifest sent in the result itself (when the evidence stays on the worker). */
export const RESULT_MANIFEST_MAX_BYTES = 4 * 1024 * 1024;
/** Largest result a coordinator loads from Redis: the manifest above, escaped as a JSON string, and the row's fields. */
export const RESULT_MAX_BYTES = 3 * RESULT_MANIFEST_MAX_BYTES;

const sha = z.string().regex(/^[0-9a-f]{64}$/, 'a sha256 in hex');

/**
 * What a worker returns, validated as data: the row's fields, where the run is on the worker, the
 * digests the coordinator checks the evidence against, and the worker's signature over all of it.
 */
export const AttemptResultSchema = z.strictObject({
  schema: z.literal(1),
  batch_id: z.string(),
  index: z.number().int().nonnegative(),
  worker: z.strictObject({ host: z.string().max(255), pid: z.number().int() }),
  outcome: z.strictObject({
    run_id: z.string().regex(RUN_ID_PATTERN, 'a run id (YYYYMMDD-HHMMSS-xxxxxxxx)'),
    result: z.enum(['PASS', 'FAIL', 'ERROR']),
    score: z.number().nullable(),
    tests_passed: z.boolean().nullable(),
    failed_checks: z.array(z.string()),
    alerts: z.array(z.string()),
    benchmark_version: z.string().nullable(),
    usage: z
      .strictObject({
        input_tokens: z.number(),
        output_tokens: z.number(),
        cost: z.number().nullable(),
        currency: z.string().nullable(),
      })
      .optional(),
  }),
  /** The run folder on the worker's host: shown, never used as a path here. */
  remote_run_dir: z.string().max(4096),
  report_sha256: sha,
  manifest_sha256: sha,
  /** The run's evidence (without its workspace copies) under evidenceKey(sha256); null when over the limit. */
  evidence: z.strictObject({ sha256: sha, bytes: z.number().int().nonnegative() }).nullable(),
  evidence_too_large: z.number().int().nonnegative().optional(),
  /** manifest.json's text, when the evidence stays on the worker: the coordinator still checks what it names. */
  manifest: z.string().max(RESULT_MANIFEST_MAX_BYTES).optional(),
  /** The id of the worker key that signed the result, and the Ed25519 signature (worker-key.ts). */
  signed_by: z.string(),
  signature: z.string(),
});
export type AttemptResult = z.infer<typeof AttemptResultSchema>;

/**
 * A stable id per attempt: enqueueing the same attempt again (a resumed coordinator) finds the
 * job already there instead of adding a second one. BullMQ refuses ':' in custom ids.
 */
export function jobId(batchId: string, index: number): string {
  return `${batchId.replaceAll(':', '_')}.${index}`;
}

/**
 * Accept a worker's result for `attempt` of `plan`, or say why not, in one sentence: a registered
 * worker must have signed it, it must be a well-formed result, name this batch and an attempt of
 * it, the very attempt its job was, and be the first accepted for that attempt. What its evidence
 * says is checked after (received-evidence.ts).
 */
export function checkResult(
  plan: Pick<BatchPlan, 'batch_id' | 'attempts'>,
  attempt: Attempt,
  value: unknown,
  accepted: ReadonlySet<number>,
  keys: RegisteredKeys,
): { ok: true; result: AttemptResult } | { ok: false; reason: string } {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { ok: false, reason: 'it is not an agentguard attempt result' };
  const unsigned = signatureProblem(value as Record<string, unknown>, keys);
  if (unsigned) return { ok: false, reason: unsigned };
  const parsed = AttemptResultSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      ok: false,
      reason: `it is not an agentguard attempt result: field '${issue?.path.join('.') ?? ''}': ${issue?.message ?? ''}`,
    };
  }
  const r = parsed.data;
  if (r.batch_id !== plan.batch_id) return { ok: false, reason: `it names batch ${r.batch_id}` };
  if (!plan.attempts.some((a) => a.index === r.index))
    return { ok: false, reason: `batch ${plan.batch_id} has no attempt ${r.index}` };
  if (r.index !== attempt.index)
    return { ok: false, reason: `it is for attempt ${r.index}, not ${attempt.index}` };
  if (accepted.has(r.index)) return { ok: false, reason: `attempt ${r.index} already has a result` };
  return { ok: true, result: r };
}
