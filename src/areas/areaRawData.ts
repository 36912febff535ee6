import { DOUBLE, LIST, listValue } from '@duckdb/node-api';
import { missingVariableColumn } from '../climate/missingVariable.js';
import type { QueryPool } from '../db/queryPool.js';
import { sqlFile } from '../db/sqlFiles.js';
import type { RawAgg, Variable } from '../climate/params.js';
import type { DailyColumns } from '../climate/rawData.js';
import type { AreaAgg } from './area.js';

export interface AreaRawQuery {
  /** The cells' Parquet files of the scenario and their weights. */
  cells: { file: string; weight: number }[];
  models: string[];
  years: number[];
  variables: Variable[];
  agg: RawAgg;
  areaAgg: AreaAgg;
}

/** How a model's values of one day combine over the cells; `v` is from the allow-list VARIABLES. */
function overCells(v: Variable, areaAgg: AreaAgg): string {
  if (areaAgg === 'mean') return `fsum(${v}::DOUBLE * weight) / fsum(weight) FILTER (WHERE ${v} IS NOT NULL) AS ${v}`;
  return `${areaAgg}(${v}) AS ${v}`;
}

function acrossModels(v: Variable, agg: RawAgg, text: boolean): string {
  const value = `${agg}(${v})::FLOAT`;
  // As for one cell: DuckDB prints the float32's shortest decimal, faster than JavaScript would.
  return text ? `CASE WHEN isfinite(${value}) THEN CAST(${value} AS VARCHAR) END AS ${v}` : `${value} AS ${v}`;
}

async function run<V>(pool: QueryPool, q: AreaRawQuery, text: boolean): Promise<DailyColumns<V>> {
  const sql = sqlFile('areas/raw_daily.sql')
    .replace('{{area_columns}}', q.variables.map((v) => overCells(v, q.areaAgg)).join(', '))
    .replace('{{columns}}', q.variables.map((v) => acrossModels(v, q.agg, text)).join(', '));
  const params = {
    files: listValue(q.cells.map((c) => c.file)),
    weights: listValue(q.cells.map((c) => c.weight)),
    models: listValue(q.models),
    years: listValue(q.years),
  };
  // Typed: a list's type is otherwise inferred from its first item (a lone cell's weight 1 is an integer).
  const cols = await pool.run(async (conn) => (await conn.runAndReadAll(sql, params as never, { weights: LIST(DOUBLE) })).getColumnsJS() as unknown[][]).catch(missingVariableColumn);
  return {
    year: cols[0] as number[],
    slot: cols[1] as number[],
    values: new Map(q.variables.map((v, i) => [v, cols[i + 2] as (V | null)[]])),
  };
}

/** An area's daily values combined over its cells and across models, as float32 numbers (CSV, Arrow). */
export function queryAreaRawData(pool: QueryPool, q: AreaRawQuery): Promise<DailyColumns> {
  return run<number>(pool, q, false);
}

/** The same as JSON number text. */
export function queryAreaRawDataText(pool: QueryPool, q: AreaRawQuery): Promise<DailyColumns<string>> {
  return run<string>(pool, q, true);
}
