import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * bpftrace 0.17 opens its per-CPU perf buffers with `wakeup_events = 1`, so every record the
 * traced process writes raises an interrupt to wake bpftrace: on these paravirtualised VMs an APIC
 * write that costs the traced process ~8 µs, about 80 % of what tracing one open costs. bpftrace has
 * no setting for it, so a tiny preloaded library rewrites that one field of bpftrace's own
 * perf_event_open call: the buffer then wakes bpftrace once per WAKEUP_EVENTS records. The script
 * then flushes (see `flushProbes` in bpftrace-script.ts): a CPU with unread events sends a batch of
 * filler ticks when it goes idle or at the latest every TICK_MS while busy, and the heartbeat CPU
 * flushes its own ticks, so no event waits longer than that to be read.
 */
export const WAKEUP_EVENTS = 64;
const ENV_NAME = 'AGENTGUARD_PERF_WAKEUP_EVENTS';

const SOURCE = `#define _GNU_SOURCE
#include <dlfcn.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/syscall.h>

/* agentguard: batch bpftrace's perf-buffer wakeups (see wakeup-batching.ts). */
typedef long (*syscall_fn)(long, ...);

long syscall(long number, ...) {
  static syscall_fn real;
  if (!real) real = (syscall_fn)dlsym(RTLD_NEXT, "syscall");
  va_list ap;
  va_start(ap, number);
  long a[6];
  for (int i = 0; i < 6; i++) a[i] = va_arg(ap, long);
  va_end(ap);
  if (number == SYS_perf_event_open && a[0] != 0) {
    struct perf_event_attr *attr = (struct perf_event_attr *)a[0];
    const char *n = getenv("${ENV_NAME}");
    long events = n ? atol(n) : 0;
    if (events > 1 && attr->type == PERF_TYPE_SOFTWARE && attr->config == PERF_COUNT_SW_BPF_OUTPUT) {
      attr->watermark = 0;
      attr->wakeup_events = (unsigned int)events;
    }
  }
  return real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
`;

export type WakeupBatching =
  | { ok: true; env: Record<string, string> }
  | { ok: false; reason: string; fix: string };

let cached: WakeupBatching | undefined;

/**
 * The environment that makes bpftrace batch its wakeups, building the library once per host into
 * `~/.cache/agentguard/native` (beside the agent cache, `~/.cache/agentguard/agents`).
 */
export function wakeupBatching(): WakeupBatching {
  cached ??= buildWakeupBatching(path.join(os.homedir(), '.cache'));
  return cached;
}

/** Builds (or finds) the library under `cacheRoot`; `pathVar` is where `cc` is looked for. */
export function buildWakeupBatching(cacheRoot: string, pathVar = process.env.PATH): WakeupBatching {
  const tag = createHash('sha256').update(SOURCE).digest('hex').slice(0, 12);
  const dir = path.join(cacheRoot, 'agentguard', 'native');
  const library = path.join(dir, `perf-wakeup-batching-${tag}.so`);
  const env = { LD_PRELOAD: library, [ENV_NAME]: String(WAKEUP_EVENTS) };
  if (existsSync(library)) return { ok: true, env };
  const fix = 'apt-get install -y gcc libc6-dev (scripts/install.sh does)';
  try {
    mkdirSync(dir, { recursive: true });
    const source = path.join(dir, `perf-wakeup-batching-${tag}.${process.pid}.c`);
    const partial = `${library}.${process.pid}.tmp`;
    writeFileSync(source, SOURCE);
    try {
      const cc = spawnSync('cc', ['-O2', '-shared', '-fPIC', '-o', partial, source, '-ldl'], {
        encoding: 'utf8',
        timeout: 60_000,
        env: { ...process.env, PATH: pathVar ?? '' },
      });
      if (cc.error || cc.status !== 0) {
        const why = cc.error ? 'no C compiler (cc) found' : `cc failed: ${cc.stderr.trim().split('\n')[0]}`;
        return { ok: false, reason: `${why}, so every record wakes bpftrace (~8 µs each)`, fix };
      }
      renameSync(partial, library);
    } finally {
      rmSync(source, { force: true });
      rmSync(partial, { force: true });
    }
    return { ok: true, env };
  } catch (err) {
    return { ok: false, reason: `could not build the wakeup-batching library in ${dir}: ${err}`, fix };
  }
}
