import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../evidence/write.js';
import { agentguardVersion } from '../version.js';
import { NOT_BATCH_ARTIFACTS, walkArtifacts } from './artifacts.js';
import { sha256File } from './digest.js';
import { ArtifactSchema, MANIFEST_FILE, MANIFEST_SCHEMA_VERSION } from './manifest-schema.js';

const sha = z.string().regex(/^[0-9a-f]{64}$/);

/** A batch's manifest: its own files, and each child run by its manifest's sha256 and trace head. */
export const BatchManifestSchema = z.strictObject({
  schema_version: z.number().int().positive(),
  kind: z.literal('batch'),
  batch_id: z.string().min(1),
  batch_kind: z.string(),
  sealed_at: z.string(),
  agentguard: z.strictObject({ version: z.string() }),
  host: z.strictObject({ hostname: z.string(), kernel: z.string() }),
  files: z.array(ArtifactSchema),
  runs: z.array(
    z.strictObject({
      index: z.number().int().nonnegative(),
      run_id: z.string(),
      run_dir: z.string(),
      manifest_sha256: sha.nullable(),
      trace_head: sha.nullable(),
    }),
  ),
});
export type BatchManifest = z.infer<typeof BatchManifestSchema>;

type ChildRow = { index: number; run_id: string | null; run_dir: string | null };

/**
 * Seal a batch folder after its summaries: batch.json, checkpoint.jsonl and the summaries by
 * sha256, and each attempt's run by the sha256 of its manifest and its trace head (the parent
 * commits to its children). Written again when a resumed batch writes its summaries again.
 */
export function sealBatch(
  batchDir: string,
  batch: { batch_id: string; kind: string },
  rows: readonly ChildRow[],
  now: Date,
): string {
  const { files } = walkArtifacts(batchDir, NOT_BATCH_ARTIFACTS);
  const runs = rows
    .filter(
      (r): r is ChildRow & { run_id: string; run_dir: string } => r.run_id !== null && r.run_dir !== null,
    )
    .map((r) => {
      const manifestFile = path.join(r.run_dir, MANIFEST_FILE);
      const sealed = existsSync(manifestFile);
      let head: string | null = null;
      if (sealed) {
        try {
          head =
            (JSON.parse(readFileSync(manifestFile, 'utf8')) as { trace?: { head?: string } }).trace?.head ??
            null;
        } catch {
          head = null;
        }
      }
      return {
        index: r.index,
        run_id: r.run_id,
        run_dir: r.run_dir,
        manifest_sha256: sealed ? sha256File(manifestFile).sha256 : null,
        trace_head: head,
      };
    });
  const manifest: BatchManifest = {
    schema_version: MANIFEST_SCHEMA_VERSION,
    kind: 'batch',
    batch_id: batch.batch_id,
    batch_kind: batch.kind,
    sealed_at: now.toISOString(),
    agentguard: { version: agentguardVersion() },
    host: { hostname: os.hostname(), kernel: os.release() },
    files,
    runs,
  };
  const file = path.join(batchDir, MANIFEST_FILE);
  writeFileAtomic(file, `${JSON.stringify(manifest, null, 2)}\n`);
  return file;
}
