import fs from 'node:fs';
import path from 'node:path';
import { DOUBLE, listValue, STRUCT, INTEGER, structValue, LIST, type DuckDBConnection } from '@duckdb/node-api';
import type { Database } from '../db/duckdb.js';
import { CELL_PARQUET, cellPath } from '../dataBuild/files.js';
import { eventColumn, EVENT_SERIES, heatColumn } from '../dataBuild/summaryFormat.js';
import { sqlFile, sqlString } from '../db/sqlFiles.js';
import { forEachOnConnections } from '../db/workers.js';
import { withRowSource, type RowSource } from '../db/rowSource.js';

export interface CellRef {
  dataDir: string;
  dataset: string;
  scenario: string;
  cellId: number;
}

const RANGE = STRUCT({ start_year: INTEGER, end_year: INTEGER });
const NORMS = LIST(STRUCT({ slot: INTEGER, n1: DOUBLE, n2: DOUBLE, n3: DOUBLE, n4: DOUBLE }));

/** A historic range for the heat-wave series. */
export interface SummaryRange {
  start_year: number;
  end_year: number;
  /** The datasets whose historical years hold it (catalog historic_range.datasets); every dataset when absent. */
  datasets?: string[];
}
/** The heat-wave series sql/build/monthly_summary.sql writes per month: one column per historic range. */
const MAX_HISTORIC_RANGES = 4;

/** A day slot (day of the year - 1) of a cell's daily climatology: the mean tasmax of each historic range (sql/build/historic_norms.sql). */
export interface NormRow {
  slot: number;
  n1: number | null;
  n2: number | null;
  n3: number | null;
  n4: number | null;
}

/**
 * The thresholds of the extreme events at their default percentiles (EVENT_SERIES, in its order)
 * over one historic range: null where no model has a day in the range.
 */
export type EventThresholds = (number | null)[];

/** The historic ranges of the cell's dataset, at most MAX_HISTORIC_RANGES of them. */
function rangesOfCell(allRanges: SummaryRange[], dataset: string): SummaryRange[] {
  const ranges = rangesOfDataset(allRanges, dataset);
  if (ranges.length > MAX_HISTORIC_RANGES) {
    throw new Error(`The monthly summaries hold the heat-wave series of at most ${MAX_HISTORIC_RANGES} historic ranges, got ${ranges.length}: add columns to sql/build/monthly_summary.sql.`);
  }
  return ranges;
}

/**
 * What every scenario's summaries of a cell compare with, from its historical days: the daily
 * climatology of each historic range (the heat-wave series) and the extreme events' thresholds
 * per range (EVENT_SERIES, in its order).
 */
export interface HistoricClimate {
  norms: NormRow[];
  thresholds: EventThresholds[];
}

/**
 * The historic climate of each historic range of the cell's dataset, from its historical file
 * (none without one). Read it once per cell and hand it to writeCellSummaries for each scenario.
 */
export async function cellHistoric(conn: DuckDBConnection, cell: Omit<CellRef, 'scenario'>, allRanges: SummaryRange[]): Promise<HistoricClimate> {
  const historic = cellPath(cell.dataDir, 'climate', cell.dataset, 'historical', cell.cellId);
  if (!fs.existsSync(historic)) return { norms: [], thresholds: [] };
  const ranges = listValue(rangesOfCell(allRanges, cell.dataset).map((r) => structValue({ start_year: r.start_year, end_year: r.end_year })));
  const norms = await conn.runAndReadAll(sqlFile('build/historic_norms.sql'), { historic, ranges }, { ranges: LIST(RANGE) });
  const [heat, cold, wet] = EVENT_SERIES.map((e) => e.percentile) as [number, number, number];
  const thresholds = await conn.runAndReadAll(sqlFile('build/historic_thresholds.sql'), { historic, ranges, heat, cold, wet }, { ranges: LIST(RANGE), heat: INTEGER, cold: INTEGER, wet: INTEGER });
  return {
    norms: norms.getRowObjectsJS() as unknown as NormRow[],
    thresholds: (thresholds.getRowObjectsJS() as { heat: number | null; cold: number | null; wet: number | null }[]).map((t) => [t.heat, t.cold, t.wet]),
  };
}

