import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Tests spawn real processes (git, bwrap, bpftrace); two cores, so keep parallelism modest.
    maxWorkers: 2,
  },
});
