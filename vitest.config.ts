import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The files that drive headless Chromium or start the service's processes, Redis or PostgreSQL:
 * most of a full run's time. `make test-fast` (TEST_FAST=1) leaves them out for the edit-test loop;
 * `make test` and CI run everything (docs/development.md). They are the `processes` project below,
 * a process per file; every other file is in `shared`, which does not isolate files.
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

/** What every file runs with, in both projects below. */
const common = {
  // Per-file CPU seconds with TEST_CPU_LOG=<file> (docs/development.md); nothing otherwise.
  setupFiles: ['test/support/cpuLog.ts'],
  // Room for a loaded machine, not a budget: on the shared 2-core machine (load average 10-15) a
  // run timed out 7 tests at 30 s (hooks at 180 s) that pass alone; a hung test still fails.
  testTimeout: 120_000,
  hookTimeout: 600_000,
  pool: 'forks' as const,
};

export default defineConfig({
  test: {
    // The suite builds a tiny dataset once and shares it; DuckDB uses the cores itself. Only here:
    // the projects inherit what it provides, and one in each would run it once per project.
    globalSetup: ['test/global-setup.ts'],
    // Vitest's default on 2 cores is one file at a time; most of the suite's time is spent waiting on
    // servers, workers, Redis, PostgreSQL and Chromium, so three files at once cut the wall time.
    maxWorkers: 3,
    projects: [
      {
        test: {
          ...common,
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...BROWSER_AND_PROCESS_FILES],
          // The files that only call the app in-process share their worker's loaded modules: each
          // file in a fresh process loaded src/ through the module runner again (2.2 s of a core a
          // file) and made its first app from scratch (scrypt hash, catalog: 1-2 s more). Measured on
          // 8 of them on one worker (/usr/bin/time, the main process included): 91 s of CPU isolated, 59
          // and 67 s shared in two runs. A file still gets its
          // own module instance of itself; what src/ keeps is per app (metrics registries, pools), and
          // the helpers' per-process caches (catalogs of the read-only builds, the tester's hash) are
          // what should be shared.
          isolate: false,
        },
      },
      // make test-fast (TEST_FAST=1) leaves them out.
      ...(process.env.TEST_FAST
        ? []
        : [
            {
              test: {
                ...common,
                name: 'processes',
                // Each in a process of its own, as before: they start servers, workers and browsers,
                // handle signals, and reap children (the CPU log counts those per process).
                include: BROWSER_AND_PROCESS_FILES,
              },
            },
          ]),
    ],
  },
});
