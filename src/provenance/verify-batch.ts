import { existsSync } from 'node:fs';
import path from 'node:path';
import { NOT_BATCH_ARTIFACTS } from './artifacts.js';
import { BatchManifestSchema } from './batch-manifest.js';
import { sha256File } from './digest.js';
import { MANIFEST_FILE } from './manifest-schema.js';
import { compareArtifacts, readManifestFile, tampered, unusable, verifyRun } from './verify.js';

export type BatchVerification =
  | { status: 'intact'; files: number; runs: number }
  | { status: 'tampered'; file: string; record?: number; reason: string }
  | { status: 'unusable'; reason: string };

/** A batch folder is the one that holds batch.json. */
export function isBatchDir(dir: string): boolean {
  return existsSync(path.join(dir, 'batch.json'));
}

/**
 * Check a batch folder: its own files against its manifest, then each child run's manifest by
 * the sha256 the batch sealed, and each child run in full (verifyRun). Reads only.
 */
export function verifyBatch(batchDir: string): BatchVerification {
  const dir = path.resolve(batchDir);
  const read = readManifestFile(
    path.join(dir, MANIFEST_FILE),
    BatchManifestSchema,
    'batch manifest',
    'the batch has not written its summary yet or predates provenance; resume or re-run it',
  );
  if (!('value' in read)) return read;
  const manifest = read.value;
  const changed = compareArtifacts(dir, manifest.files, NOT_BATCH_ARTIFACTS);
  if (changed) return changed;
  for (const run of manifest.runs) {
    const runManifest = path.join(run.run_dir, MANIFEST_FILE);
    if (run.manifest_sha256 === null) continue;
    if (!existsSync(runManifest)) {
      return tampered(runManifest, `run ${run.run_id} (attempt ${run.index}): ${runManifest} is missing`);
    }
    if (sha256File(runManifest).sha256 !== run.manifest_sha256) {
      return tampered(
        runManifest,
        `run ${run.run_id} (attempt ${run.index}): ${runManifest} differs from the one the batch sealed`,
      );
    }
    const v = verifyRun(run.run_dir);
    if (v.status === 'unusable') return unusable(`run ${run.run_id} (attempt ${run.index}): ${v.reason}`);
    if (v.status === 'tampered') {
      return tampered(
        path.join(run.run_dir, v.file),
        `run ${run.run_id} (attempt ${run.index}): ${v.reason}`,
      );
    }
  }
  return { status: 'intact', files: manifest.files.length, runs: manifest.runs.length };
}
