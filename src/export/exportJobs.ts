import type { Catalog } from '../reference/catalog.js';
import { ProcessClaims, type AccountClaims } from './accountClaims.js';
import { openDuckDB, type Database } from '../db/duckdb.js';
import { QueryPool } from '../db/queryPool.js';
import { sqlFile } from '../db/sqlFiles.js';
import { runExport } from './exportRunner.js';
import type { ExportStore } from './exportStore.js';

/** Where an accepted export goes to be run: this process, or the queue's workers (exportQueue.ts). */
export interface ExportScheduler {
  /** Where an account's running exports are counted and a new one claimed, as one step. */
  readonly claims: AccountClaims;
  enqueue(id: string): Promise<void>;
  close(): Promise<void>;
}

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

export async function openExportEngine(memoryLimit: string): Promise<ExportEngine> {
  const db = await openDuckDB({ threads: 1, memoryLimit });
  const queries = await QueryPool.open(db, 1, STATEMENT_TIMEOUT_MS, sqlFile('indicators/macros.sql'));
  return { db, queries };
}

/**
 * Runs exports in this process, one at a time in order, on an engine opened at the first one:
 * the default, with no QUEUE_URL. Jobs a previous process left queued or running are taken up
 * again by resume(), so a restart loses none.
 */
export class InProcessExports implements ExportScheduler {
  private engine?: Promise<ExportEngine>;
  private chain: Promise<void> = Promise.resolve();
  private closed = false;
  readonly claims = new ProcessClaims();

  constructor(
    private readonly store: ExportStore,
    /** The catalog of the data build being served when an export starts. */
    private readonly catalog: () => Catalog,
    private readonly opts: { memoryLimit: string; maxBytes: number; onError?: (err: unknown) => void },
  ) {}

  /** Takes up the jobs a previous process left queued or running (the server calls it once it serves). */
  resume() {
    for (const job of this.store.all().reverse()) if (job.status === 'queued' || job.status === 'running') void this.enqueue(job.id);
  }

  enqueue(id: string): Promise<void> {
    const run = this.chain.then(async () => {
      if (this.closed) return;
      const engine = await (this.engine ??= openExportEngine(this.opts.memoryLimit));
      await runExport({ catalog: this.catalog(), queries: engine.queries, store: this.store, maxBytes: this.opts.maxBytes }, id);
    });
    this.chain = run.catch((err: unknown) => this.opts.onError?.(err));
    return Promise.resolve();
  }

  /** Resolves once no export is running. */
  idle(): Promise<void> {
    return this.chain;
  }

  /**
   * Starts no more exports and closes the engine: an export under way stops at its next statement
   * and is left queued, for resume() in the next process (a shutdown does not wait for it).
   */
  async close(): Promise<void> {
    this.closed = true;
    if (this.engine) {
      const engine = await this.engine;
      engine.queries.close();
      await engine.db.close();
    }
  }
}
