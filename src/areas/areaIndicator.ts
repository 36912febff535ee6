import { DOUBLE, INTEGER, listValue, VARCHAR, BIGINT, type DuckDBConnection, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';
import type { QueryPool } from '../db/queryPool.js';
import { sqlFile } from '../db/sqlFiles.js';
import { mapEntries, setVariables, type IndicatorRequest, type PeriodStats } from '../indicators/query.js';
import type { AreaAgg } from './area.js';

/** One cell of an area: the indicator request's cell files, and the cell's weight. */
export interface AreaCellRequest {
  cellId: number;
  weight: number;
  file: string;
  monthlyFile: string;
  historicFile?: string;
  baseline?: IndicatorRequest['baseline'];
}

const AREA_LISTS = ['area_cells', 'area_periods', 'area_models', 'area_values', 'area_weights'];
const LAST_STEP = "FROM period_stats('per_model')";

/**
 * A template without its last step: every template computes each model's values per period as
 * `per_model` and ends with period_stats over it (checked here, so a template written otherwise
 * fails loudly instead of being cut wrong). The rows are the cell's per-model values, baseline
 * periods (negative ids) included.
 */
const perModel = new Map<string, string>();
export function perModelSql(name: string): string {
  let sql = perModel.get(name);
  if (!sql) {
    const template = sqlFile(`indicators/${name}.sql`).trimEnd();
    if (!template.endsWith(LAST_STEP)) throw new Error(`sql/indicators/${name}.sql does not end with ${LAST_STEP}, so its per-model values cannot be combined over an area.`);
    sql = `${template.slice(0, -LAST_STEP.length)}SELECT period, model, value::DOUBLE AS value FROM per_model`;
    perModel.set(name, sql);
  }
  return sql;
}

type Rows = { periods: number[]; models: string[]; values: (number | null)[] };

async function cellRows(pool: QueryPool, r: IndicatorRequest): Promise<Rows> {
  const sql = perModelSql(r.name);
  return pool.run(async (conn) => {
    await setVariables(conn, r, sql);
    const cols = (await conn.runAndReadAll(sql)).getColumnsJS() as unknown[][];
    return { periods: (cols[0] as (number | bigint)[]).map(Number), models: cols[1] as string[], values: cols[2] as (number | null)[] };
  });
}

async function setList(conn: DuckDBConnection, name: string, values: DuckDBValue[], type: DuckDBType) {
  // The name is one of the fixed names below; the values are a bound parameter.
  const statement = await conn.prepare(`SET VARIABLE ${name} = $1::${type.toString()}[]`);
  statement.bind([listValue(values)]);
  await statement.run();
}

/**
 * The indicator over an area: each cell's per-model values from its own run of the template
 * (through the pool, so cells run in parallel), then one query that combines them over the cells by
 * `areaAgg` and takes period_stats of the result (sql/areas/indicator_cells.sql).
 */
export async function queryAreaIndicator(pool: QueryPool, base: Omit<IndicatorRequest, 'file' | 'monthlyFile' | 'historicFile' | 'baseline'>, cells: AreaCellRequest[], areaAgg: AreaAgg): Promise<PeriodStats[]> {
  const perCell = await Promise.all(
    cells.map((c) => cellRows(pool, { ...base, file: c.file, monthlyFile: c.monthlyFile, historicFile: c.historicFile, baseline: c.baseline })),
  );
  const ids: number[] = [];
  const weights: number[] = [];
  const all: Rows = { periods: [], models: [], values: [] };
  perCell.forEach((rows, i) => {
    for (let k = 0; k < rows.periods.length; k++) {
      ids.push(cells[i]!.cellId);
      weights.push(cells[i]!.weight);
      all.periods.push(rows.periods[k]!);
      all.models.push(rows.models[k]!);
      all.values.push(rows.values[k]!);
    }
  });
  const sql = sqlFile('areas/indicator_cells.sql');
  // period_stats reads the request's variables; the files are those of the first cell, unused here.
  const request: IndicatorRequest = { ...base, file: cells[0]!.file, monthlyFile: cells[0]!.monthlyFile, baseline: cells[0]!.baseline };
  return pool.run(async (conn) => {
    await setVariables(conn, request, sql);
    await setList(conn, 'area_cells', ids, INTEGER);
    await setList(conn, 'area_periods', all.periods.map((p) => BigInt(p)), BIGINT);
    await setList(conn, 'area_models', all.models, VARCHAR);
    await setList(conn, 'area_values', all.values, DOUBLE);
    await setList(conn, 'area_weights', weights, DOUBLE);
    const statement = await conn.prepare('SET VARIABLE area_agg = $1::VARCHAR');
    statement.bind([areaAgg]);
    await statement.run();
    try {
      const reader = await conn.runAndReadAll(sql);
      return (reader.getRowsJS() as [string, unknown][]).map(([period, stats]) => ({ period, stats: mapEntries(stats) }));
    } finally {
      // The lists can hold tens of thousands of rows: not kept on the pooled connection.
      for (const name of AREA_LISTS) await conn.run(`RESET VARIABLE ${name}`);
    }
  });
}
