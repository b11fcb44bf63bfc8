import type { TracerName } from '../evidence/kinds.js';
import { lazyTracer } from './lazy-tracer.js';
import type { Tracer } from './types.js';

/**
 * Every tracer by name (besides `off`), each module loaded when that tracer is first asked; the
 * names, best first, are TRACER_KINDS in evidence/kinds.ts, and the Record type makes the compiler
 * demand one tracer per name.
 */
export const TRACERS: Record<TracerName, Tracer> = {
  ebpf: lazyTracer('ebpf', async () => (await import('./ebpf/index.js')).ebpfTracer),
  strace: lazyTracer('strace', async () => (await import('./strace/index.js')).straceTracer),
};
