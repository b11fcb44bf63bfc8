import { configDefaults, defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/longest-first.js';

/**
 * Tests under src/ that start real system components — a tracer (eBPF, bpftrace, strace), a
 * sandbox (bwrap, a container engine), a real agent CLI or its install, a redis-server — or that run a fuzzing,
 * overhead or benchmark campaign. They are in the full suite (`npm test`), not in the unit tier.
 */
const SYSTEM_TESTS_IN_SRC = [
  'src/observe/ebpf/**/*.test.ts',
  'src/observe/strace/strace-tracer.test.ts',
  'src/sandbox/bwrap*.test.ts',
  'src/sandbox/container*.test.ts',
  'src/agents/**/real-*.test.ts',
  'src/agents/install/**/*.test.ts',
  'src/fuzz/**/*.test.ts',
  'src/overhead/**/*.test.ts',
  'src/bench/**/*.test.ts',
  'src/pipeline/pyproject-script.test.ts',
  'src/queue/chunked-upload.test.ts',
  'src/queue/bounded-read.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Tests spawn real processes (git, bwrap, bpftrace); two cores, so keep parallelism modest.
    maxWorkers: 2,
    // The suite is CPU-bound on two workers: its wall time is its CPU time halved, plus whatever
    // a long file started last runs alone. Longest first keeps that tail to the short unit files;
    // a fresh clone has no timings cached, so the slow files' seconds are written down there.
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        extends: true,
        // The edit-test loop (`npm run test:unit`): pure and in-process tests, no root needed.
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...SYSTEM_TESTS_IN_SRC],
        },
      },
      {
        extends: true,
        test: { name: 'system', include: [...SYSTEM_TESTS_IN_SRC, 'test/**/*.test.ts'] },
      },
    ],
  },
});
