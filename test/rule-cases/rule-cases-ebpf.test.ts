import { beforeAll, describe, it } from 'vitest';
import type { RunReport } from '../../src/reports/types.js';
import { batchTimeout, cases, has, judgeCase, runCases, title, unsupported } from './run-case.js';

/**
 * Every case under ebpf too (the compiled collector, or bpftrace where another version serves): each
 * behaviour is alerted by both tracers (issue 22). A kernel built without modules has no
 * tracepoints for the module calls; the collector serves them through raw_syscalls.
 */
const ebpfUnsupported = unsupported ?? (has('bpftrace') ? null : 'they need bpftrace');
describe.skipIf(ebpfUnsupported !== null)('rule cases, run under ebpf', () => {
  let reports = new Map<string, RunReport>();
  beforeAll(async () => {
    reports = await runCases('ebpf');
  }, batchTimeout());
  for (const c of cases) it(title(c), () => judgeCase(c, 'ebpf', reports));
});
