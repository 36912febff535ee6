import type { Catalog } from '../reference/catalog.js';
import type { QueryPool } from '../db/queryPool.js';
import { ServiceError } from '../errors.js';
import { planCellFiles, planRequest, type IndicatorPlan } from './indicatorPlan.js';
import { queryIndicator, type CellFiles, type IndicatorRequest, type PeriodStats } from './query.js';
import { warmingDataJson, warmingHeadJson } from './warmingJson.js';
import { warmingRowsOfCells } from './warmingData.js';

/**
 * The plan's rows for each of some map cells, in one statement: none for a cell without data for
 * the scenario or when no year is asked for; the ServiceError of a cell whose historical file is
 * missing, so that the other cells still get theirs.
 */
export async function indicatorRowsOfCells(catalog: Catalog, queries: QueryPool, plan: IndicatorPlan, cellIds: number[]): Promise<(PeriodStats[] | ServiceError)[]> {
  if (plan.warming) return warmingRowsOfCells(catalog, queries, plan, plan.warming, cellIds);
  return planRowsOfCells(catalog, plan, cellIds, () => [], (r) => queryIndicator(queries, r));
}

/**
 * What `run` answers for each of some map cells from one request of the plan: `empty()` for a cell
 * without data for the scenario or when no year is asked for; the ServiceError of a cell whose
 * historical file is missing, so that the other cells still get theirs.
 */
export async function planRowsOfCells<T>(catalog: Catalog, plan: IndicatorPlan, cellIds: number[], empty: () => T, run: (r: IndicatorRequest) => Promise<T[]>): Promise<(T | ServiceError)[]> {
  const out: (T | ServiceError)[] = cellIds.map(empty);
  if (plan.years.length === 0) return out;
  const asked: { at: number; files: CellFiles }[] = [];
  cellIds.forEach((cellId, at) => {
    try {
      const files = planCellFiles(catalog, plan, cellId);
      if (files) asked.push({ at, files });
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      out[at] = err;
    }
  });
  if (asked.length === 0) return out;
  const rows = await run(planRequest(plan, asked.map((a) => a.files)));
  asked.forEach(({ at }, k) => (out[at] = rows[k]!));
  return out;
}

/** The plan's rows for one map cell (indicatorRowsOfCells). */
export async function indicatorRows(catalog: Catalog, queries: QueryPool, plan: IndicatorPlan, cellId: number): Promise<PeriodStats[]> {
  const [rows] = await indicatorRowsOfCells(catalog, queries, plan, [cellId]);
  if (rows instanceof ServiceError) throw rows;
  return rows!;
}

/** The `data` member of an indicator answer: period -> statistic -> value (null for none). */
export function dataJson(rows: PeriodStats[]): string {
  if (rows[0]?.level !== undefined) return warmingDataJson(rows);
  const periods = rows.map(({ period, stats }) => `${JSON.stringify(period)}:{${stats.map(([k, v]) => `${JSON.stringify(k)}:${v === null || !Number.isFinite(v) ? 'null' : String(v)}`).join(',')}}`);
  return `{${periods.join(',')}}`;
}

/** The members of an indicator answer between the place and `data`, as the endpoints print them. */
export function indicatorHead(plan: IndicatorPlan, indicatorJson: unknown): string {
  return (
    `"dataset":${JSON.stringify(plan.dataset.name)},"scenario":${JSON.stringify(plan.scenario.name)},` +
    `"indicator":${JSON.stringify(indicatorJson)},"climate_models":${JSON.stringify(plan.models)},` +
    `"time_aggregation":${JSON.stringify(plan.timeAggregation)},"units":${JSON.stringify(plan.units)},` +
    (plan.leftOut.length > 0 ? `"models_left_out":${JSON.stringify(plan.leftOut)},` : '') +
    (plan.relativeTo ? `"relative_to":${JSON.stringify(plan.relativeTo)},` : '') +
    (plan.warming ? `"warming_levels":${warmingHeadJson(plan.warming)},` : '')
  );
}
