import type { Tracer } from '../types.js';
import { ebpfAvailability, ebpfFollowsCgroupTree, startEbpf } from './engine.js';

/**
 * The ebpf tracer: syscall tracepoints filtered in the kernel on a cgroup v2 made for the run,
 * served by the host's compiled collector (collector/, built at install time), or by bpftrace
 * compiling a script for the run where the collector cannot. Root only; `available()` says what is
 * missing and the command that fixes it.
 */
export const ebpfTracer: Tracer = {
  kind: 'ebpf',
  available: ebpfAvailability,
  start: startEbpf,
  followsCgroupTree: ebpfFollowsCgroupTree,
};
