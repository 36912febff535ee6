import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Database } from '../src/db/duckdb.js';
import { macrosSession } from './helpers.js';

/**
 * Answers are repeatable to the last bit: the means over a window's years and over a baseline's
 * periods must not depend on the order in which parallel threads hand over their rows. Checked on
 * a per-model table large enough for DuckDB to aggregate it on several threads.
 */
let db: Database;
let conn: DuckDBConnection;

beforeAll(async () => {
  ({ db, conn } = await macrosSession(4));
  // 3 cells, 40 models x 6,000 periods, half of them a baseline's (negative ids); values spread
  // over 9 orders of magnitude so that the order of a sum shows in its last bits.
  await conn.run(`CREATE TABLE per_model AS
    SELECT i % 3 AS cell, 'm' || (i % 40) AS model, (CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END) * (1 + (i // 40) % 3000) AS period,
           hash(i) % 1000000000 / 1000.0 + 1e-3 / (1 + i % 97) AS value
    FROM range(240000) t(i)`);
  await conn.run(`SET VARIABLE time_aggregation = 'yearly'`);
  await conn.run(`SET VARIABLE aggs = ['min', 'max', 'avg']`);
  await conn.run(`SET VARIABLE change = 'absolute'`);
  await conn.run(`SET VARIABLE windows = [{s: 1, e: 1500}, {s: 1000, e: 3000}]::STRUCT(s INTEGER, e INTEGER)[]`);
});

afterAll(async () => {
  conn?.closeSync();
  await db?.close();
});

async function distinctAnswers(sql: string, runs: number): Promise<number> {
  const seen = new Set<string>();
  for (let i = 0; i < runs; i++) {
    const rows = (await conn.runAndReadAll(sql)).getRowsJS();
    seen.add(JSON.stringify(rows, (_, v: unknown) => (typeof v === 'bigint' ? Number(v) : v)));
  }
  return seen.size;
}

describe('repeatable answers', () => {
  it('means over windows do not depend on the order of the rows', async () => {
    expect(await distinctAnswers(`FROM in_windows('per_model') ORDER BY ALL`, 12)).toBe(1);
  });

  it('changes against a baseline do not depend on the order of the rows', async () => {
    expect(await distinctAnswers(`WITH w AS (FROM in_windows('per_model')) SELECT cell, period, list_sort(vals) FROM period_changes('w')`, 12)).toBe(1);
    // Yearly values as a template hands them over (30 baseline years, 20 requested) for 400 models,
    // in a different order each time.
    await conn.run(`SET VARIABLE windows = NULL::STRUCT(s INTEGER, e INTEGER)[]`);
    await conn.run(`CREATE TABLE yearly AS
      SELECT 0 AS cell, 'm' || (i % 400) AS model, CASE WHEN i // 400 < 30 THEN -(1971 + i // 400) ELSE 2000 + i // 400 END AS period,
             hash(i) % 1000000000 / 1000.0 + 1e-3 / (1 + i % 97) AS value
      FROM range(20000) t(i)`);
    expect(await distinctAnswers(`WITH shuffled AS (FROM yearly ORDER BY random()) SELECT cell, period, list_sort(vals) FROM period_changes('shuffled')`, 12)).toBe(1);
  });

  it('n-day precipitation totals do not depend on how the window is evaluated', async () => {
    const dir = `${inject('dataDir')}`;
    const files = ['752103', '752104'].map((c) => `'${dir}/climate/NEX-GDDP/RCP85/${c}.parquet'`).join(', ');
    const monthly = ['752103', '752104'].map((c) => `'${dir}/monthly/NEX-GDDP/RCP85/${c}.parquet'`).join(', ');
    const sql = `SELECT cell, model, period, max(total) AS best, sum(total) AS all_totals FROM nday_totals([${files}], [${monthly}], NULL, [2050, 2051, 2052], 'custom', [{s: 101, e: 1231}]::STRUCT(s INTEGER, e INTEGER)[], 7) GROUP BY ALL ORDER BY ALL`;
    expect(await distinctAnswers(sql, 12)).toBe(1);
  });
});

