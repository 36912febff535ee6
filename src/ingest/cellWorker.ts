import { parentPort } from 'node:worker_threads';
import { openDuckDB } from '../db/duckdb.js';
import { loadSummaryMacros, type SummaryRange } from './summaries.js';
import { writeSyntheticCellWithSummaries, type SyntheticCell } from './synthetic.js';

/** A request to the thread of cellThreads.ts: build one cell, or close. */
export type CellRequest = { cell: SyntheticCell; ranges: SummaryRange[] } | { close: true };
/** Its answer: the rows written, or why not. */
export type CellAnswer = { ready: true } | { rows: number } | { error: string };

/**
 * A thread of the default build: its own DuckDB (one thread, as a build worker always ran its
 * queries) and its own JavaScript for the generator and the summaries in memory, one cell at a
 * time. The database is closed before the thread ends, never under a running query.
 */
const db = await openDuckDB({ threads: 1, memoryLimit: '1GB' });
const conn = await db.connect();
await loadSummaryMacros(conn);
const post = (a: CellAnswer) => parentPort!.postMessage(a);
parentPort!.on('message', (req: CellRequest) => {
  if ('close' in req) {
    conn.closeSync();
    void db.close().then(() => parentPort!.close());
    return;
  }
  writeSyntheticCellWithSummaries(conn, req.cell, req.ranges).then(
    (rows) => post({ rows }),
    (err: unknown) => post({ error: err instanceof Error ? err.message : String(err) }),
  );
});
post({ ready: true });
