import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';

export interface DuckDBSettings {
  threads: number;
  memoryLimit: string;
}

/** An in-memory DuckDB configured for serving Parquet (see design.md, "Storage layout"). */
export async function openDuckDB(settings: DuckDBSettings): Promise<DuckDBInstance> {
  return DuckDBInstance.create(':memory:', {
    threads: String(settings.threads),
    memory_limit: settings.memoryLimit,
    parquet_metadata_cache: 'true',
    // Nothing may be downloaded on the machines this runs on.
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
  });
}

/** Rows of a query as plain objects, with BIGINT and friends turned into JS numbers. */
export async function readRows<T = Record<string, unknown>>(
  conn: DuckDBConnection,
  sql: string,
  params?: Record<string, unknown> | unknown[],
): Promise<T[]> {
  const reader = await conn.runAndReadAll(sql, params as never);
  return reader.getRowObjectsJS() as T[];
}
