import fs from 'node:fs';
import path from 'node:path';
import { listValue, STRUCT, INTEGER, structValue, LIST, type DuckDBConnection, type DuckDBInstance } from '@duckdb/node-api';
import { CELL_PARQUET, cellPath } from '../climate/files.js';
import { heatColumn } from '../climate/summaryFormat.js';
import { sqlFile, sqlString } from '../db/sqlFiles.js';
import { forEachOnConnections } from '../db/workers.js';

export interface CellRef {
  dataDir: string;
  dataset: string;
  scenario: string;
  cellId: number;
}

const RANGE = STRUCT({ start_year: INTEGER, end_year: INTEGER });

/** A historic range for the heat-wave series. */
export interface SummaryRange {
  start_year: number;
  end_year: number;
  /** The datasets whose historical years hold it (catalog historic_range.datasets); every dataset when absent. */
  datasets?: string[];
}
/** The heat-wave series sql/build/monthly_summary.sql writes per month: one column per historic range. */
const MAX_HISTORIC_RANGES = 4;

/**
 * (Re)writes the monthly, ensemble and ensemble_json summaries of one cell and scenario from its daily file (and,
 * for the heat-wave series, the cell's historical file). Call it whenever a daily file changes;
 * the historical scenario's summaries must be written before the other scenarios' of the cell.
 * Each file is written beside its target and renamed over it, so readers see the old or the new.
 * The database must have the indicator macros loaded (loadSummaryMacros), once: concurrent
 * CREATE OR REPLACE MACRO from several connections conflict.
 */
export async function writeCellSummaries(conn: DuckDBConnection, cell: CellRef, allRanges: SummaryRange[]) {
  const historicRanges = rangesOfDataset(allRanges, cell.dataset);
  if (historicRanges.length > MAX_HISTORIC_RANGES) {
    throw new Error(`The monthly summaries hold the heat-wave series of at most ${MAX_HISTORIC_RANGES} historic ranges, got ${historicRanges.length}: add columns to sql/build/monthly_summary.sql.`);
  }
  const file = cellPath(cell.dataDir, 'climate', cell.dataset, cell.scenario, cell.cellId);
  const historic = cellPath(cell.dataDir, 'climate', cell.dataset, 'historical', cell.cellId);
  const hasHistoric = fs.existsSync(historic);
  const ranges = listValue(historicRanges.map((r) => structValue({ start_year: r.start_year, end_year: r.end_year })));
  await copyAtomically(conn, monthlySummarySql(historicRanges), cellPath(cell.dataDir, 'monthly', cell.dataset, cell.scenario, cell.cellId), {
    file,
    historic: hasHistoric ? historic : file,
    has_historic: hasHistoric,
    ranges,
  }, { ranges: LIST(RANGE) });
  const ensemble = cellPath(cell.dataDir, 'ensemble', cell.dataset, cell.scenario, cell.cellId);
  await copyAtomically(conn, sqlFile('build/ensemble_daily.sql'), ensemble, { file });
  await copyAtomically(conn, sqlFile('build/ensemble_json.sql'), cellPath(cell.dataDir, 'ensemble_json', cell.dataset, cell.scenario, cell.cellId), { ensemble });
}

/**
 * sql/build/monthly_summary.sql with its heat columns named for the ranges (integers of the catalog)
 * and its lines holding @ written once per run series (dry and a heat series per range).
 */
export function monthlySummarySql(ranges: SummaryRange[]): string {
  const series = ['dry', ...ranges.map((_, i) => `h${i + 1}`)];
  return forEachSeries(sqlFile('build/monthly_summary.sql'), series).replace('{{heat_columns}}', ranges.map((r, i) => `, h${i + 1} AS ${heatColumn(r.start_year)}`).join(''));
}

/** Each block of consecutive lines holding @, written once per series (@ replaced), the items separated by commas. */
export function forEachSeries(sql: string, series: string[]): string {
  return sql.replace(/(?:^[^\n@]*@[^\n]*\n)+/gm, (block) => {
    const lines = block.trimEnd().split('\n');
    return series.flatMap((name) => lines.map((line) => line.replaceAll('@', name))).join(',\n') + '\n';
  });
}

/** The macros the summaries use (run_summary, in_date_order, json_day_array): sql/indicators/macros.sql. */
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
export async function writeAllSummaries(db: DuckDBInstance, dataDir: string, workers: number, progress: (done: number, total: number) => void): Promise<number> {
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
 * scenarios, historical first) in order on one connection. The macros must be loaded. Returns the
 * partitions written.
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
    for (const cell of scenarios) {
      await writeCellSummaries(conn, cell, ranges);
      progress(++done, total);
    }
  });
  return done;
}
