import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type express from 'express';
import type { DuckDBConnection } from '@duckdb/node-api';
import { inject } from 'vitest';
import { createApp, exportJobs } from '../src/app.js';
import { createAuth, type Auth } from '../src/auth/index.js';
import { loadConfig, type Config } from '../src/config.js';
import { openDuckDB, readRows, type Database } from '../src/db/duckdb.js';
import { sqlFile } from '../src/db/sqlFiles.js';
import { QueryPool } from '../src/db/queryPool.js';
import { loadCatalog, type Catalog } from '../src/reference/catalog.js';
import { createThrottleStores, type ThrottleStores } from '../src/http/throttleStore.js';
import { createLogger } from '../src/logger.js';

export interface TestApp {
  app: express.Express;
  token: string;
  catalog: Catalog;
  auth: Auth;
  config: Config;
  queries: QueryPool;
  throttleStores: ThrottleStores;
  /** The app's export jobs: their store and where they run. */
  exports: ReturnType<typeof exportJobs>;
}

let counter = 0;

/**
 * The tester's password hash, made once per run by the global setup: each app has an accounts file
 * of its own, and a fresh scrypt hash for each (0.4 s of a core) was most of testApp's time in the
 * files that make many apps; then one per process, and the suite has a few dozen. Sign-ins still
 * verify the password against a real hash, with today's parameters.
 */
const testerPasswordHash = () => inject('testerPasswordHash');

/**
 * Folders removed when the test process exits, by one exit handler: a worker of the shared project
 * (vitest.config.ts) runs many files, and a handler per folder passed Node's limit of 10 listeners.
 */
const removedAtExit = new Set<string>();
function removeAtExit(dir: string) {
  if (removedAtExit.size === 0) process.on('exit', () => removedAtExit.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
  removedAtExit.add(dir);
}

/** A temporary accounts file of its own, removed when the test process exits. */
export function tempAccountsDb(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'climate-accounts-'));
  removeAtExit(dir);
  return path.join(dir, `accounts-${counter++}.duckdb`);
}

/** A temporary EXPORT_DIR of its own (export jobs and their files), removed when the test process exits. */
export function tempExportDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'climate-exports-'));
  removeAtExit(dir);
  return dir;
}

/**
 * The catalogs of the global setup's builds, loaded once per test file: those builds are shared
 * read-only, and a catalog is plain data the app never changes, so every app of a file can hold the
 * same one (loading it was 0.6-0.7 s of a core per app). Any other folder, which a test may have
 * ingested into or rebuilt, is read afresh each time.
 */
const sharedCatalogs = new Map<string, Promise<Catalog>>();
function catalogOf(db: Database, dataDir: string): Promise<Catalog> {
  const shared = [inject('dataDir'), inject('warmingDataDir')].includes(dataDir);
  if (!shared) return db.connect().then((conn) => loadCatalog(conn, dataDir));
  if (!sharedCatalogs.has(dataDir)) sharedCatalogs.set(dataDir, db.connect().then((conn) => loadCatalog(conn, dataDir)));
  return sharedCatalogs.get(dataDir)!;
}

/** The app on the suite's tiny dataset (or another build, e.g. a copy an ingest wrote to), with one account and its token. */
export async function testApp(env: Record<string, string> = {}, dataDir: string = inject('dataDir')): Promise<TestApp> {
  // Quiet by default; LOG_LEVEL=info in the environment shows the request log while debugging.
  const config = loadConfig({ LOG_LEVEL: 'silent', ...process.env, DATA_DIR: dataDir, ACCOUNTS_DB: tempAccountsDb(), EXPORT_DIR: tempExportDir(), ...env });
  const db = await openDuckDB({ threads: 2, memoryLimit: '512MB' });
  const catalog = await catalogOf(db, dataDir);
  const queries = await QueryPool.open(db, config.QUERY_CONCURRENCY, config.QUERY_TIMEOUT_MS, sqlFile('indicators/macros.sql'));
  const throttleStores = await createThrottleStores(config, createLogger('silent'));
  const auth = await createAuth(config, throttleStores);
  // A shared store (ACCOUNTS_URL) may hold the account already: another replica made it.
  const account = (await auth.accounts.findByEmail('tester@example.com')) ?? (await auth.accounts.create('tester@example.com', await testerPasswordHash()));
  const token = await auth.tokens.issue(account.id, account.tokenVersion);
  const exports = exportJobs(config, () => catalog);
  return { app: createApp({ config, catalog, queries, auth, throttleStores, exports }), token, catalog, auth, config, queries, throttleStores, exports };
}

/** A city's boundary as the app's build stores it, read by the tests' own statement: what the API should answer. */
export async function storedBoundary(t: TestApp, cityId: number): Promise<unknown> {
  const file = path.join(t.catalog.dataDir, 'catalog', 'city_boundary.parquet');
  const rows = await t.queries.run((conn) => readRows<{ geometry: string }>(conn, 'SELECT geometry FROM read_parquet($file) WHERE city_id = $city::BIGINT', { file, city: cityId }));
  if (rows.length !== 1) throw new Error(`${file} holds ${rows.length} rows for city ${cityId}`);
  return JSON.parse(rows[0]!.geometry);
}

/** An in-memory DuckDB with the indicator macros loaded, as every pooled connection has them. */
export async function macrosSession(threads: number): Promise<{ db: Database; conn: DuckDBConnection }> {
  const db = await openDuckDB({ threads, memoryLimit: '512MB' });
  const conn = await db.connect();
  await conn.run(sqlFile('indicators/macros.sql'));
  return { db, conn };
}

/**
 * The historic ranges (start years) whose heat-wave series the monthly summaries `files` (a path
 * or glob) hold for at least one month: their heat_<start year> columns with a value.
 */
export async function heatRangesOf(conn: DuckDBConnection, files: string): Promise<number[]> {
  const reader = await conn.runAndReadAll(`SELECT count(COLUMNS('^heat_\\d+$')) FROM read_parquet($files, union_by_name = true)`, { files });
  const counts = reader.getRowObjectsJS()[0] as Record<string, bigint>;
  return Object.entries(counts)
    .filter(([, n]) => Number(n) > 0)
    .map(([name]) => Number(/heat_(\d+)/.exec(name)![1]))
    .sort((a, b) => a - b);
}
