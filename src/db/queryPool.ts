import os from 'node:os';
import type { DuckDBConnection } from '@duckdb/node-api';
import { DatabaseClosedError, type Database } from './duckdb.js';
import { BusyError, UnavailableError } from '../errors.js';

/** What a pool observer hears after each query: time queued, time running, and how it ended. */
export interface QueryTiming {
  waitMs: number;
  runMs: number;
  outcome: 'ok' | 'error' | 'timeout';
}

/**
 * A few DuckDB connections shared by the climate queries. At most `size` queries run at once (16
 * concurrent raw requests measured 1.3-1.9 GB when left unbounded); the rest wait in order. A query
 * past `timeoutMs` is interrupted and answers 503.
 */
export class QueryPool {
  private readonly all: DuckDBConnection[] = [];
  private readonly idle: DuckDBConnection[] = [];
  private readonly waiting: ((conn: DuckDBConnection) => void)[] = [];
  private readonly observers: ((timing: QueryTiming) => void)[] = [];
  private closed = false;
  inFlight = 0;

  private constructor(
    private readonly timeoutMs: number,
    /** Connections, so queries that can run at once. */
    readonly size: number,
  ) {}

  /**
   * `init` runs once, on the first connection: the indicator macros, which CREATE MACRO puts in the
   * database's catalog, where every connection finds them (run on each of 4 connections, they were
   * 0.2 s of an app's start).
   */
  static async open(db: Database, size: number, timeoutMs: number, init?: string): Promise<QueryPool> {
    const pool = new QueryPool(timeoutMs, size);
    for (let i = 0; i < size; i++) {
      const conn = await db.connect();
      if (init && i === 0) await conn.run(init);
      pool.all.push(conn);
      pool.idle.push(conn);
    }
    return pool;
  }

  /**
   * Items in consecutive groups, one statement's worth each: as many groups as there are cores
   * (the pool runs more statements at once than that, but a statement's cost is mostly fixed, so
   * more groups on the same cores only add statements: 46 cells' frost_days in 2 groups 33-38 ms,
   * in 4 37-39 ms, on 2 cores), and none longer than `most`, so that what one statement holds stays
   * bounded and its results can go out before the next group's.
   */
  groups<T>(items: T[], most: number): T[][] {
    const parallel = Math.min(this.size, os.availableParallelism());
    const size = Math.min(most, Math.max(1, Math.ceil(items.length / parallel)));
    return Array.from({ length: Math.ceil(items.length / size) }, (_, g) => items.slice(g * size, (g + 1) * size));
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

  /** Metrics: `observer` is called after every query. */
  observe(observer: (timing: QueryTiming) => void) {
    this.observers.push(observer);
  }

  /** `signal` interrupts the statement when aborted (an export cancelled while it runs); the work then rejects. */
  async run<T>(work: (conn: DuckDBConnection) => Promise<T>, signal?: AbortSignal): Promise<T> {
    // Waiters would never get a connection once the pool is closed.
    if (this.closed) throw storeClosed();
    const queuedAt = performance.now();
    const conn = await this.acquire();
    const startedAt = performance.now();
    this.inFlight++;
    let timedOut = false;
    let outcome: QueryTiming['outcome'] = 'error';
    const timer = setTimeout(() => {
      timedOut = true;
      conn.interrupt();
    }, this.timeoutMs);
    const interrupt = () => conn.interrupt();
    signal?.addEventListener('abort', interrupt);
    try {
      if (signal?.aborted) throw new Error('The statement was cancelled before it ran.');
      const result = await work(conn);
      outcome = 'ok';
      return result;
    } catch (err) {
      if (timedOut) {
        outcome = 'timeout';
        throw new BusyError(`The query took longer than the ${this.timeoutMs / 1000} s limit; ask for fewer years or models.`);
      }
      if (err instanceof DatabaseClosedError) throw storeClosed();
      throw err;
    } finally {
      signal?.removeEventListener('abort', interrupt);
      clearTimeout(timer);
      this.inFlight--;
      this.release(conn);
      if (this.observers.length > 0) {
        const timing = { waitMs: startedAt - queuedAt, runMs: performance.now() - startedAt, outcome };
        for (const o of this.observers) o(timing);
      }
    }
  }

  /** Refuses new queries; each connection closes once its query (if one runs) has settled. */
  close() {
    this.closed = true;
    for (const c of this.all) c.closeSync();
    this.idle.length = 0;
  }
}

const storeClosed = () => new UnavailableError('The data store is closed: the server is shutting down.');
