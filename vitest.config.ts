import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Integration tests start real PostgreSQL servers and pgbench; on a 2-core runner more than two
    // files at once only makes every run slower and noisier.
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 600_000,
  },
});
