import fs from 'node:fs';
import path from 'node:path';
import { DOUBLE, listValue, STRUCT, INTEGER, structValue, LIST, VARCHAR, type DuckDBConnection } from '@duckdb/node-api';
import type { Database } from '../db/duckdb.js';
import { CELL_PARQUET, cellPath, type CellTree } from '../dataBuild/files.js';
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
  return (await cellsHistoric(conn, [cell], allRanges))[0]!;
}

/**
 * cellHistoric of cells of one dataset, their historical files read in two statements: planning
 * them cost more than reading a small cell's file (a 37-cell ingest spent 1.6 s of a connection in
 * 74 of them).
 */
async function cellsHistoric(conn: DuckDBConnection, cells: Omit<CellRef, 'scenario'>[], allRanges: SummaryRange[]): Promise<HistoricClimate[]> {
  const out: HistoricClimate[] = cells.map(() => ({ norms: [], thresholds: [] }));
  const files = cells.map((cell) => cellPath(cell.dataDir, 'climate', cell.dataset, 'historical', cell.cellId));
  const held = files.flatMap((file, k) => (fs.existsSync(file) ? [k] : []));
  if (held.length === 0) return out;
  const historic = listValue(held.map((k) => files[k]!));
  const ranges = listValue(rangesOfCell(allRanges, cells[0]!.dataset).map((r) => structValue({ start_year: r.start_year, end_year: r.end_year })));
  const types = { historic: LIST(VARCHAR), ranges: LIST(RANGE) };
  const norms = await conn.runAndReadAll(sqlFile('build/historic_norms.sql'), { historic, ranges }, types);
  const [heat, cold, wet] = EVENT_SERIES.map((e) => e.percentile) as [number, number, number];
  const thresholds = await conn.runAndReadAll(sqlFile('build/historic_thresholds.sql'), { historic, ranges, heat, cold, wet }, { ...types, heat: INTEGER, cold: INTEGER, wet: INTEGER });
  // Rows come in part order; part p is the cell held[p - 1].
  for (const { part, ...row } of norms.getRowObjectsJS() as unknown as (NormRow & { part: number })[]) out[held[part - 1]!]!.norms.push(row);
  for (const t of thresholds.getRowObjectsJS() as { part: number; heat: number | null; cold: number | null; wet: number | null }[]) out[held[t.part - 1]!]!.thresholds.push([t.heat, t.cold, t.wet]);
  return out;
}

/**
 * (Re)writes the monthly, ensemble and ensemble_json summaries of one cell and scenario from its
 * daily file (and, for the heat-wave series, the cell's historical climatology: `historic`, read
 * from its historical file when not given). Call it whenever a daily file changes, and for every
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
  if (!given) {
    await writePartSummaries(conn, [{ cell, historic: historic ?? (await cellHistoric(conn, cell, allRanges)) }], allRanges, () => {});
    return;
  }
  const monthly = cellPath(cell.dataDir, 'monthly', cell.dataset, cell.scenario, cell.cellId);
  await withRowSource(conn, given.monthly, (id) => copyAtomically(conn, monthlySummarySql(rangesOfCell(allRanges, cell.dataset), true), monthly, { summaries: id }));
  const ensemble = cellPath(cell.dataDir, 'ensemble', cell.dataset, cell.scenario, cell.cellId);
  await withRowSource(conn, given.ensemble, (id) => copyAtomically(conn, sqlFile('build/ensemble_daily_given.sql'), ensemble, { ensemble: id }));
  const json = cellPath(cell.dataDir, 'ensemble_json', cell.dataset, cell.scenario, cell.cellId);
  await copyAtomically(conn, `SELECT * EXCLUDE (part) FROM (${sqlFile('build/ensemble_json.sql')})`, json, { ensembles: listValue([ensemble]) }, { ensembles: LIST(VARCHAR) });
}

/** A partition whose summaries to write, with its cell's historic climate. */
interface SummaryPart {
  cell: CellRef;
  historic: HistoricClimate;
}

const NORMS = LIST(STRUCT({ part: INTEGER, slot: INTEGER, n1: DOUBLE, n2: DOUBLE, n3: DOUBLE, n4: DOUBLE }));
/** The extreme events' thresholds as monthly_summary.sql takes them ($thresholds): a row per part, a column per (range, event). */
const THRESHOLD_FIELDS = Array.from({ length: MAX_HISTORIC_RANGES }, (_, i) => ['heat', 'cold', 'wet'].map((e) => `t${i + 1}_${e}`)).flat();
const THRESHOLDS = LIST(STRUCT({ part: INTEGER, ...Object.fromEntries(THRESHOLD_FIELDS.map((f) => [f, DOUBLE])) }));

/** The temporary tables a batch fills (one per connection, so batches on several connections do not meet), and each file's row order. */
const BATCH_TABLES = {
  monthly_parts: 'model, year, month',
  ensemble_parts: 'date',
  ensemble_json_parts: 'year',
} as const;

