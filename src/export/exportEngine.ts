import { openDuckDB, type Database } from '../db/duckdb.js';
import { QueryPool } from '../db/queryPool.js';
import { sqlFile } from '../db/sqlFiles.js';

/**
 * The connections exports run on: a DuckDB instance of their own, one connection with the
 * indicator macros, so that a long export neither holds the requests' query pool nor is cut by
 * their QUERY_TIMEOUT_MS. A statement of an export is still bounded, by a longer limit.
 */
export interface ExportEngine {
  db: Database;
  queries: QueryPool;
}

/** One statement of an export (a group of cells, or one scenario's COPY) may run this long. */
const STATEMENT_TIMEOUT_MS = 30 * 60_000;

/** A scenario's Parquet or CSV is one COPY: DuckDB's progress of it is what the job's progress says. */
const PROGRESS_SETTINGS = 'SET enable_progress_bar = true; SET enable_progress_bar_print = false;';

export async function openExportEngine(memoryLimit: string, threads = 1): Promise<ExportEngine> {
  const db = await openDuckDB({ threads, memoryLimit });
  // DuckDB keeps the bytes it reads from files in its buffer pool (its external file cache, made
  // for remote files, up to memoryLimit): an export reads each cell file once, and the cache grew
  // the runner by about 500 MB over a 2 G-value export, at the same speed without it.
  const conn = await db.connect();
  await conn.run('SET GLOBAL enable_external_file_cache = false');
  conn.closeSync();
  const queries = await QueryPool.open(db, 1, STATEMENT_TIMEOUT_MS, `${PROGRESS_SETTINGS}\n${sqlFile('indicators/macros.sql')}`);
  return { db, queries };
}
