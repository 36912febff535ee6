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
  const queries = await QueryPool.open(db, 1, STATEMENT_TIMEOUT_MS, `${PROGRESS_SETTINGS}\n${sqlFile('indicators/macros.sql')}`);
  return { db, queries };
}
