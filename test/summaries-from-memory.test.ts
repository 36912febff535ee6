import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DOUBLE, INTEGER, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDuckDB, readRows, type Database } from '../src/db/duckdb.js';
import { withRowSource } from '../src/db/rowSource.js';
import { cellPath } from '../src/dataBuild/files.js';
import { EVENT_SERIES, heatColumn } from '../src/dataBuild/summaryFormat.js';
import { cellHistoric, loadSummaryMacros, rangesOfDataset, writeCellSummaries } from '../src/ingest/summaries.js';
import { historicNorms } from '../src/ingest/historicNorms.js';
import { historicThresholds } from '../src/ingest/historicThresholds.js';
import { syntheticDays } from '../src/ingest/syntheticDays.js';
import { forEachCellOnThreads } from '../src/ingest/cellThreads.js';
import { cellClimate, daysWithout360, writeSyntheticCell, writeSyntheticCellWithSummaries } from '../src/ingest/synthetic.js';
import { DATASETS, HISTORIC_RANGES, runOf } from '../src/reference/fixtures.js';

/**
 * The default build computes the monthly summaries, the ensemble statistics and the historical
 * climatology from the days it generated, in JavaScript (src/ingest/monthlySummaries.ts,
 * ensembleDays.ts, historicNorms.ts); the ingest and
 * `make summaries` read them from the cell's file in SQL (sql/build/monthly_summary.sql,
 * ensemble_daily.sql). Both must write the same summaries: here a cell of each dataset is built the
 * first way, then its summaries rewritten the second way, and the files (monthly, ensemble and its
 * JSON) compared row by row, on every calendar (standard, noleap, 360_day) and every historic range
 * of the dataset (the heat series).
 */
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'climate-summaries-from-memory-'));
let db: Database;
let conn: DuckDBConnection;

beforeAll(async () => {
  db = await openDuckDB({ threads: 1, memoryLimit: '1GB' });
  conn = await db.connect();
  await loadSummaryMacros(conn);
});

