import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * Runs `work` on every item, `workers` at a time, each worker on a connection of its own (closed
 * when it is done): the build steps whose single queries use little parallelism. After an error
 * the workers stop once their current item is done, and then the first error is thrown, so that
 * nothing is still writing when the caller cleans up.
 */
export async function forEachOnConnections<T>(
  items: readonly T[],
  workers: number,
  connect: () => Promise<DuckDBConnection>,
  work: (conn: DuckDBConnection, item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { err: unknown } | undefined;
  const worker = async () => {
    const conn = await connect();
    try {
      while (!failure && next < items.length) {
        const index = next++;
        await work(conn, items[index]!, index);
      }
    } catch (err) {
      failure ??= { err };
    } finally {
      conn.closeSync();
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
  if (failure) throw failure.err;
}
