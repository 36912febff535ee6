import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseClosedError, openDuckDB } from '../src/db/duckdb.js';
import { openGeneration } from '../src/dataGeneration.js';
import { buildDataset } from '../src/ingest/build.js';

/**
 * DuckDB ends the process when a connection closes under a running operation. Each test here did
 * that before src/db/duckdb.ts made every close wait for the operations in flight: a crash would
 * take the test worker down, so the file fails rather than passes.
 */

// A query that runs long enough (a few hundred ms) to be in flight when the close is asked for.
const SLOW = 'SELECT count(*) AS n FROM range(50000000) t(x) WHERE x % 7 = 3';

describe('closing DuckDB under running operations', () => {
  it('closes a connection only after its running queries, refusing new ones at once', async () => {
    const db = await openDuckDB({ threads: 2, memoryLimit: '256MB' });
    const conn = await db.connect();
    const running = [conn.runAndReadAll(SLOW), conn.runAndReadAll(SLOW)];
    conn.closeSync();
    await expect(conn.run('SELECT 1')).rejects.toThrow(DatabaseClosedError);
    const answers = await Promise.all(running);
    expect(answers.map((r) => Number(r.getRowsJS()[0]![0]))).toEqual([7142857, 7142857]);
    await db.close();
  });

  it('closes the database after its connections, with a prepared statement still running', async () => {
    const db = await openDuckDB({ threads: 2, memoryLimit: '256MB' });
    const conn = await db.connect();
    const statement = await conn.prepare(SLOW);
    const running = statement.runAndReadAll();
    let closed = false;
    const closing = db.close().then(() => (closed = true));
    await expect(db.connect()).rejects.toThrow(DatabaseClosedError);
    expect(closed).toBe(false);
    expect(Number((await running).getRowsJS()[0]![0])).toBe(7142857);
    await closing;
    expect(closed).toBe(true);
  });

  it('a failing query among several on one connection, then the close (what loadCatalog did)', async () => {
    const db = await openDuckDB({ threads: 2, memoryLimit: '256MB' });
    const conn = await db.connect();
    try {
      await Promise.all([conn.run(SLOW), conn.run("SELECT * FROM read_parquet('/nonexistent/x.parquet')"), conn.run(SLOW)]);
    } catch {
      // expected: the missing file
    } finally {
      conn.closeSync();
    }
    await db.close();
    // The process is still here, and a new database works.
    const again = await openDuckDB({ threads: 1, memoryLimit: '64MB' });
    const c = await again.connect();
    expect(Number((await c.runAndReadAll('SELECT 42')).getRowsJS()[0]![0])).toBe(42);
    c.closeSync();
    await again.close();
  });
});

describe('a build that cannot be opened', () => {
  let tmp: string;
  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'duckdb-close-'));
    await buildDataset({ outDir: path.join(tmp, 'good'), seed: 1, climateCities: 1, models: { 'NEX-GDDP': ['ACCESS1-0'] }, years: { historical: [1990, 1990], RCP45: [2050, 2050], RCP85: [2050, 2050] }, log: () => {} });
    fs.mkdirSync(path.join(tmp, 'manifest-only'));
    fs.copyFileSync(path.join(tmp, 'good', 'manifest.json'), path.join(tmp, 'manifest-only', 'manifest.json'));
  }, 120_000);
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('is refused again and again with the reason, and the process lives on (a manifest without its catalog)', async () => {
    const config = { DATA_DIR: path.join(tmp, 'manifest-only'), DUCKDB_THREADS: 2, DUCKDB_MEMORY_LIMIT: '256MB', QUERY_CONCURRENCY: 4, QUERY_TIMEOUT_MS: 10_000 };
    for (let i = 0; i < 5; i++) {
      await expect(openGeneration(config, () => { throw new Error('not reached'); }, true)).rejects.toThrow(/No files found that match the pattern ".*\/catalog\//);
    }
    const good = await openGeneration({ ...config, DATA_DIR: path.join(tmp, 'good') }, () => ({}) as never, true);
    expect(good.catalog.cities.length).toBeGreaterThan(0);
    good.queries.close();
    await good.db.close();
  });
});