afterAll(async () => {
  conn?.closeSync();
  await db?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const q = <T>(sql: string) => readRows<T>(conn, sql);

describe('summaries from the days in memory', () => {
  for (const dataset of ['NEX-GDDP', 'LOCA2', 'NEX-GDDP-CMIP6']) {
    it(`are the same as the SQL from the file writes (${dataset})`, async () => {
      const d = DATASETS.find((x) => x.name === dataset)!;
      // A model of each calendar the dataset has, and one more.
      const calendars = new Map<string, string>();
      for (const m of d.models) if (!calendars.has(runOf(d, m)!.calendar)) calendars.set(runOf(d, m)!.calendar, m);
      const models = [...new Set([...calendars.values(), d.models[0]!])];
      const future = Object.keys(d.years).find((s) => s !== 'historical')!;
      const dataDir = path.join(tmp, dataset);
      const cell = { dataDir, seed: 7, dataset, cellId: 3, climate: cellClimate(33.4, -112.1, 260) };
      const scenarios = [
        { scenario: future, years: [2090, 2100] as [number, number], models: models.filter((m) => runOf(d, m)!.scenarios.includes(future)) },
        { scenario: 'historical', years: d.years.historical!, models },
      ];
      await writeSyntheticCellWithSummaries(conn, { ...cell, scenarios }, HISTORIC_RANGES);

      for (const { scenario } of scenarios) {
        const trees = ['monthly', 'ensemble', 'ensemble_json'] as const;
        const files = trees.map((tree) => cellPath(dataDir, tree, dataset, scenario, cell.cellId));
        for (const f of files) fs.copyFileSync(f, `${f}.memory`);
        await writeCellSummaries(conn, { dataDir, dataset, scenario, cellId: cell.cellId }, HISTORIC_RANGES);
        const years = scenarios.find((s) => s.scenario === scenario)!.years;
        const modelCount = models.filter((m) => runOf(d, m)!.scenarios.includes(scenario)).length;
        const days = Date.UTC(years[1] + 1, 0, 1) / 86_400_000 - Date.UTC(years[0], 0, 1) / 86_400_000;
        const rowsOf = { monthly: modelCount * (years[1] - years[0] + 1) * 12, ensemble: days, ensemble_json: years[1] - years[0] + 1 };
        for (const [k, tree] of trees.entries()) {
          const [a, b] = [`read_parquet('${files[k]}.memory')`, `read_parquet('${files[k]}')`];
          const schema = async (f: string) => (await q<{ column_name: string; column_type: string }>(`DESCRIBE SELECT * FROM ${f}`)).map((c) => `${c.column_name} ${c.column_type}`);
          expect(await schema(a), tree).toEqual(await schema(b));
          const [{ n, diff }] = (await q<{ n: number; diff: number }>(
            `SELECT (SELECT count(*) FROM ${a})::INT n,
                    (SELECT count(*) FROM (SELECT * FROM ${a} EXCEPT ALL SELECT * FROM ${b}))::INT
                  + (SELECT count(*) FROM (SELECT * FROM ${b} EXCEPT ALL SELECT * FROM ${a}))::INT diff`,
          )) as [{ n: number; diff: number }];
          expect([tree, n, diff]).toEqual([tree, rowsOf[tree], 0]);
        }
        const a = `read_parquet('${files[0]}.memory')`;
        // The comparison covers what it should: frost, dry runs and every range's heat series.
        const ranges = rangesOfDataset(HISTORIC_RANGES, dataset);
        const heat = ranges.map((r) => `count(${heatColumn(r.start_year)})::INT`).join(', ');
        const [covered] = await q<Record<string, number>>(`SELECT sum(frost_days)::INT frost, count(dry)::INT dry, ${heat} FROM ${a}`);
        expect(Object.values(covered!).every((v) => v > 0), JSON.stringify(covered)).toBe(true);
        expect(Object.keys(covered!)).toHaveLength(2 + ranges.length);
        // Freezing degree days: a year's on its first month's row; an offset year's only where the
        // model has the next year's days, so none starts in the last year.
        const yearCount = years[1] - years[0] + 1;
        const [afdd] = await q<Record<string, number>>(
          `SELECT count(afdd_year)::INT n_years, count(afdd_year) FILTER (WHERE month = 1)::INT january,
                  count(afdd_offset_year)::INT n_offset_years, count(afdd_offset_year) FILTER (WHERE year = ${years[1]})::INT in_last FROM ${a}`,
        );
        expect(afdd).toEqual({ n_years: modelCount * yearCount, january: modelCount * yearCount, n_offset_years: modelCount * (yearCount - 1), in_last: 0 });
        // The years' medians, on the year's first month's row, each between the year's extremes.
        const [medians] = await q<Record<string, number>>(
          `SELECT count(p50_tasmax_year)::INT tasmax, count(p50_tasmin_year) FILTER (WHERE month = 1)::INT tasmin_january, count(p50_pr_year)::INT pr,
                  count(*) FILTER (WHERE p50_tasmax_year > (SELECT max(m.max_tasmax) FROM ${a} m WHERE m.model = t.model AND m.year = t.year)
                                   OR p50_tasmin_year < (SELECT min(m.min_tasmin) FROM ${a} m WHERE m.model = t.model AND m.year = t.year))::INT outside FROM ${a} t`,
        );
        expect(medians).toEqual({ tasmax: modelCount * yearCount, tasmin_january: modelCount * yearCount, pr: modelCount * yearCount, outside: 0 });
        // The years' run summaries (packed, n + 512 longest + 262144 runs5), on the year's first
        // month's row: every year has dry runs, counting its months' days; a heat series of a range
        // with days in it has some years.
        const heatYears = ranges.map((r) => `count(${heatColumn(r.start_year)}_year)::INT`).join(' + ');
        const [runYears] = await q<Record<string, number>>(
          `SELECT count(dry_year)::INT dry, count(not_wet_year) FILTER (WHERE month = 1)::INT not_wet_january, ${heatYears || '0'} AS heat,
                  count(*) FILTER (WHERE dry_year IS NOT NULL AND dry_year % 512 <> (SELECT sum(m.dry.n) FROM ${a} m WHERE m.model = t.model AND m.year = t.year))::INT AS miscounted FROM ${a} t`,
        );
        expect(runYears).toMatchObject({ dry: modelCount * yearCount, not_wet_january: modelCount * yearCount, miscounted: 0 });
        if (ranges.length > 0) expect(runYears!.heat).toBeGreaterThan(0);
        // Days that no model has (Feb 29 where every model is noleap, a 360-day model's gaps alone) are NULL in both.
        const [gaps] = await q<{ empty: number; noModel: number }>(
          `SELECT count(*) FILTER (WHERE tasmax_avg IS NULL)::INT empty,
                  (SELECT count(*) FROM range(DATE '${years[0]}-01-01', DATE '${years[1] + 1}-01-01', INTERVAL 1 DAY) t(d)
                   WHERE d::DATE NOT IN (SELECT date FROM read_parquet('${cellPath(dataDir, 'climate', dataset, scenario, cell.cellId)}')))::INT noModel
           FROM read_parquet('${files[1]}.memory')`,
        );
        expect(gaps!.empty).toBe(gaps!.noModel);
      }
    });
  }

  it('takes the historical climatology of the heat series and the extreme events\' thresholds from the days, the same to the bit as the queries of the file', async () => {
    for (const d of DATASETS) {
      const models = d.models.filter((m) => runOf(d, m)!.scenarios.includes('historical')).sort();
      const calendars = new Set(models.map((m) => runOf(d, m)!.calendar));
      const years = d.years.historical!;
      const job = { seed: 5, dataset: d.name, cellId: 9, scenario: 'historical', years, models, climate: cellClimate(41.9, -87.6, 600) };
      const dataDir = path.join(tmp, 'norms', d.name);
      await writeSyntheticCell(conn, { ...job, outFile: cellPath(dataDir, 'climate', d.name, 'historical', 9) });
      const days = [...syntheticDays({ ...job, calendars: models.map((m) => runOf(d, m)!.calendar), skip360: { 365: daysWithout360(365), 366: daysWithout360(366) } })];
      const ranges = rangesOfDataset(HISTORIC_RANGES, d.name);
      const fromFile = await cellHistoric(conn, { dataDir, dataset: d.name, cellId: 9 }, HISTORIC_RANGES);
      const fromDays = historicNorms(days, ranges);
      expect(fromDays, `${d.name} (${[...calendars].join(', ')})`).toEqual(fromFile.norms);
      // Every range of the dataset has a norm on every slot (366: some models' years are leap years).
      expect([fromDays.length, ranges.every((_, h) => fromDays.every((r) => typeof [r.n1, r.n2, r.n3, r.n4][h] === 'number'))]).toEqual([366, true]);
      // The extreme events' thresholds: the build's, the ingest's and the request's
      // (historic_percentiles, which the day path of the extreme events joins) are one number.
      const thresholds = historicThresholds(models, days, ranges);
      expect(thresholds, d.name).toEqual(fromFile.thresholds);
      const file = cellPath(dataDir, 'climate', d.name, 'historical', 9);
      for (const [h, r] of ranges.entries()) {
        for (const [e, series] of EVENT_SERIES.entries()) {
          const [row] = await q<{ threshold: number }>(`SELECT threshold FROM historic_percentiles('${file}', ${r.start_year}, ${r.end_year}, '${series.variable}', ${series.percentile})`);
          expect(Object.is(row!.threshold, thresholds[h]![e]), `${d.name} ${r.start_year} ${series.series}: ${row!.threshold} against ${thresholds[h]![e]}`).toBe(true);
        }
      }
    }
  });
  it('gives a historic range without days no thresholds, in its place among the ranges', async () => {
    const d = DATASETS.find((x) => x.name === 'NEX-GDDP')!;
    const models = d.models.filter((m) => runOf(d, m)!.scenarios.includes('historical')).sort();
    const job = { seed: 5, dataset: d.name, cellId: 10, scenario: 'historical', years: [1985, 2005] as [number, number], models, climate: cellClimate(41.9, -87.6, 600) };
    const dataDir = path.join(tmp, 'short-history');
    await writeSyntheticCell(conn, { ...job, outFile: cellPath(dataDir, 'climate', d.name, 'historical', 10) });
    const days = [...syntheticDays({ ...job, calendars: models.map((m) => runOf(d, m)!.calendar), skip360: { 365: daysWithout360(365), 366: daysWithout360(366) } })];
    const ranges = rangesOfDataset(HISTORIC_RANGES, d.name);
    const fromFile = await cellHistoric(conn, { dataDir, dataset: d.name, cellId: 10 }, HISTORIC_RANGES);
    expect(ranges.map((r) => r.start_year)).toEqual([1951, 1961, 1971]);
    expect(fromFile.thresholds.map((t) => t.map((v) => typeof v))).toEqual([['object', 'object', 'object'], ['number', 'number', 'number'], ['number', 'number', 'number']]);
    expect(historicThresholds(models, days, ranges)).toEqual(fromFile.thresholds);
  });
});

describe('rows made in JavaScript as a table (row_source)', () => {
  const source = (batches: Iterable<(Int32Array | Float64Array)[]>) => ({ names: ['k', 'x'], types: [INTEGER, DOUBLE], batches });

  it('streams every batch, across chunk boundaries, in order', async () => {
    const big = Int32Array.from({ length: 5000 }, (_, i) => i);
    const rows = await withRowSource(conn, source([[big, Float64Array.from(big, (v) => v / 2)], [Int32Array.of(5000), Float64Array.of(2500)]]), async (id) =>
      q<{ n: number; ordered: boolean; sum: number }>(`SELECT count(*)::INT n, bool_and(k = r - 1) ordered, sum(x)::DOUBLE sum FROM (SELECT *, row_number() OVER () r FROM row_source(${id}))`),
    );
    expect(rows[0]).toEqual({ n: 5001, ordered: true, sum: (5000 * 5001) / 4 });
  });

  it('fails the query, not the process, when making the rows throws; and forgets the rows after', async () => {
    const failing = function* () {
      yield [Int32Array.of(1), Float64Array.of(1)];
      throw new Error('the generator broke');
    };
    let lastId = 0;
    await expect(
      withRowSource(conn, source({ [Symbol.iterator]: failing }), (id) => {
        lastId = id;
        return conn.run(`SELECT count(*) FROM row_source(${id})`);
      }),
    ).rejects.toThrow(/the generator broke/);
    await expect(conn.run(`SELECT count(*) FROM row_source(${lastId})`)).rejects.toThrow(/no rows registered/);
  });

  it('gives each of several connections at once its own rows', async () => {
    const conns = await Promise.all([1, 2, 3].map(() => db.connect()));
    try {
      const sums = await Promise.all(
        conns.map((c, j) => {
          const k = Int32Array.from({ length: 10_000 }, () => j + 1);
          return withRowSource(c, source([[k, new Float64Array(k)]]), (id) => readRows<{ s: number }>(c, `SELECT sum(k)::INT s FROM row_source(${id})`));
        }),
      );
      expect(sums.map((r) => r[0]!.s)).toEqual([10_000, 20_000, 30_000]);
    } finally {
      for (const c of conns) c.closeSync();
    }
  });
});

describe('cells on worker threads (the default build)', () => {
  const cell = (cellId: number, models: string[]) => ({
    dataDir: path.join(tmp, 'threads'),
    seed: 1,
    dataset: 'NEX-GDDP',
    cellId,
    climate: cellClimate(40, -75, 10),
    scenarios: [{ scenario: 'historical', years: [1990, 1991] as [number, number], models }],
  });

  it('builds each cell on a thread of its own and reports its rows', async () => {
    const done: [number, number][] = [];
    await forEachCellOnThreads([11, 12, 13], 2, (id) => cell(id, ['ACCESS1-0', 'CCSM4']), HISTORIC_RANGES, async (id, rows) => void done.push([id, rows]));
    // CCSM4 is on a 365-day calendar: 730 rows; ACCESS1-0 on the standard one: 730 (no leap year).
    expect(done.sort()).toEqual([[11, 1460], [12, 1460], [13, 1460]]);
    for (const id of [11, 12, 13]) expect(fs.existsSync(cellPath(path.join(tmp, 'threads'), 'ensemble_json', 'NEX-GDDP', 'historical', id))).toBe(true);
  });

  it('stops at a cell that fails, naming why, after the other threads end their cell', async () => {
    const done: number[] = [];
    const run = forEachCellOnThreads([21, 22, 23, 24], 2, (id) => cell(id, id === 22 ? ['no-such-model'] : ['CCSM4']), HISTORIC_RANGES, async (id) => void done.push(id));
    await expect(run).rejects.toThrow(/NEX-GDDP has no model no-such-model/);
    expect(done).not.toContain(22);
    // The thread that failed took no other cell; the other ended the one it had and took no more.
    expect(done.length).toBeLessThanOrEqual(2);
  });
});
