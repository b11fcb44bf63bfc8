import path from 'node:path';
import { loadBatchForResume } from '../../batch/run-batch.js';
import { InputError } from '../../errors.js';
import { beginRunSession } from '../../pipeline/run-session.js';
import { type CliIO, type GlobalOptions, runContext } from '../io.js';
import { finishBatch } from './batch-run.js';

/**
 * Run what a batch did not finish. The batch folder is `<output-dir>/batches/<id>`, so the output
 * dir is two levels up: child runs go beside the first ones.
 */
export async function resumeCommand(
  io: CliIO,
  dir: string,
  flags: GlobalOptions & { json?: boolean },
): Promise<number> {
  const abs = path.resolve(dir);
  const plan = loadBatchForResume(abs);
  if (path.basename(abs) !== plan.batch_id)
    throw new InputError(
      `${abs} holds batch ${plan.batch_id} under another name. Fix: move it back to .agentguard/batches/${plan.batch_id}.`,
    );
  const base = runContext(io, { ...flags, outputDir: path.dirname(path.dirname(abs)), quiet: true });
  const ctx = await beginRunSession(base, io.err);
  const quiet = flags.json === true || Boolean(process.env.CI);
  return finishBatch(io, ctx, plan, quiet, flags.json === true);
}
