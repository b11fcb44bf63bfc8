import type { TracerName } from '../evidence/kinds.js';
import { ebpfTracer } from './ebpf/index.js';
import { straceTracer } from './strace/index.js';
import type { Tracer } from './types.js';

/**
 * Every tracer by name (besides `off`); the names, best first, are TRACER_KINDS in
 * evidence/kinds.ts, and the Record type makes the compiler demand one tracer per name.
 */
export const TRACERS: Record<TracerName, Tracer> = {
  ebpf: ebpfTracer,
  strace: straceTracer,
};
