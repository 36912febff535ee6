import { listValue, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { climateFile } from '../dataBuild/files.js';
import type { QueryPool } from '../db/queryPool.js';
import { sqlFile, sqlString } from '../db/sqlFiles.js';
import type { ExportPlan } from './exportPlan.js';
import type { IndicatorColumns } from './indicatorValues.js';
import type { PlaceGrid } from './placeGrid.js';

/**
 * The Parquet and CSV files of an export: long form, one row per value, written by DuckDB.
 * Columns: dataset, scenario, model, cell_id, lat, lon, [location], date | period,
 * variable | indicator, value. Parquet is typed (DATE, FLOAT for raw values as stored, DOUBLE
 * for indicators) and zstd-compressed; the CSV has the same columns but dataset and scenario, with
 * a header line: a CSV is one scenario of one dataset, which its name and the job's record say.
 */
export type TableFormat = 'parquet' | 'csv';

/**
 * Parquet as the data build writes it (V2 pages: floats byte-stream-split, dates delta-encoded),
 * zstd at level 1, no dictionaries: on New York City's rows the writer's CPU per value fell to a
 * third of the defaults' (V1, zstd 3, dictionaries tried on every column) and the file was 18%
 * smaller (4.4 M values: 0.94 s against 2.6 s, 9.5 MB against 11.7 MB).
 */
const COPY_OPTIONS: Record<TableFormat, string> = {
  parquet: 'FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 1, PARQUET_VERSION V2, DICTIONARY_SIZE_LIMIT 1',
  csv: 'FORMAT csv, HEADER true',
};

/** How often a running COPY's progress (DuckDB's own count of rows read) is passed on. */
const PROGRESS_MS = 1000;

/**
 * Runs one COPY on `conn`, telling `progress` DuckDB's fraction done every second: a scenario's
 * file is one statement, which may run for minutes.
 */
async function copyWithProgress(conn: DuckDBConnection, sql: string, params: Record<string, DuckDBValue>, progress: (fraction: number) => void): Promise<void> {
  const tick = setInterval(() => {
    const p = conn.progress.percentage;
    if (p >= 0) progress(Math.min(1, p / 100));
  }, PROGRESS_MS);
  try {
    await conn.run(sql, params);
  } finally {
    clearInterval(tick);
  }
}

/** The ENUM type the rows' labels are cast to (sql/export/labels_type.sql). */
async function labelsType(conn: DuckDBConnection, labels: string[]) {
  await conn.run(sqlFile('export/labels_type.sql'), { labels: listValue(labels) });
}

/** The dataset and scenario columns, with their parameters: in Parquet only (see TableFormat). */
function constantColumns(format: TableFormat, label: 'export_label' | 'VARCHAR', plan: ExportPlan, scenario: ExportPlan['scenarios'][number]): { sql: string; params: Record<string, DuckDBValue> } {
  if (format === 'csv') return { sql: '', params: {} };
  return { sql: `$dataset::${label} AS dataset, $scenario::${label} AS scenario, `, params: { dataset: plan.dataset, scenario: scenario.name } };
}

/** One scenario's raw values into `target`, in one statement: DuckDB reads, reshapes and writes, on all its threads. */
export async function writeRawTable(queries: QueryPool, dataDir: string, plan: ExportPlan, scenario: ExportPlan['scenarios'][number], format: TableFormat, target: string, progress: (fraction: number) => void, signal?: AbortSignal): Promise<void> {
  if (plan.what.kind !== 'variables') throw new Error('writeRawTable: the plan exports indicators');
  const where = plan.where;
  // The distinct cells with a file, in the plan's order, each with the places that read it.
  const cells = new Map<number, { file: string; lat: number; lon: number; labels: string[] }>();
  const list = where.kind === 'area' ? where.cells.map((c) => ({ ...c, label: '' })) : where.locations;
  for (const c of list) {
    const file = climateFile(dataDir, plan.dataset, scenario.name, c.cellId);
    if (file === undefined) continue;
    const cell = cells.get(c.cellId) ?? { file, lat: c.lat, lon: c.lon, labels: [] };
    cell.labels.push(c.label);
    cells.set(c.cellId, cell);
  }
  const entries = [...cells.entries()];
  const locations = where.kind === 'locations';
  const constants = constantColumns(format, 'export_label', plan, scenario);
  const branch = sqlFile('export/raw_long.sql')
    .replace('{{location}}', locations ? 'unnest($locations[file_index::BIGINT + 1])::export_label AS location, ' : '')
    .replace('{{constants}}', constants.sql);
  const select = plan.what.variables.map((v) => branch.replaceAll('{{variable}}', v)).join('\nUNION ALL\n');
  const params: Record<string, DuckDBValue> = {
    files: listValue(entries.map(([, c]) => c.file)),
    cell_ids: listValue(entries.map(([id]) => id)),
    lats: listValue(entries.map(([, c]) => c.lat)),
    lons: listValue(entries.map(([, c]) => c.lon)),
    models: listValue(scenario.models),
    years: listValue(scenario.years),
    ...constants.params,
    ...(locations ? { locations: listValue(entries.map(([, c]) => listValue(c.labels))) } : {}),
  };
  const labels = [plan.dataset, scenario.name, ...scenario.models, ...plan.what.variables, ...(locations ? list.map((l) => l.label) : [])];
  await queries.run(async (conn) => {
    await labelsType(conn, labels);
    // Unordered, the COPY runs on every thread of the runner (EXPORT_THREADS); in order, on one.
    await conn.run('SET preserve_insertion_order = false');
    try {
      await copyWithProgress(conn, `COPY (${select}) TO ${sqlString(target)} (${COPY_OPTIONS[format]})`, params, progress);
    } finally {
      await conn.run('RESET preserve_insertion_order');
    }
  }, signal);
}

/** One scenario's indicator values, collected in `export_indicator_rows` (indicatorValues.ts), into `target`. */
export async function writeIndicatorTable(queries: QueryPool, plan: ExportPlan, scenario: ExportPlan['scenarios'][number], found: IndicatorColumns[], places: PlaceGrid, format: TableFormat, target: string, signal?: AbortSignal): Promise<void> {
  const locations = plan.where.kind === 'locations';
  const list = plan.where.kind === 'area' ? plan.where.cells.map((c) => ({ ...c, label: '' })) : plan.where.locations;
  const cellIndex = new Map(places.cellIds.map((id, i) => [id, i]));
  const starts: number[] = [];
  found.reduce((n, f) => (starts.push(n), n + f.periods.length), 0);
  const constants = constantColumns(format, 'VARCHAR', plan, scenario);
  const select = sqlFile('export/indicator_long.sql').replace('{{location}}', locations ? 'p.location, ' : '').replace('{{constants}}', constants.sql);
  const params: Record<string, DuckDBValue> = {
    places_cell: listValue(list.map((p) => cellIndex.get(p.cellId)!)),
    cell_ids: listValue(list.map((p) => p.cellId)),
    lats: listValue(list.map((p) => p.lat)),
    lons: listValue(list.map((p) => p.lon)),
    labels: listValue(list.map((p) => p.label)),
    models: listValue(scenario.models),
    indicators: listValue(found.map((f) => f.name)),
    units: listValue(found.map((f) => f.units)),
    periods: listValue(found.flatMap((f) => f.periods)),
    period_starts: listValue(starts),
    ...constants.params,
  };
  await queries.run((conn) => conn.run(`COPY (${select}) TO ${sqlString(target)} (${COPY_OPTIONS[format]})`, params), signal);
}