/** The extreme events' thresholds as monthly_summary.sql takes them ($thresholds): a struct per range. */
const THRESHOLDS = LIST(STRUCT({ heat: DOUBLE, cold: DOUBLE, wet: DOUBLE }));
const thresholdsValue = (thresholds: EventThresholds[]) => listValue(thresholds.map(([heat, cold, wet]) => structValue({ heat: heat ?? null, cold: cold ?? null, wet: wet ?? null })));

/**
 * (Re)writes the monthly, ensemble and ensemble_json summaries of one cell and scenario from its
 * daily file (and, for the heat-wave series, the cell's historical climatology: `norms`, read from
 * its historical file when not given). Call it whenever a daily file changes, and for every
 * scenario of a cell whose historical file changed. Each file is written beside its target and
 * renamed over it, so readers see the old or the new. The database must have the indicator macros
 * loaded (loadSummaryMacros), once: concurrent CREATE OR REPLACE MACRO from several connections conflict.
 * `given`: the monthly summaries and the ensemble statistics of the file's days when the caller has
 * them in memory (the build: monthlySummaries.ts, ensembleDays.ts), instead of reading the file for them.
 */
export async function writeCellSummaries(
  conn: DuckDBConnection,
  cell: CellRef,
  allRanges: SummaryRange[],
  historic?: HistoricClimate,
  given?: { monthly: RowSource; ensemble: RowSource },
) {
  const historicRanges = rangesOfCell(allRanges, cell.dataset);
  const file = cellPath(cell.dataDir, 'climate', cell.dataset, cell.scenario, cell.cellId);
  const monthly = cellPath(cell.dataDir, 'monthly', cell.dataset, cell.scenario, cell.cellId);
  if (given) {
    await withRowSource(conn, given.monthly, (id) => copyAtomically(conn, monthlySummarySql(historicRanges, true), monthly, { summaries: id }));
  } else {
    const { norms, thresholds } = historic ?? (await cellHistoric(conn, cell, allRanges));
    const normsValue = listValue(norms.map((r) => structValue({ slot: r.slot, n1: r.n1, n2: r.n2, n3: r.n3, n4: r.n4 })));
    await copyAtomically(conn, monthlySummarySql(historicRanges), monthly, { file, norms: normsValue, thresholds: thresholdsValue(thresholds) }, { norms: NORMS, thresholds: THRESHOLDS });
  }
  const ensemble = cellPath(cell.dataDir, 'ensemble', cell.dataset, cell.scenario, cell.cellId);
  if (given) await withRowSource(conn, given.ensemble, (id) => copyAtomically(conn, sqlFile('build/ensemble_daily_given.sql'), ensemble, { ensemble: id }));
  else await copyAtomically(conn, sqlFile('build/ensemble_daily.sql'), ensemble, { file });
  await copyAtomically(conn, sqlFile('build/ensemble_json.sql'), cellPath(cell.dataDir, 'ensemble_json', cell.dataset, cell.scenario, cell.cellId), { ensemble });
}

/**
 * sql/build/monthly_summary.sql with its heat columns named for the ranges (integers of the catalog)
 * and its lines holding @ written once per run series (dry and a heat series per range); or, with
 * `given`, monthly_summary_given.sql, whose lines holding @ are the heat series'.
 */
export function monthlySummarySql(ranges: SummaryRange[], given = false): string {
  const heat = ranges.map((_, i) => `h${i + 1}`);
  const sql = given ? forEachSeries(sqlFile('build/monthly_summary_given.sql'), heat) : forEachSeries(sqlFile('build/monthly_summary.sql'), ['dry', ...heat]);
  return sql.replace(
    '{{heat_columns}}',
    ranges
      .map((r, i) => `, h${i + 1} AS ${heatColumn(r.start_year)}, h${i + 1}_year AS ${heatColumn(r.start_year)}_year${EVENT_SERIES.map((e) => `, h${i + 1}_${e.series} AS ${eventColumn(e.series, r.start_year)}`).join('')}`)
      .join(''),
  );
}

/** Each block of consecutive lines holding @, written once per series (@ replaced), the items separated by commas. */
export function forEachSeries(sql: string, series: string[]): string {
  return sql.replace(/(?:^[^\n@]*@[^\n]*\n)+/gm, (block) => {
    const lines = block.trimEnd().split('\n');
    return series.flatMap((name) => lines.map((line) => line.replaceAll('@', name))).join(',\n') + '\n';
  });
}

