import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';

export interface DuckDBSettings {
  threads: number;
  memoryLimit: string;
}

/** An in-memory DuckDB configured for serving Parquet (see design.md, "Storage layout"). */
export async function openDuckDB(settings: DuckDBSettings): Promise<DuckDBInstance> {
  const instance = await DuckDBInstance.create(':memory:', {
    threads: String(settings.threads),
    memory_limit: settings.memoryLimit,
    // Nothing may be downloaded on the machines this runs on.
    autoinstall_known_extensions: 'false',
  });
  // A Parquet setting: only known once the built-in extension is loaded, so not a create option.
  const conn = await instance.connect();
  await conn.run('SET GLOBAL parquet_metadata_cache = true');
  conn.closeSync();
  return instance;
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
