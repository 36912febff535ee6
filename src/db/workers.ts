import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * Runs `work` on every item, `workers` at a time, each worker with a resource of its own (`open`,
 * released with `close` when it is done): a connection, a thread. After an error the workers stop
 * once their current item is done, and then the first error is thrown, so that nothing is still
 * writing when the caller cleans up.
 */
export async function forEachWith<R, T>(
  items: readonly T[],
  workers: number,
  open: () => Promise<R>,
  close: (resource: R) => void | Promise<void>,
  work: (resource: R, item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { err: unknown } | undefined;
  const worker = async () => {
    const resource = await open();
    try {
      while (!failure && next < items.length) {
        const index = next++;
        await work(resource, items[index]!, index);
      }
    } catch (err) {
      failure ??= { err };
    } finally {
      await close(resource);
    }
  };
  await Promise.all(Array.from({ length: Math.min(workers, items.length) }, worker));
  if (failure) throw failure.err;
}

/** forEachWith on DuckDB connections: the build steps whose single queries use little parallelism. */
export function forEachOnConnections<T>(
  items: readonly T[],
  workers: number,
  connect: () => Promise<DuckDBConnection>,
  work: (conn: DuckDBConnection, item: T, index: number) => Promise<void>,
): Promise<void> {
  return forEachWith(items, workers, connect, (conn) => conn.closeSync(), work);
}
