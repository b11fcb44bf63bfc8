import { existsSync, lstatSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { errorMessage } from '../errors.js';
import { BATCH_RUNS } from '../provenance/artifacts.js';
import { sha256File } from '../provenance/digest.js';
import { MANIFEST_FILE, type Manifest, ManifestSchema } from '../provenance/manifest-schema.js';
import { verifyRun } from '../provenance/verify.js';
import { reportPath } from '../reports/reporters.js';
import { downloadBounded } from './bounded-read.js';
import {
  type AttemptResult,
  EVIDENCE_ENTRIES_MAX,
  EVIDENCE_EXPANDED_MAX_BYTES,
  EVIDENCE_MAX_BYTES,
  evidenceKey,
} from './job.js';
import { extractBundleFile, sha256Of } from './tree-bundle.js';

/** What the coordinator expects a result's sealed manifest to name: facts it holds itself, not the job's copy in Redis. */
export type Expected = {
  batchId: string;
  attempt: number;
  nonce: string;
  taskSha256: string;
  jobSha256: string;
};

/** Thrown with one sentence naming why a result's evidence is not accepted; the attempt becomes an ERROR row. */
export class EvidenceRefused extends Error {}

/**
 * The result's evidence, checked and unpacked as data under `<batch folder>/runs/<run id>` (so one
 * batch's results never land beside another's, nor beside local runs): the run id
 * is a run id (no `/`, no `..`), the bundle is fetched only when Redis says it is within the limit,
 * expanded no further than the limit, holds only files and folders, and is unpacked beside its
 * place and renamed in only once its report and manifest match the signed digests, its seal holds
 * (`trace verify`) and its manifest names this batch, attempt, nonce and task bundle. Returns the
 * run folder, or null when the evidence stayed on the worker (then the manifest in the result is
 * checked instead).
 */
export async function receiveEvidence(
  batchDir: string,
  redis: Redis,
  r: AttemptResult,
  expected: Expected,
): Promise<string | null> {
  const runId = r.outcome.run_id;
  if (r.evidence === null) {
    if (r.manifest === undefined)
      throw new EvidenceRefused(`run ${runId}: neither its evidence nor its manifest came back`);
    if (sha256Of(Buffer.from(r.manifest)) !== r.manifest_sha256)
      throw new EvidenceRefused(`run ${runId}: the manifest sent does not match the signed digest`);
    checkManifest(parseManifest(r.manifest, runId), r, expected);
    return null;
  }
  const runs = path.join(batchDir, BATCH_RUNS);
  mkdirSync(runs, { recursive: true });
  if (lstatSync(runs).isSymbolicLink())
    throw new EvidenceRefused(`${runs} is a link; evidence is not unpacked through it`);
  const runDir = path.join(runs, runId);
  // Already here: a resumed coordinator collecting a job it had unpacked before it stopped. Judged again all the same.
  if (existsSync(runDir)) {
    checkRunFolder(runDir, r, expected);
    return runDir;
  }
  const size = await redis.strlen(evidenceKey(r.evidence.sha256));
  if (size > EVIDENCE_MAX_BYTES)
    throw new EvidenceRefused(
      `run ${runId}: its evidence bundle is ${size} bytes, over the ${EVIDENCE_MAX_BYTES} a coordinator fetches`,
    );
  const tmp = path.join(runs, `.${runId}.${process.pid}.partial`);
  const file = `${tmp}.bundle`;
  rmSync(tmp, { recursive: true, force: true });
  rmSync(file, { force: true });
  try {
    // Streamed to a private file and extracted from it: never held whole, and bounded while read
    // even if the key grows after its size was taken.
    const read = await downloadBounded(redis, evidenceKey(r.evidence.sha256), EVIDENCE_MAX_BYTES, file);
    if (read.kind === 'missing')
      throw new EvidenceRefused(
        `evidence bundle sha256:${r.evidence.sha256} of run ${runId} is gone from Redis`,
      );
    if (read.kind === 'over')
      throw new EvidenceRefused(
        `run ${runId}: its evidence bundle is at least ${read.readBytes} bytes, over the ${EVIDENCE_MAX_BYTES} a coordinator fetches`,
      );
    try {
      await extractBundleFile(file, r.evidence.sha256, tmp, `run ${runId}`, {
        expandedBytes: EVIDENCE_EXPANDED_MAX_BYTES,
        entries: EVIDENCE_ENTRIES_MAX,
        links: false,
      });
    } catch (err) {
      throw new EvidenceRefused(errorMessage(err));
    }
    checkRunFolder(tmp, r, expected);
    renameSync(tmp, runDir);
  } finally {
    rmSync(file, { force: true });
    rmSync(tmp, { recursive: true, force: true });
  }
  await redis.del(evidenceKey(r.evidence.sha256));
  return runDir;
}

function checkRunFolder(dir: string, r: AttemptResult, expected: Expected): void {
  const runId = r.outcome.run_id;
  if (fileSha256(reportPath(dir, 'json')) !== r.report_sha256)
    throw new EvidenceRefused(`run ${runId}: report.json does not match the signed digest`);
  if (fileSha256(path.join(dir, MANIFEST_FILE)) !== r.manifest_sha256)
    throw new EvidenceRefused(`run ${runId}: manifest.json does not match the signed digest`);
  const v = verifyRun(dir);
  if (v.status !== 'intact') throw new EvidenceRefused(`run ${runId}: its seal does not hold (${v.reason})`);
  checkManifest(v.manifest, r, expected);
}

function parseManifest(text: string, runId: string): Manifest {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new EvidenceRefused(`run ${runId}: the manifest sent is not JSON`);
  }
  const parsed = ManifestSchema.safeParse(json);
  if (!parsed.success) throw new EvidenceRefused(`run ${runId}: the manifest sent is not a run manifest`);
  return parsed.data;
}

/**
 * The sealed manifest must be this attempt's answer: a genuine run of another batch, attempt or
 * job (its nonce) or of another task bundle is refused, and so is a verdict other than the row's.
 */
function checkManifest(m: Manifest, r: AttemptResult, e: Expected): void {
  const runId = r.outcome.run_id;
  const b = m.batch;
  const says = (what: string) => {
    throw new EvidenceRefused(
      `run ${runId}: its sealed manifest ${what}, so it is not the answer to this attempt`,
    );
  };
  if (m.run_id !== runId) says(`is of run ${m.run_id}`);
  if (b === null) says('names no batch');
  else if (b.id !== e.batchId || b.attempt !== e.attempt) says(`names attempt ${b.attempt} of batch ${b.id}`);
  else if (b.queue?.nonce !== e.nonce) says('does not name the nonce of this attempt’s job');
  else if (b.queue.task_sha256 !== e.taskSha256)
    says(`ran task bundle sha256:${b.queue.task_sha256}, not the job's sha256:${e.taskSha256}`);
  else if (b.queue.job_sha256 !== e.jobSha256)
    says(
      `ran job sha256:${b.queue.job_sha256 ?? 'unnamed'}, not the job this coordinator enqueued (sha256:${e.jobSha256}): its agent, trial or overrides were changed on the way`,
    );
  if (m.verdict.result !== r.outcome.result)
    says(`says ${m.verdict.result} where the result says ${r.outcome.result}`);
}

/** A regular file's sha256 (read in chunks, never through a link), or null when there is none. */
function fileSha256(file: string): string | null {
  try {
    return lstatSync(file).isFile() ? sha256File(file).sha256 : null;
  } catch {
    return null;
  }
}
