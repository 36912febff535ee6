import type { DuckDBResultReader } from '@duckdb/node-api';
import type { QueryPool } from '../../db/queryPool.js';
import type { ModelRows } from '../periodChanges.js';
import { isWholeMonths, servedStatement, setVariables, type IndicatorRequest } from '../query.js';

/**
 * Each model's yearly values, as the indicator's template computes them: the statement the
 * service runs for relative_to (ending with period_models), whatever the request, so that the
 * window's years (positive ids) and the baseline's (negative ids) come in one statement.
 */

/** Per cell (its position in the request's cells), period_models's rows (cell, model, ids, vals) as each model's period ids and values. */
export function modelSeriesOf(reader: DuckDBResultReader, cells: number): ModelRows[] {
  const [cellOf = [], models = [], ids = [], vals = []] = reader.getColumnsJS() as [number[]?, string[]?, number[][]?, (number | null)[][]?];
  const byCell = Array.from({ length: cells }, (): ModelRows => ({ models: [], ids: [], vals: [] }));
  models.forEach((model, i) => {
    const rows = byCell[cellOf[i]!]!;
    rows.models.push(model);
    rows.ids.push(ids[i]!);
    rows.vals.push(vals[i]!);
  });
  return byCell;
}

/** Runs sql/indicators/<name>.sql for the request's cells in one statement: per cell, each model's yearly series. */
export async function queryModelSeries(pool: QueryPool, r: IndicatorRequest): Promise<ModelRows[]> {
  const sql = servedStatement(r.name, 'period_models', isWholeMonths(r.timeAggregation));
  return pool.run(async (conn) => {
    await setVariables(conn, r, sql);
    return modelSeriesOf(await conn.runAndReadAll(sql), r.cells.length);
  });
}

/** Rows of (period id, model, value), as an area's combined rows are, grouped into each model's series. */
export function seriesOfRows(rows: { periods: number[]; models: string[]; values: (number | null)[] }): ModelRows {
  const out: ModelRows = { models: [], ids: [], vals: [] };
  const index = new Map<string, number>();
  rows.models.forEach((model, k) => {
    let i = index.get(model);
    if (i === undefined) {
      index.set(model, (i = out.models.push(model) - 1));
      out.ids.push([]);
      out.vals.push([]);
    }
    out.ids[i]!.push(rows.periods[k]!);
    out.vals[i]!.push(rows.values[k]!);
  });
  return out;
}
