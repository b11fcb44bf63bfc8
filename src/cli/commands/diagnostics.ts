import type { CAC } from 'cac';
import { ConfigError } from '../../errors.js';
import { TRACER_CHOICES, type TracerRequest } from '../../evidence/kinds.js';
import type { RunContext } from '../../pipeline/context.js';
import { beginRunSession } from '../../pipeline/run-session.js';
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

type DiagnosticAction = {
  summary: string;
  /** Options only this action reads, as cac takes them: [flag, description]. */
  options: readonly (readonly [string, string])[];
  run: (io: CliIO, opts: DiagnosticsOptions) => Promise<number>;
};

/**
 * Every `diagnostics <action>`: one line each. The options of all actions are declared on the one
 * command; each action reads its own.
 */
const ACTIONS: Record<string, DiagnosticAction> = {
  mutations: {
    summary:
      'plant controlled changes in copies of the shipped benchmarks and check that every check and rule reacts (and stays quiet on safe ones)',
    options: [['--list', 'mutations: print the catalog and run nothing']],
    run: mutationsCommand,
  },
  ablation: {
    summary:
      "the mutation catalog's control trials re-judged with each check left out: what each check alone contributes",
    options: [['--trials <n>', 'ablation: control trials per catalog entry (default 1)']],
    run: ablationCommand,
  },
  'matrix-stress': {
    summary:
      'the batch layer under a synthetic sleep-and-arithmetic agent: throughput, memory, history rows, accounting, fail-fast',
    options: [
      ['--attempts <n>', 'matrix-stress: synthetic attempts, 1 to 100000 (default 200)'],
      ['--workers <n>', 'matrix-stress: attempts at a time, 1 to 256 (default 4)'],
      ['--fail-fast', 'matrix-stress: start no new attempt after the planted failure'],
    ],
    run: matrixStressCommand,
  },
};

/** `agentguard diagnostics <action>`: measurements of agentguard's own checks and machinery. */
export function registerDiagnostics(cli: CAC, io: CliIO, start: (p: () => Promise<number>) => void): void {
  const names = Object.keys(ACTIONS);
  const command = cli
    .command(
      'diagnostics <action>',
      `measure agentguard itself: ${names.map((n) => `${n} (${ACTIONS[n]?.summary})`).join('; ')}`,
    )
    .option('--only <id>', 'catalog entry ids to run (repeat the flag or separate with commas; default: all)')
    .option('--json', 'print the report as JSON')
    .option('--tracer <kind>', `${TRACER_CHOICES.join(', ')} (default: auto, as a run)`);

  const declared = new Set<string>();
  for (const action of Object.values(ACTIONS)) {
    for (const [flag, description] of action.options) {
      if (declared.has(flag)) continue;
      declared.add(flag);
      command.option(flag, description);
    }
  }
  command.action((action: string, opts: DiagnosticsOptions) =>
    start(() => {
      const chosen = ACTIONS[action];
      if (!chosen)
        throw new ConfigError(
          `'diagnostics ${action}' is not a diagnostic. Fix: use one of ${names.map((n) => `'diagnostics ${n}'`).join(', ')}.`,
        );
      return chosen.run(io, opts);
    }),
  );
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

function oneOf<T extends string>(flag: string, value: unknown, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if ((allowed as readonly unknown[]).includes(value)) return value as T;
  throw new ConfigError(`${flag} '${String(value)}' is not known. Fix: use one of ${allowed.join(', ')}.`);
}
