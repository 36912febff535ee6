import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { openDuckDB, type Database } from '../src/db/duckdb.js';
import { rowDifferences } from './support/sameRows.js';

/** The suite's row-by-row comparison of Parquet files (test/support/sameRows.ts) finds what differs, in the pair it differs in. */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'climate-same-rows-'));
let db: Database;
let conn: DuckDBConnection;
const file = (name: string) => path.join(dir, `${name}.parquet`);
const write = (name: string, select: string) => conn.run(`COPY (${select}) TO '${file(name)}' (FORMAT parquet)`);

beforeAll(async () => {
  db = await openDuckDB({ threads: 1, memoryLimit: '256MB' });
  conn = await db.connect();
  const rows = `SELECT i AS id, i * 0.5 AS v, [i, i + 1] AS xs, {'k': i} AS s FROM range(100) t(i)`;
  await write('a1', rows);
  await write('b1', `${rows} ORDER BY id DESC`);
  for (const name of ['a2', 'a3', 'a4']) await write(name, `SELECT 'x' || i AS name, i AS n FROM range(10) t(i)`);
  await write('b2', `SELECT 'x' || i AS name, CASE WHEN i = 3 THEN 4 ELSE i END AS n FROM range(10) t(i)`);
  await write('b3', `SELECT 'x' || i AS name, i::INTEGER AS n FROM range(10) t(i)`);
  await write('b4', `SELECT 'x' || i AS name, i AS n FROM range(10) t(i) UNION ALL SELECT 'x1', 1`);
});

afterAll(async () => {
  conn.closeSync();
  await db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('rowDifferences', () => {
  it('finds equal files equal in any row order, nested columns included, and a changed row in its own pair', async () => {
    const found = await rowDifferences(conn, [[file('a1'), file('b1')], [file('a2'), file('b2')], [file('a3'), file('a2')]]);
    expect(found).toEqual([
      { rows: 100, diff: 0, schema: null },
      { rows: 10, diff: 2, schema: null },
      { rows: 10, diff: 0, schema: null },
    ]);
  });

  it('counts a duplicated row, and names a column whose type differs', async () => {
    const [dup, typed] = await rowDifferences(conn, [[file('a2'), file('b4')], [file('a3'), file('b3')]]);
    expect(dup).toEqual({ rows: 10, diff: 1, schema: null });
    expect(typed!.schema).not.toBeNull();
    expect(typed!.schema!.b.join('\n')).toMatch(/^n INT_32 /m);
  });

  it('refuses a file in two pairs on one side, whose rows it could not tell apart', async () => {
    await expect(rowDifferences(conn, [[file('a2'), file('b2')], [file('a2'), file('b3')]])).rejects.toThrow(/two pairs on the same side/);
  });
});
