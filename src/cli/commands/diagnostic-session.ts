import type { TracerRequest } from '../../evidence/kinds.js';
import { TRACER_CHOICES } from '../../evidence/kinds.js';
import type { RunContext } from '../../pipeline/context.js';
import { beginRunSession } from '../../pipeline/run-session.js';
import { oneOf } from '../flags.js';
import type { CliIO, GlobalOptions } from '../io.js';
import { runContext } from '../io.js';

export type DiagnosticsOptions = GlobalOptions & {
  only?: string | string[];
  trials?: string | number;
  json?: boolean;
  list?: boolean;
  tracer?: string;
  [option: string]: unknown;
};

/** --only as given: repeated flags and comma-separated lists, empty entries dropped. */
export function onlyIds(only: DiagnosticsOptions['only']): string[] {
  if (only === undefined) return [];
  const values = Array.isArray(only) ? only : [only];
  return values
    .flatMap((v) => String(v).split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/** The shared setup of a diagnostic that runs the pipeline: --tracer checked, the session begun. */
export async function diagnosticSession(
  io: CliIO,
  opts: DiagnosticsOptions,
): Promise<{ session: RunContext; tracer: TracerRequest | undefined }> {
  const tracer = oneOf('--tracer', opts.tracer, TRACER_CHOICES);
  const ctx = runContext(io, { ...opts, quiet: opts.quiet || opts.json === true });
  const session = await beginRunSession(ctx, io.err);
  return { session, tracer };
}
