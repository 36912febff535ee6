import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDuckDB, readRows, type Database } from '../src/db/duckdb.js';
import { cellPath } from '../src/dataBuild/files.js';
import { forEachSeries, loadSummaryMacros, writeCellSummaries } from '../src/ingest/summaries.js';

/**
 * The monthly summaries' run series come from the bits of the month's flags (run_summary_bits and
 * the doubling steps of sql/build/monthly_summary.sql). Here they are compared with run_summary of
 * the days' flags in date order (the list-based definition in sql/indicators/macros.sql) on days
 * made to hit the edges: months all dry and all wet, runs of every length up to 31, a day missing
 * anywhere in the month (day 1, mid-month, the last day: a 360-day calendar's gaps), two or three
 * days missing, days without a value, and pr < 0 (not_wet then differs from dry).
 */
const DATASET = 'NEX-GDDP-CMIP6';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'climate-run-summaries-'));
let db: Database;
let conn: DuckDBConnection;

// Per (model, month) a kind of month; per day a draw; all from hash(), so a failure repeats.
const DAYS = `
  WITH days AS (
    SELECT m.model, d::DATE AS date,
           hash(m.model, year(d), month(d)) % 9 AS kind,
           hash(m.model, d) % 1000 AS draw,
           hash(m.model, year(d), month(d), 'gap') % 31 + 1 AS gap1,
           hash(m.model, year(d), month(d), 'gap2') % 31 + 1 AS gap2
    FROM (VALUES ('A'), ('B'), ('C')) m(model), range(DATE '1981-01-01', DATE '1986-01-01', INTERVAL 1 DAY) t(d)
  )
  SELECT model, date,
         -- heat: a warm spell in some months, else a few hot days
         (285 + 10 * sin(dayofyear(date) / 58.0) + CASE WHEN kind IN (3, 4) AND day(date) BETWEEN 3 AND 27 THEN 25 ELSE (draw % 13) END)::FLOAT AS tasmax,
         270::FLOAT AS tasmin,
         CASE
           WHEN kind = 0 THEN 0                                  -- all dry
           WHEN kind = 1 THEN 1e-5                               -- all wet
           WHEN kind = 2 THEN CASE WHEN day(date) BETWEEN draw % 10 + 1 AND draw % 10 + 1 + hash(model, month(date)) % 25 THEN 0 ELSE 1e-5 END
           WHEN kind = 5 AND draw < 40 THEN NULL                -- days without a value
           WHEN kind = 6 AND draw < 60 THEN -1e-6                -- pr < 0: dry and not_wet differ
           WHEN draw < 700 THEN 0 ELSE 2e-5 END::FLOAT AS pr
  FROM days
  -- one day missing in kinds 7 and 8 (a 360-day calendar's gap: day 1, the last day, anywhere),
  -- two or three in some months of kind 8
  WHERE NOT (kind IN (7, 8) AND day(date) = gap1)
    AND NOT (kind = 8 AND (day(date) = gap2 OR (draw < 30 AND day(date) > 20)))
  ORDER BY model, date`;

beforeAll(async () => {
  db = await openDuckDB({ threads: 1, memoryLimit: '512MB' });
  conn = await db.connect();
  await loadSummaryMacros(conn);
  const file = cellPath(tmp, 'climate', DATASET, 'historical', 1);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  await conn.run(`COPY (${DAYS}) TO '${file}' (FORMAT parquet)`);
  await writeCellSummaries(conn, { dataDir: tmp, dataset: DATASET, scenario: 'historical', cellId: 1 }, [
    { start_year: 1961, end_year: 1990 },
    { start_year: 1981, end_year: 2010 },
  ]);
});

