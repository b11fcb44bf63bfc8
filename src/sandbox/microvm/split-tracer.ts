import path from 'node:path';

export type SplitCommand = {
  /** The tracer's argv without its output option and `--`, to run in the guest. */
  trace?: string[];
  /** Where the tracer meant to write: the guest's trace port is relayed there. */
  traceFile?: string;
  command: string[];
};

/**
 * Under the microvm sandbox the tracer's wrap comes first (observe-window.ts): the argv is
 * `strace <options> -o LOG -- <command>`. The guest runs strace itself, outside the inner sandbox,
 * writing to its trace port, which the host writes to LOG, so the strace tracer reads the same file
 * it always does. Any other argv is a plain command.
 */
export function splitTracer(argv: readonly string[]): SplitCommand {
  if (path.basename(argv[0] ?? '') !== 'strace') return { command: [...argv] };
  const dashes = argv.indexOf('--');
  const out = argv.indexOf('-o');
  if (dashes < 0 || out < 0 || out > dashes) return { command: [...argv] };
  const options = argv.slice(0, dashes).filter((_, i) => i !== out && i !== out + 1);
  const traceFile = argv[out + 1];
  return {
    trace: options,
    ...(traceFile ? { traceFile } : {}),
    command: argv.slice(dashes + 1),
  };
}
