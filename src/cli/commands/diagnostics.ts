import { ConfigError } from '../../errors.js';
import { TRACER_CHOICES, type TracerRequest } from '../../evidence/kinds.js';
import type { RunContext } from '../../pipeline/context.js';
import { beginRunSession } from '../../pipeline/run-session.js';
import { oneOf } from '../flags.js';
import type { CliIO, GlobalOptions } from '../io.js';
import { outputDir, runContext } from '../io.js';
import { checkOutputDir } from '../output-dir.js';
import { ablationCommand } from './diagnostics-ablation.js';
import { mutationsCommand } from './diagnostics-mutations.js';
import { matrixStressCommand } from './matrix-stress.js';

export type DiagnosticsOptions = GlobalOptions & {
  only?: string | string[];
  trials?: string | number;
  json?: boolean;
  list?: boolean;
  tracer?: string;
  [option: string]: unknown;
};

/** Every `diagnostics <action>`; the registry (src/cli/registry/host.ts) holds their help and flags. */
const ACTIONS: Record<string, (io: CliIO, opts: DiagnosticsOptions) => Promise<number>> = {
  mutations: mutationsCommand,
  ablation: ablationCommand,
  'matrix-stress': matrixStressCommand,
};

/** `agentguard diagnostics <action>`: measurements of agentguard's own checks and machinery. */
export function diagnosticsCommand(io: CliIO, action: string, opts: DiagnosticsOptions): Promise<number> {
  const chosen = ACTIONS[action];
  if (!chosen)
    throw new ConfigError(
      `'diagnostics ${action}' is not a diagnostic. Fix: use one of ${Object.keys(ACTIONS)
        .map((n) => `'diagnostics ${n}'`)
        .join(', ')}.`,
    );
  return chosen(io, opts);
}

/** --only as given: repeated flags and comma-separated lists, empty entries dropped. */
export function onlyIds(only: DiagnosticsOptions['only']): string[] {
  if (only === undefined) return [];
  const values = Array.isArray(only) ? only : [only];
  return values
    .flatMap((v) => String(v).split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/** The shared setup of a diagnostic that runs the pipeline: flags checked, output folder, session. */
export async function diagnosticSession(
  io: CliIO,
  opts: DiagnosticsOptions,
): Promise<{ session: RunContext; tracer: TracerRequest | undefined }> {
  const tracer = oneOf('--tracer', opts.tracer, TRACER_CHOICES);
  checkOutputDir(outputDir(opts), opts.outputDir !== undefined);
  const ctx = runContext(io, { ...opts, quiet: opts.quiet || opts.json === true });
  const session = await beginRunSession(ctx, io.err);
  return { session, tracer };
}
