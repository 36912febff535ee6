import bindings from '@duckdb/node-bindings';
import { DuckDBTableFunction, INTEGER, type DuckDBConnection, type DuckDBDataChunk, type DuckDBType } from '@duckdb/node-api';

/**
 * Rows made in JavaScript, streamed into a query as a table: `SELECT * FROM row_source($source)`.
 * The rows come in batches of typed arrays, one per column, that DuckDB's vectors take as they are
 * (FLOAT: Float32Array; DOUBLE: Float64Array; DATE and INTEGER: Int32Array; BIGINT: BigInt64Array;
 * an ENUM of fewer than 256 values: its indexes in a Uint8Array), copied 2,048 rows at a time: no value is boxed, and the query (a COPY
 * to Parquet, say) consumes the rows as they come, without a table in between. Filling a table
 * with an appender and copying it cost twice as much (docs/data.md).
 */

export type Column = Uint8Array | Int32Array | Float32Array | Float64Array | BigInt64Array;

export interface RowSource {
  names: string[];
  types: DuckDBType[];
  /** Batches of rows, one array per column, all of a batch's arrays of the same length. */
  batches: Iterable<Column[]>;
}

interface Scan {
  source: RowSource;
  batches: Iterator<Column[]>;
  batch?: Column[];
  offset: number;
}

const VECTOR = 2048;
const scans = new Map<number, Scan>();
let lastId = 0;

function nextChunk(scan: Scan, out: DuckDBDataChunk) {
  while (!scan.batch || scan.offset >= scan.batch[0]!.length) {
    const next = scan.batches.next();
    if (next.done) {
      out.rowCount = 0;
      return;
    }
    scan.batch = next.value;
    scan.offset = 0;
  }
  const n = Math.min(VECTOR, scan.batch[0]!.length - scan.offset);
  out.rowCount = n;
  // Straight into the output vectors' memory (their validity says every row is valid): the
  // node-api vector objects copy each vector out and back in, twice the cost of the whole copy.
  scan.batch.forEach((values, k) => {
    const size = values.BYTES_PER_ELEMENT;
    bindings.copy_data_to_vector(bindings.data_chunk_get_vector(out.chunk, k), 0, values.buffer as ArrayBuffer, values.byteOffset + scan.offset * size, n * size);
  });
  scan.offset += n;
}

const rowSourceFunction = () =>
  DuckDBTableFunction.create({
    name: 'row_source',
    parameterTypes: [INTEGER],
    bindFunction: (info) => {
      const id = Number(info.getParameter(0));
      const scan = scans.get(id);
      if (!scan) return info.setError(`row_source: no rows registered as ${id}`);
      scan.source.names.forEach((name, k) => info.addResultColumn(name, scan.source.types[k]!));
      info.setBindData({ id });
    },
    initFunction: () => {},
    mainFunction: (info, out) => {
      const scan = scans.get((info.bindData as { id: number }).id);
      try {
        if (!scan) throw new Error('row_source: the rows were released before the query ended');
        nextChunk(scan, out);
      } catch (e) {
        // An exception thrown here would be lost on DuckDB's thread: the query fails with it instead.
        info.setError(e instanceof Error ? e.message : String(e));
      }
    },
  });

/** Connections that have the function (registering it again on one is harmless but not free). */
const registered = new WeakSet<DuckDBConnection>();

/**
 * Runs `query(id)` with the rows of `source` readable as `row_source(id)` on `conn`, then releases
 * them. Each call has its own id, so that concurrent queries on several connections each read
 * their own rows.
 */
export async function withRowSource<T>(conn: DuckDBConnection, source: RowSource, query: (id: number) => Promise<T>): Promise<T> {
  if (!registered.has(conn)) {
    conn.registerTableFunction(rowSourceFunction());
    registered.add(conn);
  }
  const id = ++lastId;
  scans.set(id, { source, batches: source.batches[Symbol.iterator](), offset: 0 });
  try {
    return await query(id);
  } finally {
    scans.delete(id);
  }
}
