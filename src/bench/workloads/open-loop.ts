import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { SpawnSpec } from '../../exec/types.js';

/**
 * A pathological open-heavy workload: a tiny C program that opens and closes one file COUNT times.
 * Each iteration also does SPIN steps of arithmetic, a fixed amount of work that sets its rate when
 * untraced, so that the tracer's cost per open shows as longer wall time. With RATE > 0 it is paced
 * by the clock instead (every BATCH opens it sleeps until its schedule), to hold an exact event rate.
 * It prints one JSON line: opens performed and failed, wall, user and system time, and the worst lag
 * behind the schedule.
 */
const SOURCE = `#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: open-loop FILE COUNT SPIN RATE BATCH\\n");
    return 2;
  }
  const char *file = argv[1];
  long count = atol(argv[2]);
  long spin = atol(argv[3]);
  double rate = atof(argv[4]);
  long batch = atol(argv[5]) > 0 ? atol(argv[5]) : 1;
  volatile unsigned long long sink = 1;
  long performed = 0, failed = 0;
  long long lag = 0;
  long long start = now_ns();
  for (long i = 0; i < count; i++) {
    if (rate > 0 && i % batch == 0) {
      long long due = start + (long long)((double)i * 1e9 / rate);
      long long t = now_ns();
      if (t < due) {
        struct timespec ts = { due / 1000000000LL, due % 1000000000LL };
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
      } else if (t - due > lag) {
        lag = t - due;
      }
    }
    int fd = open(file, O_RDONLY);
    if (fd < 0) {
      failed++;
    } else {
      performed++;
      close(fd);
    }
    for (long k = 0; k < spin; k++) sink = sink * 6364136223846793005ULL + (unsigned long long)k;
  }
  long long elapsed = now_ns() - start;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("{\\"performed\\":%ld,\\"failed\\":%ld,\\"elapsed_ms\\":%.3f,\\"user_ms\\":%.3f,\\"sys_ms\\":%.3f,\\"max_lag_ms\\":%.3f}\\n",
         performed, failed, elapsed / 1e6, ru.ru_utime.tv_sec * 1e3 + ru.ru_utime.tv_usec / 1e3,
         ru.ru_stime.tv_sec * 1e3 + ru.ru_stime.tv_usec / 1e3, lag / 1e6);
  return failed > 0 ? 1 : 0;
}
`;

/** The file every iteration opens, relative to the loop's cwd (relative paths exercise the tracer's cwd walk). */
export const OPEN_LOOP_TARGET = 'open-loop-target.txt';

export type OpenLoopResult = {
  performed: number;
  failed: number;
  elapsed_ms: number;
  user_ms: number;
  sys_ms: number;
  max_lag_ms: number;
};

export type OpenLoopParams = { count: number; spin: number; rate: number; batch: number };

/** Compiles the loop into `dir` with `cc`; returns the binary's path or the compiler's complaint. */
export function buildOpenLoop(dir: string): { binary: string } | { error: string } {
  const source = path.join(dir, 'open-loop.c');
  const binary = path.join(dir, 'open-loop');
  writeFileSync(source, SOURCE);
  const cc = spawnSync('cc', ['-O2', '-o', binary, source], { encoding: 'utf8' });
  if (cc.error) return { error: `cc is not available (${cc.error.message})` };
  if (cc.status !== 0) return { error: `cc failed: ${cc.stderr.trim().split('\n')[0]}` };
  return { binary };
}

/** The command for one loop run in `workDir` (which must hold OPEN_LOOP_TARGET). */
export function openLoopSpec(binary: string, workDir: string, params: OpenLoopParams): SpawnSpec {
  writeFileSync(path.join(workDir, OPEN_LOOP_TARGET), 'x\n');
  return {
    argv: [
      binary,
      OPEN_LOOP_TARGET,
      String(params.count),
      String(params.spin),
      String(params.rate),
      String(params.batch),
    ],
    cwd: workDir,
    env: { PATH: '/usr/bin:/bin' },
  };
}

export function parseOpenLoopOutput(stdout: string): OpenLoopResult | null {
  const line = stdout.trim().split('\n').pop() ?? '';
  try {
    const value = JSON.parse(line) as OpenLoopResult;
    return typeof value.performed === 'number' ? value : null;
  } catch {
    return null;
  }
}

/**
 * The SPIN that makes one untraced iteration cost about `targetUs` microseconds of CPU on this host:
 * the median of a few short runs, measured directly (no sandbox, no tracer).
 */
export function calibrateSpin(binary: string, workDir: string, targetUs: number): number {
  const perIterationUs = (spin: number, count: number): number => {
    const samples: number[] = [];
    for (let i = 0; i < 3; i++) {
      const spec = openLoopSpec(binary, workDir, { count, spin, rate: 0, batch: 1 });
      const r = spawnSync(spec.argv[0] as string, spec.argv.slice(1), { cwd: workDir, encoding: 'utf8' });
      const out = parseOpenLoopOutput(r.stdout);
      // CPU time, not wall time: other work on the host must not change how much work is set.
      if (out) samples.push(((out.user_ms + out.sys_ms) * 1000) / count);
    }
    samples.sort((a, b) => a - b);
    return samples[Math.floor(samples.length / 2)] ?? 0;
  };
  const probeSpin = 10_000;
  const bare = perIterationUs(0, 20_000);
  const withSpin = perIterationUs(probeSpin, 5_000);
  const usPerSpin = Math.max(1e-6, (withSpin - bare) / probeSpin);
  return Math.max(0, Math.round((targetUs - bare) / usPerSpin));
}
