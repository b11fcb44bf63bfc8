import path from 'node:path';
import { COLLECTOR_PROGRAM } from '../../observe/ebpf/collector/paths.js';

export type SplitCommand = {
  /** strace's argv without its output option and `--`, to run in the guest (with `collector`: its step-down). */
  trace?: string[];
  /** The compiled collector to run in the guest, watching the command's cgroup. */
  collector?: string;
  /** Where the tracer meant to write: the guest's trace port is relayed there. */
  traceFile?: string;
  command: string[];
};

/**
 * Under the microvm sandbox the tracer's wrap comes first (observe-window.ts): the argv is either
 * `strace <options> -o LOG -- <command>` or the in-guest collector's
 * `agentguard-collector -o RAW <strace options> -- <command>` (observe/guest-tracer.ts). The guest runs the tracer itself,
 * outside the inner sandbox, writing to its trace port, which the host writes to the file named,
 * so the tracer reads the file it always does. Any other argv is a plain command.
 */
export function splitTracer(argv: readonly string[]): SplitCommand {
  const program = path.basename(argv[0] ?? '');
  const dashes = argv.indexOf('--');
  const out = argv.indexOf('-o');
  if (dashes < 0 || out < 0 || out > dashes) return { command: [...argv] };
  const traceFile = argv[out + 1];
  const command = argv.slice(dashes + 1);
  if (program === COLLECTOR_PROGRAM && out === 1) {
    const stepDown = argv.slice(3, dashes);
    return {
      collector: argv[0] as string,
      ...(stepDown.length > 0 ? { trace: stepDown } : {}),
      ...(traceFile ? { traceFile } : {}),
      command,
    };
  }
  if (program !== 'strace') return { command: [...argv] };
  const options = argv.slice(0, dashes).filter((_, i) => i !== out && i !== out + 1);
  return {
    trace: options,
    ...(traceFile ? { traceFile } : {}),
    command,
  };
}
