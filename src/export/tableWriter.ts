import { listValue, type DuckDBConnection } from '@duckdb/node-api';
import { climateFile } from '../dataBuild/files.js';
import type { QueryPool } from '../db/queryPool.js';
import { sqlFile, sqlString } from '../db/sqlFiles.js';
import type { ExportPlan } from './exportPlan.js';
import type { IndicatorValues } from './indicatorValues.js';
import type { PlaceGrid } from './placeGrid.js';

/**
 * The Parquet and CSV files of an export: long form, one row per value, written by DuckDB.
 * Columns: dataset, scenario, model, cell_id, lat, lon, [location], date | period,
 * variable | indicator, value. Parquet is typed (DATE, FLOAT for raw values as stored, DOUBLE
 * for indicators) and zstd-compressed; the CSV has the same columns with a header line.
 */
export type TableFormat = 'parquet' | 'csv';

const COPY_OPTIONS: Record<TableFormat, string> = {
  parquet: 'FORMAT parquet, COMPRESSION zstd',
  csv: 'FORMAT csv, HEADER true',
};

/** Each place of the plan in the rows' order of entries: the file it reads and how rows label it. */
function entries(plan: ExportPlan, dataDir: string, scenario: string) {
  const where = plan.where;
  const list = where.kind === 'area' ? where.cells.map((c) => ({ ...c, label: '' })) : where.locations;
  const present = list.filter((c) => climateFile(dataDir, plan.dataset, scenario, c.cellId) !== undefined);
  return present.map((c) => ({ file: climateFile(dataDir, plan.dataset, scenario, c.cellId)!, cellId: c.cellId, lat: c.lat, lon: c.lon, label: c.label }));
}

/** One scenario's raw values into `target`, in one statement (DuckDB reads, reshapes and writes). */
export async function writeRawTable(queries: QueryPool, dataDir: string, plan: ExportPlan, scenario: ExportPlan['scenarios'][number], format: TableFormat, target: string, signal?: AbortSignal): Promise<void> {
  if (plan.what.kind !== 'variables') throw new Error('writeRawTable: the plan exports indicators');
  const rows = entries(plan, dataDir, scenario.name);
  const select = sqlFile('export/raw_long.sql')
    .replaceAll('{{variables}}', plan.what.variables.join(', '))
    .replace('{{location}}', plan.where.kind === 'locations' ? 'location, ' : '');
  const params = {
    files: listValue([...new Set(rows.map((r) => r.file))]),
    cell_files: listValue(rows.map((r) => r.file)),
    cell_ids: listValue(rows.map((r) => r.cellId)),
    lats: listValue(rows.map((r) => r.lat)),
    lons: listValue(rows.map((r) => r.lon)),
    labels: listValue(rows.map((r) => r.label)),
    models: listValue(scenario.models),
    years: listValue(scenario.years),
    dataset: plan.dataset,
    scenario: scenario.name,
  };
  await queries.run((conn) => conn.run(`COPY (${select}) TO ${sqlString(target)} (${COPY_OPTIONS[format]})`, params as never), signal);
}

/**
 * One scenario's indicator values into `target`: the values computed in the service (through the
 * indicator endpoints' own function) are appended to a temporary table, which DuckDB writes.
 */
export async function writeIndicatorTable(queries: QueryPool, plan: ExportPlan, scenario: ExportPlan['scenarios'][number], found: IndicatorValues[], places: PlaceGrid, format: TableFormat, target: string): Promise<void> {
  const locations = plan.where.kind === 'locations';
  const list = plan.where.kind === 'area' ? plan.where.cells.map((c) => ({ ...c, label: '' })) : plan.where.locations;
  await queries.run(async (conn: DuckDBConnection) => {
    await conn.run(sqlFile('export/indicator_rows_table.sql'));
    try {
      const appender = await conn.createAppender('export_indicator_rows');
      for (const f of found) {
        scenario.models.forEach((model, m) => {
          list.forEach((place, i) => {
            const position = locations ? i : places.positionsOf(place.cellId)[0]!;
            f.periods.forEach((period, t) => {
              const v = f.values[places.index(m, t, position, f.periods.length)]!;
              if (Number.isNaN(v)) return;
              appender.appendVarchar(model);
              appender.appendInteger(place.cellId);
              appender.appendDouble(place.lat);
              appender.appendDouble(place.lon);
              appender.appendVarchar(place.label);
              appender.appendVarchar(period);
              appender.appendVarchar(f.name);
              appender.appendVarchar(f.units);
              appender.appendDouble(v);
              appender.endRow();
            });
          });
        });
      }
      appender.closeSync();
      const select = sqlFile('export/indicator_long.sql').replace('{{location}}', locations ? 'location, ' : '');
      await conn.run(`COPY (${select}) TO ${sqlString(target)} (${COPY_OPTIONS[format]})`, { dataset: plan.dataset, scenario: scenario.name } as never);
    } finally {
      await conn.run('DROP TABLE IF EXISTS export_indicator_rows');
    }
  });
}