afterAll(async () => {
  conn?.closeSync();
  await db?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('monthly run summaries from bits', () => {
  it('equal run_summary of the days in date order for every month and series', async () => {
    const days = cellPath(tmp, 'climate', DATASET, 'historical', 1);
    const monthly = cellPath(tmp, 'monthly', DATASET, 'historical', 1);
    // The reference: each series' flags in date order, days without a flag left out; a heat series
    // with no day that has a norm is NULL, as the summaries write it.
    const series = (flag: string) =>
      `CASE WHEN count(${flag}) > 0 THEN run_summary(in_date_order(list({'date': date, 'flag': ${flag}}) FILTER (WHERE (${flag}) IS NOT NULL))) END`;
    const all = `{dry: dry, not_wet: not_wet, heat_1961: heat_1961, heat_1981: heat_1981}`;
    const rows = await readRows<{ model: string; year: number; month: number; days: number; same: boolean; want: string; got: string }>(
      conn,
      `WITH days AS (
         SELECT *, (dayofyear(date) - 1)::INTEGER AS slot FROM read_parquet('${days}')
       ),
       norms AS (
         SELECT slot,
                favg(tasmax::DOUBLE) FILTER (WHERE year(date) BETWEEN 1961 AND 1990) AS n1,
                favg(tasmax::DOUBLE) FILTER (WHERE year(date) BETWEEN 1981 AND 2010) AS n2
         FROM days WHERE tasmax IS NOT NULL GROUP BY slot
       ),
       want AS (
         SELECT model, year(date)::INTEGER AS year, month(date)::INTEGER AS month, count(*)::INTEGER AS days,
                ${series('pr = 0')} AS dry, ${series('NOT (pr > 0)')} AS not_wet,
                ${series('tasmax > n1 + 5')} AS heat_1961, ${series('tasmax > n2 + 5')} AS heat_1981
         FROM days LEFT JOIN norms USING (slot)
         GROUP BY ALL
       ),
       got AS (FROM read_parquet('${monthly}'))
       SELECT model, year, month, w.days, to_json(${all.replaceAll(': ', ': w.')}) = to_json(${all.replaceAll(': ', ': g.')}) AS same,
              to_json(${all.replaceAll(': ', ': w.')}) AS want, to_json(${all.replaceAll(': ', ': g.')}) AS got
       FROM want w FULL JOIN got g USING (model, year, month)
       ORDER BY ALL`,
    );
    expect(rows).toHaveLength(3 * 5 * 12);
    expect(rows.filter((r) => !r.same).map((r) => `${r.model} ${r.year}-${r.month}: want ${r.want}, got ${r.got}`)).toEqual([]);

    // The days hit the edges this test is for.
    const summaries = rows.map((r) => JSON.parse(r.want) as Record<string, { n: number; head: number; longest: number; runs5: number } | null>);
    expect(summaries.some((s) => s.dry!.longest === s.dry!.n && s.dry!.n >= 28)).toBe(true); // a month all dry
    expect(summaries.some((s) => s.dry!.longest === 0 && s.dry!.n >= 28)).toBe(true); // all wet
    expect(new Set(summaries.map((s) => s.dry!.longest)).size).toBeGreaterThan(15);
    expect(summaries.some((s) => s.heat_1981 && s.heat_1981.runs5 > 0)).toBe(true);
    expect(summaries.some((s) => JSON.stringify(s.dry) !== JSON.stringify(s.not_wet))).toBe(true); // pr < 0
    expect(summaries.some((s) => s.heat_1961 === null)).toBe(false);
    // Months with one, two and three days missing.
    const full = (r: { year: number; month: number }) => new Date(Date.UTC(r.year, r.month, 0)).getUTCDate();
    const missing = new Set(rows.map((r) => full(r) - r.days));
    expect([...missing].sort()).toEqual(expect.arrayContaining([0, 1, 2, 3]));
  });

  it('writes each block of lines holding @ once per series, the items separated by commas', () => {
    const sql = 'SELECT a,\n  f(@) AS @_x\n  g(@) AS @_y\nFROM t';
    expect(forEachSeries(sql, ['dry', 'h1'])).toBe('SELECT a,\n  f(dry) AS dry_x,\n  g(dry) AS dry_y,\n  f(h1) AS h1_x,\n  g(h1) AS h1_y\nFROM t');
  });
});
