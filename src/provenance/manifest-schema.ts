import { z } from 'zod';

/**
 * Bumped when a field is added or changes meaning; a reader refuses a manifest newer than it
 * understands. 2 added `git`.
 */
export const MANIFEST_SCHEMA_VERSION = 2;
/** From this version on a run manifest must carry `git`. */
const GIT_SINCE_VERSION = 2;
export const MANIFEST_FILE = 'manifest.json';
export const TRACE_FILE = 'trace.jsonl';

const sha = z.string().regex(/^[0-9a-f]{64}$/, 'a sha256 in hex');

export const ArtifactSchema = z.strictObject({
  path: z.string().min(1),
  sha256: sha,
  bytes: z.number().int().nonnegative(),
});

/**
 * The batch a run is an attempt of. A queued attempt also names the nonce the coordinator put in its
 * job, the digest of the task bundle it ran and of the whole job (agent, overrides), so its sealed
 * manifest answers that job and no other.
 */
export const BatchRefSchema = z.strictObject({
  id: z.string(),
  attempt: z.number().int().nonnegative(),
  queue: z
    .strictObject({
      nonce: z.string().regex(/^[0-9a-f]{64}$/),
      task_sha256: sha,
      /** The digest of the whole job as the worker ran it (queue/job.ts jobDigest): agent, overrides, task. */
      job_sha256: sha.optional(),
    })
    .optional(),
});
export type BatchRef = z.infer<typeof BatchRefSchema>;

/** The facts of a run: what the seal record of the trace commits to (everything but files and trace). */
export const ManifestFactsSchema = z.strictObject({
  schema_version: z.number().int().positive(),
  kind: z.literal('run'),
  run_id: z.string().min(1),
  /** The batch this run was an attempt of (its parent), or null. */
  batch: BatchRefSchema.nullable(),
  started_at: z.string(),
  finished_at: z.string(),
  sealed_at: z.string(),
  agentguard: z.strictObject({ version: z.string() }),
  /** Absent only in manifests of schema version 1. */
  git: z
    .strictObject({
      /** The agentguard that sealed the run: its checkout's commit, or only its package version. */
      agentguard: z.discriminatedUnion('source', [
        z.strictObject({
          source: z.literal('checkout'),
          version: z.string(),
          commit: z.string().regex(/^[0-9a-f]{40,64}$/, 'a git commit id'),
          /** Tracked files differed from the commit (as `git describe --dirty`). */
          dirty: z.boolean(),
        }),
        z.strictObject({ source: z.literal('package'), version: z.string() }),
      ]),
      /** The task repo's baseline commit the diff was taken against (evidence/diff.json), or null. */
      task_baseline: z.string().nullable(),
    })
    .optional(),
  host: z.strictObject({
    hostname: z.string(),
    kernel: z.string(),
    platform: z.string(),
    arch: z.string(),
    node: z.string(),
  }),
  /** What was in force, as observation.json recorded it (not what the config asked for). */
  observation: z.strictObject({
    sandbox: z.string(),
    sandbox_isolated: z.boolean(),
    tracer: z.string(),
    tracer_requested: z.string(),
    network: z.string(),
    fallbacks: z.array(z.string()),
  }),
  hashes: z.strictObject({
    /** config.json, the resolved snapshot the run was judged by. */
    config_snapshot: sha,
    /** The config file the run was started from, when it is still readable at seal time. */
    config_source: sha.nullable(),
    /** The repo template tree (paths, modes, contents). */
    benchmark_template: sha.nullable(),
    /** evidence/rules.json, the rule texts the run was judged by. */
    rules: sha.nullable(),
  }),
  agent: z.strictObject({
    name: z.string(),
    adapter: z.string(),
    version: z.string().nullable(),
    model: z.string().nullable(),
    /** The agent's command with credentials redacted (src/evidence/redact.ts). */
    argv: z.array(z.string()),
  }),
  verdict: z.strictObject({ result: z.string(), score: z.number() }),
});

export const ManifestSchema = ManifestFactsSchema.extend({
  /** Every artifact of the run folder (see NOT_ARTIFACTS for what is not one), trace.jsonl included. */
  files: z.array(ArtifactSchema),
  trace: z.strictObject({ file: z.literal(TRACE_FILE), records: z.number().int().positive(), head: sha }),
}).superRefine((m, ctx) => {
  if (m.schema_version >= GIT_SINCE_VERSION && m.git === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['git'],
      message: `required from schema_version ${GIT_SINCE_VERSION} on`,
    });
  }
});

export type ManifestFacts = z.infer<typeof ManifestFactsSchema>;
export type Manifest = z.infer<typeof ManifestSchema>;

/** The manifest schema as JSON Schema, for auditors' own tools (docs/provenance.md). */
export function manifestJsonSchema(): unknown {
  return z.toJSONSchema(ManifestSchema);
}
