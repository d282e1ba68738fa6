import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globals: true,
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Real servers and child processes: keep parallelism modest on 2-core machines.
    pool: 'forks',
    maxWorkers: 2,
  },
});