/**
 * Writes the summaries of partitions of one dataset from their daily files, each summary of all of
 * them in one statement into a temporary table (planning sql/build/monthly_summary.sql costs 0.1-0.2 s
 * of CPU, more than a small partition's summaries), then each partition's files from the tables;
 * `progress` after each partition.
 */
async function writePartSummaries(conn: DuckDBConnection, parts: SummaryPart[], allRanges: SummaryRange[], progress: () => void) {
  const dataset = parts[0]!.cell.dataset;
  if (parts.some((p) => p.cell.dataset !== dataset)) throw new Error('writePartSummaries: one dataset at a time (their historic ranges differ)');
  const fileOf = (tree: CellTree, { cell }: SummaryPart) => cellPath(cell.dataDir, tree, cell.dataset, cell.scenario, cell.cellId);
  const files = listValue(parts.map((p) => fileOf('climate', p)));
  const norms = parts.flatMap(({ historic }, i) => historic.norms.map((r) => structValue({ part: i + 1, slot: r.slot, n1: r.n1, n2: r.n2, n3: r.n3, n4: r.n4 })));
  const thresholds = parts.flatMap(({ historic }, i) => {
    if (historic.thresholds.length === 0) return [];
    const values = historic.thresholds.flat();
    return [structValue({ part: i + 1, ...Object.fromEntries(THRESHOLD_FIELDS.map((f, j) => [f, values[j] ?? null])) })];
  });
  const fill = (table: keyof typeof BATCH_TABLES, sql: string, params: Record<string, unknown>, types: Record<string, unknown>) =>
    conn.run(`CREATE OR REPLACE TEMP TABLE ${table} AS ${sql}`, params as never, types as never);
  const writeParts = async (table: keyof typeof BATCH_TABLES, tree: CellTree, written = () => {}) => {
    const sql = sqlFile('build/part_rows.sql').replace('{{table}}', table).replace('{{order}}', BATCH_TABLES[table]);
    for (const [i, part] of parts.entries()) {
      await copyAtomically(conn, sql, fileOf(tree, part), { part: i + 1 }, { part: INTEGER });
      written();
    }
  };
  try {
    await fill('monthly_parts', monthlySummarySql(rangesOfCell(allRanges, dataset)), { files, norms: listValue(norms), thresholds: listValue(thresholds) }, { files: LIST(VARCHAR), norms: NORMS, thresholds: THRESHOLDS });
    await writeParts('monthly_parts', 'monthly');
    await fill('ensemble_parts', sqlFile('build/ensemble_daily.sql'), { files }, { files: LIST(VARCHAR) });
    await writeParts('ensemble_parts', 'ensemble');
    await fill('ensemble_json_parts', sqlFile('build/ensemble_json.sql'), { ensembles: listValue(parts.map((p) => fileOf('ensemble', p))) }, { ensembles: LIST(VARCHAR) });
    await writeParts('ensemble_json_parts', 'ensemble_json', progress);
  } finally {
    for (const table of Object.keys(BATCH_TABLES)) await conn.run(`DROP TABLE IF EXISTS ${table}`);
  }
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

/** At most this many partitions, and daily files of at most this many bytes, per monthly-summary statement. */
const BATCH_PARTS = 32;
const BATCH_BYTES = 64 * 2 ** 20;

/**
 * Writes the summaries of groups of partitions (each one cell's scenarios, its climatology read
 * once), `workers` batches at a time on connections of their own: consecutive groups of one
 * dataset, up to BATCH_PARTS partitions or BATCH_BYTES of days, in one monthly-summary statement.
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
  await forEachOnConnections(batchesOf(groups.filter((g) => g.length > 0)), workers, connect, async (conn, batch) => {
    const historic = await cellsHistoric(conn, batch.map((group) => group[0]!), ranges);
    const parts: SummaryPart[] = batch.flatMap((group, k) => group.map((cell) => ({ cell, historic: historic[k]! })));
    await writePartSummaries(conn, parts, ranges, () => progress(++done, total));
  });
  return done;
}

/** Consecutive groups of one dataset, up to BATCH_PARTS partitions or BATCH_BYTES of daily files each (a group is never split). */
function batchesOf(groups: CellRef[][]): CellRef[][][] {
  const batches: CellRef[][][] = [];
  let batch: CellRef[][] = [];
  let parts = 0;
  let bytes = 0;
  for (const group of groups) {
    const size = group.reduce((n, c) => n + fs.statSync(cellPath(c.dataDir, 'climate', c.dataset, c.scenario, c.cellId)).size, 0);
    if (batch.length > 0 && (batch[0]![0]!.dataset !== group[0]!.dataset || parts + group.length > BATCH_PARTS || bytes + size > BATCH_BYTES)) {
      batches.push(batch);
      batch = [];
      parts = 0;
      bytes = 0;
    }
    batch.push(group);
    parts += group.length;
    bytes += size;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}
