import {
  DuckDBConnection,
  DuckDBExtractedStatements,
  DuckDBInstance,
  DuckDBMaterializedResult,
  DuckDBPendingResult,
  DuckDBPreparedStatement,
  DuckDBResult,
  DuckDBResultReader,
} from '@duckdb/node-api';

export interface DuckDBSettings {
  threads: number;
  memoryLimit: string;
}

/** An operation asked of a database or connection that was closed, or is closing. */
export class DatabaseClosedError extends Error {}

/**
 * Counts operations that run on DuckDB's own threads and tells when none is left.
 */
class Operations {
  private count = 0;
  private idle: (() => void)[] = [];

  track<T>(work: Promise<T>): Promise<T> {
    this.count++;
    return work.finally(() => {
      if (--this.count === 0) for (const resolve of this.idle.splice(0)) resolve();
    });
  }

  settled(): Promise<void> {
    return this.count === 0 ? Promise.resolve() : new Promise((resolve) => this.idle.push(resolve));
  }
}

/**
 * Objects of @duckdb/node-api that use their connection's native state, their calls counted as
 * its operations: a prepared statement (destroyed with its connection, so even bind() must wait),
 * a pending result, extracted statements; and a streamed result and its reader, which read through
 * the connection with each chunk (their other calls are plain reads of what they hold).
 */
const USES_CONNECTION = [DuckDBPreparedStatement, DuckDBPendingResult, DuckDBExtractedStatements];
const READS_THROUGH_CONNECTION = [DuckDBResultReader, DuckDBResult];

const isAsync = (f: unknown) => (f as { constructor: { name: string } }).constructor.name === 'AsyncFunction';

/**
 * `target`, with each call that returns a promise counted in `ops` until it settles, the objects
 * above that it returns guarded the same way, and, once `isClosed()`, its calls refused: every call
 * of an object that uses the connection, the asynchronous ones of the rest.
 */
function guard<T extends object>(target: T, ops: Operations, isClosed: () => boolean, usesConnection: boolean, closeCalls: Record<string, () => void> = {}): T {
  return new Proxy(target, {
    get(object, property) {
      const value: unknown = Reflect.get(object, property, object);
      if (typeof value !== 'function') return value;
      const close = typeof property === 'string' ? closeCalls[property] : undefined;
      if (close) return close;
      const async = isAsync(value);
      return (...args: unknown[]) => {
        // interrupt() is how a running query is stopped, so it is never refused.
        if (isClosed() && property !== 'interrupt' && (usesConnection || async)) {
          const refused = new DatabaseClosedError('The DuckDB connection is closed.');
          if (async) return Promise.reject(refused);
          throw refused;
        }
        const result: unknown = (value as (...a: unknown[]) => unknown).apply(object, args);
        if (result instanceof Promise) return ops.track(result.then((resolved: unknown) => wrap(resolved, ops, isClosed)));
        return wrap(result, ops, isClosed);
      };
    },
  });
}

function wrap(value: unknown, ops: Operations, isClosed: () => boolean): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (USES_CONNECTION.some((c) => value instanceof c)) return guard(value, ops, isClosed, true);
  // A materialized result holds its own rows; only a streamed one reads through its connection.
  if (value instanceof DuckDBMaterializedResult) return value;
  if (value instanceof DuckDBResultReader && (value as unknown as { result: unknown }).result instanceof DuckDBMaterializedResult) return value;
  if (READS_THROUGH_CONNECTION.some((c) => value instanceof c)) return guard(value, ops, isClosed, false);
  return value;
}

/**
 * The one way this project opens DuckDB. Closing a connection while one of its operations still
 * runs on DuckDB's threads ends the process (a segmentation fault, or a hang): a reload handed a
 * build with a missing catalog file did it, the first of nine catalog queries failing and the
 * connection closed while the other eight ran. Here a connection's `closeSync()` only asks for the
 * close, which happens once its last operation has settled (new ones are refused at once), and
 * the database closes after its last connection: no order of calls can close under a running
 * operation.
 */
export class Database {
  /** Each connection from the call of connect() to its actual close. */
  private readonly lifetimes = new Operations();
  /** How to ask each open connection to close. */
  private readonly closers = new Set<() => void>();
  private closing: Promise<void> | undefined;

  private constructor(private readonly instance: DuckDBInstance) {}

  /** A DuckDB database: a file, or ':memory:'. Nothing is ever downloaded (no extension autoinstall). */
  static async open(file: string, options: Record<string, string>): Promise<Database> {
    return new Database(await DuckDBInstance.create(file, { ...options, autoinstall_known_extensions: 'false' }));
  }

  async connect(): Promise<DuckDBConnection> {
    if (this.closing) throw new DatabaseClosedError('The DuckDB database is closed.');
    let ended!: () => void;
    void this.lifetimes.track(new Promise<void>((resolve) => (ended = resolve)));
    let conn: DuckDBConnection;
    try {
      conn = await this.instance.connect();
    } catch (err) {
      ended();
      throw err;
    }
    const ops = new Operations();
    let closeAsked = false;
    const askClose = () => {
      if (closeAsked) return;
      closeAsked = true;
      this.closers.delete(askClose);
      void ops.settled().then(() => {
        conn.closeSync();
        ended();
      });
    };
    if (this.closing) {
      askClose();
      throw new DatabaseClosedError('The DuckDB database was closed while connecting.');
    }
    this.closers.add(askClose);
    return guard(conn, ops, () => closeAsked, true, { closeSync: askClose, disconnectSync: askClose });
  }

  /**
   * Asks every open connection to close (each does once its last operation has settled), then
   * closes the database. Resolves when it is closed; later connect() calls are refused.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const ask of [...this.closers]) ask();
      await this.lifetimes.settled();
      this.instance.closeSync();
    })();
    return this.closing;
  }
}

/** An in-memory DuckDB configured for serving Parquet (see design.md, "Storage layout"). */
export async function openDuckDB(settings: DuckDBSettings): Promise<Database> {
  const db = await Database.open(':memory:', { threads: String(settings.threads), memory_limit: settings.memoryLimit });
  // A Parquet setting: only known once the built-in extension is loaded, so not a create option.
  const conn = await db.connect();
  await conn.run('SET GLOBAL parquet_metadata_cache = true');
  conn.closeSync();
  return db;
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
