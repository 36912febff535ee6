import { BIGINT, DOUBLE, LIST, listValue, VARCHAR, type DuckDBConnection, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';
import { missingVariableColumn } from '../climate/missingVariable.js';
import type { QueryPool } from '../db/queryPool.js';
import { sqlFile } from '../db/sqlFiles.js';
import { fromMonths, lastStep, MOST_CELLS, periodStats, servedStatement, setVariables, wholeMonthBranches, type IndicatorRequest, type PeriodStats } from '../indicators/query.js';
import type { ModelRows } from '../indicators/periodChanges.js';
import type { AreaAgg } from './area.js';
import { seriesOfRows } from '../indicators/returnLevels/query.js';

const AREA_LISTS = ['area_periods', 'area_models', 'area_values'];
const LAST_STEP = "FROM period_stats('per_model')";

/**
 * A template without its last step: every template computes each model's values per period as
 * `per_model` and ends with period_stats over it (checked here, so a template written otherwise
 * fails loudly instead of being cut wrong). The rows are the cell's per-model values, baseline
 * periods (negative ids) included.
 */
const perModel = new Map<string, string>();
export function perModelSql(name: string, wholeMonths: boolean): string {
  const key = `${name}|${wholeMonths}`;
  let sql = perModel.get(key);
  if (!sql) {
    const template = sqlFile(`indicators/${name}.sql`).trimEnd();
    if (!template.endsWith(LAST_STEP)) throw new Error(`sql/indicators/${name}.sql does not end with ${LAST_STEP}, so its per-model values cannot be combined over an area.`);
    sql = `${template.slice(0, -LAST_STEP.length)}SELECT cell, period, model, value::DOUBLE AS value FROM per_model`;
    // As servedStatement reads a whole-month request.
    if (wholeMonths) sql = wholeMonthBranches(sql);
    perModel.set(key, sql);
  }
  return sql;
}

export type Rows = { periods: number[]; models: string[]; values: (number | null)[] };

/** Each of the request's cells' rows, from one statement. */
async function cellRows(pool: QueryPool, r: IndicatorRequest): Promise<Rows[]> {
  const sql = perModelSql(r.name, fromMonths(r));
  return pool.run(async (conn) => {
    await setVariables(conn, r, sql);
    const [cells = [], periods = [], models = [], values = []] = (await conn.runAndReadAll(sql)).getColumnsJS() as [number[]?, (number | bigint)[]?, string[]?, (number | null)[]?];
    const perCell = r.cells.map((): Rows => ({ periods: [], models: [], values: [] }));
    cells.forEach((cell, i) => {
      const rows = perCell[cell]!;
      rows.periods.push(Number(periods[i]));
      rows.models.push(models[i]!);
      rows.values.push(values[i]!);
    });
    return perCell;
  }).catch(missingVariableColumn);
}

/**
 * Each model's value per period over the area: the cells' values combined by `areaAgg`, the mean
 * weighted by the cells' weights. A cell without a value for a (period, model) is left out of that
 * combination, its weight with it; where no cell has one the value is null, as for one cell.
 * Done here rather than in DuckDB: binding every cell's rows (20,000 for New York City's 10 cells,
 * every model and year) took 80-100 ms, ten times the combined rows' binding. Cells are summed in
 * the order given (cell id order), so the answer does not depend on which query finished first.
 */
export function combineCells(perCell: Rows[], weights: number[], areaAgg: AreaAgg): Rows {
  const index = new Map<string, number>();
  const out: Rows = { periods: [], models: [], values: [] };
  const sums: { vw: number; w: number; n: number }[] = [];
  perCell.forEach((rows, i) => {
    const w = weights[i]!;
    for (let k = 0; k < rows.periods.length; k++) {
      const key = `${rows.periods[k]}|${rows.models[k]}`;
      let j = index.get(key);
      if (j === undefined) {
        index.set(key, (j = out.periods.length));
        out.periods.push(rows.periods[k]!);
        out.models.push(rows.models[k]!);
        out.values.push(null);
        sums.push({ vw: 0, w: 0, n: 0 });
      }
      const v = rows.values[k];
      if (v === null || v === undefined) continue;
      const s = sums[j]!;
      s.n++;
      if (areaAgg === 'mean') {
        s.vw += v * w;
        s.w += w;
      } else {
        const held = out.values[j];
        out.values[j] = held === null ? v : areaAgg === 'min' ? Math.min(held!, v) : Math.max(held!, v);
      }
    }
  });
  if (areaAgg === 'mean') sums.forEach((s, j) => (out.values[j] = s.n > 0 ? s.vw / s.w : null));
  return out;
}

/** Each of the request's files' rows (a statement per group of files, the groups in parallel through the pool). */
export async function queryAreaFileRows(pool: QueryPool, r: IndicatorRequest): Promise<Rows[]> {
  return (await Promise.all(pool.groups(r.cells, MOST_CELLS).map((cells) => cellRows(pool, { ...r, cells })))).flat();
}

/**
 * Each model's values per period over an area (combineCells of its cells' rows), as period_models
 * gives them for one cell: what warming levels average (src/indicators/warmingData.ts) and return
 * levels fit.
 */
export function combinedModelRows(perCell: Rows[], weights: number[], areaAgg: AreaAgg): ModelRows {
  return seriesOfRows(combineCells(perCell, weights, areaAgg));
}

/** The same, of the request's cells read with their weights (queryAreaFileRows, then combinedModelRows). */
export async function queryAreaModelRows(pool: QueryPool, r: IndicatorRequest, weights: number[], areaAgg: AreaAgg): Promise<ModelRows> {
  return combinedModelRows(await queryAreaFileRows(pool, r), weights, areaAgg);
}

async function setList(conn: DuckDBConnection, name: string, values: DuckDBValue[], type: DuckDBType) {
  // The name is one of the fixed names below; the values are a bound parameter, typed (a list's
  // type is otherwise inferred from its first item: an integral double would make it INTEGER[]).
  const statement = await conn.prepare(`SET VARIABLE ${name} = $1`);
  statement.bind([listValue(values)], [LIST(type)]);
  await statement.run();
}

/**
 * The indicator over an area of the request's cells, `weights` in the same order: the cells'
 * per-model values from the template (a statement per group of cells, the groups in parallel
 * through the pool), combined over the cells (combineCells), then period_values of the result
 * (sql/areas/indicator_cells.sql) and the statistics across models.
 */
export async function queryAreaIndicator(pool: QueryPool, r: IndicatorRequest, weights: number[], areaAgg: AreaAgg): Promise<PeriodStats[]> {
  const rows = combineCells(await queryAreaFileRows(pool, r), weights, areaAgg);
  const sql = servedStatement('area', lastStep(r), false, 'areas/indicator_cells.sql');
  return pool.run(async (conn) => {
    // period_stats reads the request's variables, none of the files.
    await setVariables(conn, r, sql);
    await setList(conn, 'area_periods', rows.periods.map((p) => BigInt(p)), BIGINT);
    await setList(conn, 'area_models', rows.models, VARCHAR);
    await setList(conn, 'area_values', rows.values, DOUBLE);
    try {
      return periodStats(await conn.runAndReadAll(sql), r, 1)[0]!;
    } finally {
      // Not kept on the pooled connection.
      for (const name of AREA_LISTS) await conn.run(`RESET VARIABLE ${name}`);
    }
  });
}
