import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The suite builds a tiny dataset once and shares it; DuckDB uses the cores itself.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // Vitest's default on 2 cores is one file at a time; most of the suite's time is spent waiting on
    // servers, workers, Redis, PostgreSQL and Chromium, so three files at once cut the wall time.
    maxWorkers: 3,
  },
});
