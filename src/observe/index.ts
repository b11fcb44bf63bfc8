import type { TracerKind } from '../evidence/types.js';
import { ebpfTracer } from './ebpf/index.js';
import { straceTracer } from './strace/index.js';
import type { Tracer } from './types.js';

/** Every tracer by name (besides `off`); the union type makes the compiler demand one per kind. */
export const TRACERS: Record<Exclude<TracerKind, 'off'>, Tracer> = {
  ebpf: ebpfTracer,
  strace: straceTracer,
};
