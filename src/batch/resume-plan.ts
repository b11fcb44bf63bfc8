import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, errorMessage, InputError } from '../errors.js';
import { fileSha256, treeSha256 } from '../provenance/tree-hashes.js';
import type { BatchKind, BatchPlan } from '../reports/batch-types.js';
import { BATCH_FILES } from './run-batch.js';

/*
 * Resuming a batch: find its folder, read its plan back, and refuse when anything it was planned
 * from has changed since (content hashes) or, for `--resume` on benchmark/suite/matrix, when the
 * command line names another batch file than the one the batch was started from.
 */

/** Read batch.json back and refuse when anything it was planned from has changed since. */
export function loadBatchForResume(dir: string): BatchPlan {
  const file = path.join(dir, BATCH_FILES.plan);
  if (!existsSync(file))
    throw new InputError(
      `${dir} has no ${BATCH_FILES.plan}, so it is not a batch. Fix: pass a folder under .agentguard/batches/, or a batch id found there.`,
    );
  let plan: BatchPlan;
  try {
    plan = JSON.parse(readFileSync(file, 'utf8')) as BatchPlan;
  } catch (err) {
    throw new InputError(`${file} is not valid JSON (${errorMessage(err)}). Fix: start the batch again.`);
  }
  if (plan.schema_version !== 1 || !Array.isArray(plan.attempts))
    throw new InputError(`${file} is not a batch plan this version can resume. Fix: start the batch again.`);
  const changed = (what: string, p: string) =>
    new ConfigError(
      `cannot resume ${dir}: ${what} ${p} changed since the batch started, so old and new attempts would not be comparable. Fix: restore it, or start a new batch.`,
    );
  const hash = (f: (p: string) => string, p: string) => {
    try {
      return f(p);
    } catch {
      return 'missing';
    }
  };
  if (plan.source && hash(fileSha256, plan.source.file) !== plan.source.sha256)
    throw changed('the batch file', plan.source.file);
  for (const [p, sha] of Object.entries(plan.hashes.configs))
    if (hash(fileSha256, p) !== sha) throw changed('the task config', p);
  for (const [p, sha] of Object.entries(plan.hashes.repos))
    if (hash(treeSha256, p) !== sha) throw changed('the repo template', p);
  return plan;
}

/**
 * The batch folder `--resume` names: a folder holding batch.json, or a batch id under
 * `<outputDir>/batches/`. Checks that the folder still carries its batch's name, because the
 * output dir is found from it (two levels up).
 */
export function resumeTarget(value: string, outputDir: string): { dir: string; plan: BatchPlan } {
  const asDir = path.resolve(value);
  const byId = path.join(outputDir, 'batches', value);
  const dir =
    existsSync(path.join(asDir, BATCH_FILES.plan)) || value.includes('/') || !existsSync(byId) ? asDir : byId;
  const plan = loadBatchForResume(dir);
  if (path.basename(dir) !== plan.batch_id)
    throw new InputError(
      `${dir} holds batch ${plan.batch_id} under another name. Fix: move it back to .agentguard/batches/${plan.batch_id}.`,
    );
  return { dir, plan };
}

/**
 * `agentguard KIND FILE --resume BATCH`: the batch must be of that kind and started from that file
 * (for a benchmark, that single task config); otherwise the user would resume one batch believing
 * it was another.
 */
export function checkResumeSource(dir: string, plan: BatchPlan, kind: BatchKind, file: string): void {
  const given = path.resolve(file);
  if (plan.kind !== kind)
    throw new ConfigError(
      `--resume ${dir}: that batch is a ${plan.kind}, not a ${kind}. Fix: ${plan.kind === 'trials' ? '' : `run 'agentguard ${plan.kind} … --resume', or `}'agentguard resume ${dir}'.`,
    );
  const started =
    plan.source?.file ??
    (Object.keys(plan.hashes.configs).length === 1 ? Object.keys(plan.hashes.configs)[0] : null);
  if (started !== given)
    throw new ConfigError(
      `--resume ${dir}: the batch was started from ${started ?? 'other task configs'}, not ${given}. Fix: pass ${started ?? 'that file'}, or 'agentguard resume ${dir}'.`,
    );
}
