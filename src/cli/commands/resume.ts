import path from 'node:path';
import { checkResumeSource, resumeTarget } from '../../batch/resume-plan.js';
import { ConfigError } from '../../errors.js';
import { beginRunSession } from '../../pipeline/run-session.js';
import type { BatchKind } from '../../reports/batch-types.js';
import { type CliIO, type GlobalOptions, outputDir, runContext } from '../io.js';
import { type BatchFlags, finishBatch, quietProgress } from './batch-run.js';
import { type QueueFlags, queueWork } from './queue-work.js';

/**
 * Run what a batch did not finish. The batch folder is `<output-dir>/batches/<id>`, so the output
 * dir is two levels up: child runs go beside the first ones.
 */
export async function resumeCommand(
  io: CliIO,
  dir: string,
  flags: GlobalOptions & { json?: boolean; saveBaseline?: string } & QueueFlags,
): Promise<number> {
  const target = resumeTarget(dir, outputDir(flags));
  return resumeBatch(io, target.dir, target.plan, flags);
}

async function resumeBatch(
  io: CliIO,
  dir: string,
  plan: Parameters<typeof finishBatch>[2],
  flags: GlobalOptions & { json?: boolean; saveBaseline?: string } & QueueFlags,
): Promise<number> {
  // A batch started with --queue re-attaches to it: its jobs keep their ids, so finished ones are
  // collected, not run again.
  const remote =
    flags.queue !== undefined ? await queueWork(io, { ...flags, queue: flags.queue }) : undefined;
  const base = runContext(io, { ...flags, outputDir: path.dirname(path.dirname(dir)), quiet: true });
  const ctx = await beginRunSession(base, io.err);
  return finishBatch(io, ctx, plan, quietProgress(flags.json === true), flags.json === true, {
    ...(remote ? { remote } : {}),
    ...(flags.saveBaseline !== undefined ? { saveBaseline: path.resolve(String(flags.saveBaseline)) } : {}),
  });
}

/** Flags that would change what a batch runs or how: its plan already fixed them. */
const PLAN_FLAGS = [
  ['trials', '--trials'],
  ['workers', '--workers'],
  ['failFast', '--fail-fast'],
  ['sandbox', '--sandbox'],
  ['tracer', '--tracer'],
  ['guard', '--guard'],
  ['allowBelowFloor', '--allow-below-floor'],
  ['agents', '--agents'],
  ['category', '--category'],
  ['difficulty', '--difficulty'],
  ['tag', '--tag'],
  ['baseline', '--baseline'],
  ['allowVersionMismatch', '--allow-version-mismatch'],
] as const;

/**
 * `agentguard matrix m.yaml --resume BATCH` (and suite, benchmark): resume BATCH like
 * `agentguard resume`, after checking that it is a batch of this kind started from this file.
 */
export async function resumeFromFlag(
  io: CliIO,
  kind: BatchKind,
  file: string,
  flags: BatchFlags & Record<string, unknown> & { resume: string },
): Promise<number> {
  const given = PLAN_FLAGS.find(([key]) => flags[key] !== undefined && flags[key] !== false);
  if (given)
    throw new ConfigError(
      `${given[1]} cannot be used with --resume: the batch runs with the options it was started with. Fix: drop ${given[1]}, or start a new batch without --resume.`,
    );
  const target = resumeTarget(String(flags.resume), outputDir(flags));
  checkResumeSource(target.dir, target.plan, kind, file);
  return resumeBatch(io, target.dir, target.plan, flags);
}
