import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // dist/ built from the sources under test first (test/support/build-dist.ts).
    globalSetup: ['test/support/build-dist.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two test files at once, even on 2 cores (vitest's default there is one): most of a file's
    // time is spent waiting on the simulator, Redis or PostgreSQL, so the suite takes ~0.6x as long.
    // Each file makes its own Redis prefix, PostgreSQL database and ports.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
