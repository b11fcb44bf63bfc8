import type { TracerRequest } from '../evidence/kinds.js';
import { ENGINE_ENV } from '../observe/ebpf/collector/paths.js';
import { collectorAvailability, ebpfAvailability } from '../observe/ebpf/engine.js';
import { TRACERS } from '../observe/index.js';

/**
 * How a run is observed, as the overhead command compares them: not at all (`tracer: off`, which
 * every report marks "not traced"), the ebpf tracer through its compiled collector or through
 * bpftrace, or strace. Off first: it is the baseline the others are measured against.
 */
export const OVERHEAD_MODES = ['off', 'collector', 'bpftrace', 'strace'] as const;
export type OverheadMode = (typeof OVERHEAD_MODES)[number];

/** The run's --tracer and the ebpf engine (AGENTGUARD_EBPF_ENGINE) of each mode. */
export const MODE_TRACER: Record<OverheadMode, { tracer: TracerRequest; engine?: 'collector' | 'bpftrace' }> =
  {
    off: { tracer: 'off' },
    collector: { tracer: 'ebpf', engine: 'collector' },
    bpftrace: { tracer: 'ebpf', engine: 'bpftrace' },
    strace: { tracer: 'strace' },
  };

export type ModeAvailability =
  | { mode: OverheadMode; ok: true }
  | { mode: OverheadMode; ok: false; reason: string };

/** Whether each mode can run here, asked the way `doctor` and the run itself ask. */
export async function modeAvailability(mode: OverheadMode): Promise<ModeAvailability> {
  const answer =
    mode === 'off'
      ? { ok: true as const }
      : mode === 'collector'
        ? await collectorAvailability()
        : mode === 'bpftrace'
          ? await withEngine('bpftrace', ebpfAvailability)
          : await TRACERS.strace.available();
  return answer.ok
    ? { mode, ok: true }
    : { mode, ok: false, reason: `${answer.reason} (fix: ${answer.fix})` };
}

/**
 * Run `fn` with the ebpf engine pinned, the way the batch bench does: the engine is read from the
 * environment when the tracer starts. Runs are sequential here, so nothing else sees the change.
 */
export async function withEngine<T>(engine: string | undefined, fn: () => Promise<T>): Promise<T> {
  const before = process.env[ENGINE_ENV];
  if (engine === undefined) delete process.env[ENGINE_ENV];
  else process.env[ENGINE_ENV] = engine;
  try {
    return await fn();
  } finally {
    if (before === undefined) delete process.env[ENGINE_ENV];
    else process.env[ENGINE_ENV] = before;
  }
}
