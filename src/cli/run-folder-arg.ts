import { existsSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../errors.js';
import { openHistory } from '../history/db.js';
import { RUN_ID_PATTERN } from '../pipeline/run-id.js';
import { type GlobalOptions, outputDir } from './io.js';

/**
 * A run named the way the CLI printed it: a run folder, or the run id `run` printed
 * (`20261205-142314-a143a39b`), found under the output folder's runs/ or, for a run written
 * elsewhere, in its history (or a batch id, under batches/). Every command that takes a run
 * folder takes an id too.
 */
export function runFolderArg(arg: string, opts: GlobalOptions): string {
  if (existsSync(arg) || !RUN_ID_PATTERN.test(arg)) return arg;
  const out = outputDir(opts);
  const beside = path.join(out, 'runs', arg);
  if (existsSync(beside)) return beside;
  const db = path.join(out, 'history.db');
  if (existsSync(db)) {
    const history = openHistory(db);
    try {
      const row = history.getRun(arg);
      if (row && existsSync(row.run_dir)) return row.run_dir;
    } finally {
      history.close();
    }
  }
  // `trace verify` takes a batch folder too, and a batch id is spelt like a run id.
  const batch = path.join(out, 'batches', arg);
  if (existsSync(batch)) return batch;
  throw new InputError(
    `no run '${arg}' in ${out} (neither runs/${arg} nor its history). Fix: pass the run folder, or --output-dir where the run was written.`,
  );
}

/** A batch named the way the CLI printed it: a batch folder, or its id under the output folder's batches/. */
export function batchFolderArg(arg: string, opts: GlobalOptions): string {
  if (existsSync(arg) || !RUN_ID_PATTERN.test(arg)) return arg;
  const out = outputDir(opts);
  const beside = path.join(out, 'batches', arg);
  if (existsSync(beside)) return beside;
  throw new InputError(
    `no batch '${arg}' in ${out} (no batches/${arg}). Fix: pass the batch folder, or --output-dir where the batch was written.`,
  );
}
