import type { Tracer } from '../types.js';
import { checkAvailability } from './availability.js';
import { startEbpfSession } from './ebpf-session.js';

/**
 * The ebpf tracer: bpftrace on tracepoints, filtered in the kernel on a cgroup v2 made for the run.
 * Root only; `available()` says what is missing and the command that fixes it.
 */
export const ebpfTracer: Tracer = {
  kind: 'ebpf',
  available: checkAvailability,
  start: startEbpfSession,
};

export { type GeneratedScript, generateScript, type ScriptOptions } from './bpftrace-script.js';
export { wrapInCgroup } from './cgroup-launcher.js';
export { EventAssembler, type RawEvent } from './event-assembler.js';
export { EventNormaliser, openAccess } from './event-normaliser.js';
export { type BpfRecord, type ParsedLine, parseLine } from './record-parser.js';
