import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { HttpError } from '../http/errors.js';

/**
 * A few DuckDB connections shared by the climate queries. At most `size` queries run at once (16
 * concurrent raw requests measured 1.3-1.9 GB when left unbounded); the rest wait in order. A query
 * past `timeoutMs` is interrupted and answers 503.
 */
export class QueryPool {
  private readonly idle: DuckDBConnection[] = [];
  private readonly waiting: ((conn: DuckDBConnection) => void)[] = [];
  inFlight = 0;

  private constructor(private readonly timeoutMs: number) {}

  /** `init` runs once on each connection (the indicator macros). */
  static async open(db: DuckDBInstance, size: number, timeoutMs: number, init?: string): Promise<QueryPool> {
    const pool = new QueryPool(timeoutMs);
    for (let i = 0; i < size; i++) {
      const conn = await db.connect();
      if (init) await conn.run(init);
      pool.idle.push(conn);
    }
    return pool;
  }

  get queued(): number {
    return this.waiting.length;
  }

  private acquire(): Promise<DuckDBConnection> {
    const conn = this.idle.pop();
    if (conn) return Promise.resolve(conn);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(conn: DuckDBConnection) {
    const next = this.waiting.shift();
    if (next) next(conn);
    else this.idle.push(conn);
  }

  async run<T>(work: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
    const conn = await this.acquire();
    this.inFlight++;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      conn.interrupt();
    }, this.timeoutMs);
    try {
      return await work(conn);
    } catch (err) {
      if (timedOut) throw new HttpError(503, `The query took longer than the ${this.timeoutMs / 1000} s limit; ask for fewer years or models.`);
      throw err;
    } finally {
      clearTimeout(timer);
      this.inFlight--;
      this.release(conn);
    }
  }

  close() {
    for (const c of this.idle.splice(0)) c.closeSync();
  }
}