/** The macros the summaries use (run_summary, in_date_order, json_day_value): sql/indicators/macros.sql. */
export async function loadSummaryMacros(conn: DuckDBConnection) {
  await conn.run(sqlFile('indicators/macros.sql'));
}

async function copyAtomically(conn: DuckDBConnection, select: string, target: string, params: Record<string, unknown>, types?: Record<string, unknown>) {
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const tmp = `${target}.tmp-${process.pid}`;
  // COPY takes no parameter for its target; the path is the build's own, not user input.
  await conn.run(`COPY (${select}) TO ${sqlString(tmp)} (${CELL_PARQUET})`, params as never, types as never);
  fs.renameSync(tmp, target);
}

/** The ranges of the dataset: a CMIP5 historical run (to 2005) does not hold 1981-2010. */
export const rangesOfDataset = (ranges: SummaryRange[], dataset: string) => ranges.filter((r) => !r.datasets || r.datasets.includes(dataset));

/**
 * The historic ranges of a data build's catalog, for the heat-wave series of the summaries, with
 * the datasets each applies to (builds older than the CMIP6 datasets have no such column: then
 * every range applies to every dataset, as it did).
 */
export async function historicRanges(conn: DuckDBConnection, dataDir: string): Promise<SummaryRange[]> {
  const file = path.join(dataDir, 'catalog', 'historic_range.parquet');
  const reader = await conn.runAndReadAll(`SELECT * FROM read_parquet($file) ORDER BY start_year`, { file });
  return (reader.getRowObjectsJS() as { start_year: number; end_year: number; datasets?: string[] }[]).map((r) => ({
    start_year: Number(r.start_year),
    end_year: Number(r.end_year),
    ...(r.datasets ? { datasets: r.datasets } : {}),
  }));
}

/**
 * (Re)writes the summaries of every cell of a data build, `workers` cells at a time (each on its
 * own connection; one cell's queries use little parallelism): what a build made by an older
 * version of the service needs. Historical first within each cell. Returns the partitions written.
 */
export async function writeAllSummaries(db: Database, dataDir: string, workers: number, progress: (done: number, total: number) => void): Promise<number> {
  const first = await db.connect();
  await loadSummaryMacros(first);
  const ranges = await historicRanges(first, dataDir);
  first.closeSync();
  const cells: CellRef[][] = [];
  const climate = path.join(dataDir, 'climate');
  for (const dataset of fs.existsSync(climate) ? fs.readdirSync(climate).sort() : []) {
    const byCell = new Map<number, string[]>();
    for (const scenario of fs.readdirSync(path.join(climate, dataset)).sort()) {
      for (const name of fs.readdirSync(path.join(climate, dataset, scenario))) {
        const m = /^(\d+)\.parquet$/.exec(name);
        if (m) byCell.set(Number(m[1]), [...(byCell.get(Number(m[1])) ?? []), scenario]);
      }
    }
    for (const [cellId, scenarios] of byCell) {
      const order = (s: string) => (s === 'historical' ? 0 : 1);
      cells.push(scenarios.sort((a, b) => order(a) - order(b)).map((scenario) => ({ dataDir, dataset, scenario, cellId })));
    }
  }
  return writeSummaries(cells, ranges, workers, () => db.connect(), progress);
}

/**
 * Writes the summaries of groups of partitions, `workers` groups at a time, each group (one cell's
 * scenarios, historical first) in order on one connection, with the cell's climatology read once.
 * The macros must be loaded. Returns the partitions written.
 */
export async function writeSummaries(
  groups: CellRef[][],
  ranges: SummaryRange[],
  workers: number,
  connect: () => Promise<DuckDBConnection>,
  progress: (done: number, total: number) => void,
): Promise<number> {
  const total = groups.reduce((n, c) => n + c.length, 0);
  let done = 0;
  await forEachOnConnections(groups, workers, connect, async (conn, scenarios) => {
    const historic = scenarios.length > 0 ? await cellHistoric(conn, scenarios[0]!, ranges) : undefined;
    for (const cell of scenarios) {
      await writeCellSummaries(conn, cell, ranges, historic);
      progress(++done, total);
    }
  });
  return done;
}
