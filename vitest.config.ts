import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The files that drive headless Chromium or start the service's processes, Redis or PostgreSQL:
 * most of a full run's time. `make test-fast` (TEST_FAST=1) leaves them out for the edit-test loop;
 * `make test` and CI run everything (docs/development.md).
 */
export const BROWSER_AND_PROCESS_FILES = [
  'test/*-e2e.test.ts',
  'test/accounts-postgres.test.ts',
  'test/auth.test.ts',
  'test/batch-throttle-redis.test.ts',
  'test/export-queue.test.ts',
  'test/fetch-datasets.test.ts',
  'test/fetch-queue.test.ts',
  'test/fetch.test.ts',
  'test/ingest-queue.test.ts',
  'test/ingest.test.ts',
  'test/production.test.ts',
  'test/progressive-build.test.ts',
  'test/reload.test.ts',
  'test/replicas.test.ts',
  'test/security.test.ts',
  'test/shutdown.test.ts',
  'test/throttle-redis.test.ts',
];

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...(process.env.TEST_FAST ? BROWSER_AND_PROCESS_FILES : [])],
    // The suite builds a tiny dataset once and shares it; DuckDB uses the cores itself.
    globalSetup: ['test/global-setup.ts'],
    // Per-file CPU seconds with TEST_CPU_LOG=<file> (docs/development.md); nothing otherwise.
    setupFiles: ['test/support/cpuLog.ts'],
    // Room for a loaded machine, not a budget: on the shared 2-core machine (load average 10-15) a
    // run timed out 7 tests at 30 s (hooks at 180 s) that pass alone; a hung test still fails.
    testTimeout: 120_000,
    hookTimeout: 600_000,
    pool: 'forks',
    // Vitest's default on 2 cores is one file at a time; most of the suite's time is spent waiting on
    // servers, workers, Redis, PostgreSQL and Chromium, so three files at once cut the wall time.
    maxWorkers: 3,
  },
});
