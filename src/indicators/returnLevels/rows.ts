import type { QueryPool } from '../../db/queryPool.js';
import { ServiceError } from '../../errors.js';
import type { Catalog } from '../../reference/catalog.js';
import { planRowsOfCells } from '../indicatorData.js';
import { type IndicatorPlan } from '../indicatorPlan.js';
import type { ModelRows } from '../periodChanges.js';
import { warmingSeriesOfCells, type RowsByScenario } from '../warmingData.js';
import { warmingReturnLevels } from './atWarmingLevels.js';
import { modelReturnLevels, type ReturnLevelRequest, type ReturnLevelRows } from './modelLevels.js';
import { queryModelRows } from '../query.js';

/** What the fits take of a return-level plan. */
export function returnLevelRequest(plan: IndicatorPlan): ReturnLevelRequest {
  const rl = plan.returnLevels!;
  return { returnLevels: rl, models: plan.models, aggs: plan.aggs, baseline: plan.relativeTo !== undefined, change: rl.inverse ? undefined : plan.relativeTo?.change };
}

/** A warming-level plan's return levels from its files' rows (an empty map for a place without data). */
export function warmingPlanReturnLevels(plan: IndicatorPlan, byScenario: RowsByScenario): ReturnLevelRows {
  return warmingReturnLevels(plan.warming!, byScenario, { ...returnLevelRequest(plan), relativeTo: plan.relativeTo, timeAggregation: plan.timeAggregation });
}

const NO_SERIES: ModelRows = { models: [], ids: [], vals: [] };

/** Per map cell, the plan's return levels from one statement (as indicatorRowsOfCells). */
export async function returnLevelRowsOfCells(catalog: Catalog, queries: QueryPool, plan: IndicatorPlan, cellIds: number[]): Promise<(ReturnLevelRows | ServiceError)[]> {
  if (plan.warming) {
    const series = await warmingSeriesOfCells(catalog, queries, plan, plan.warming, cellIds);
    return series.map((s) => (s instanceof ServiceError ? s : warmingPlanReturnLevels(plan, s ?? new Map())));
  }
  const request = returnLevelRequest(plan);
  return planRowsOfCells(
    catalog,
    plan,
    cellIds,
    () => modelReturnLevels(NO_SERIES, request),
    async (r) => (await queryModelRows(queries, r)).map((series) => modelReturnLevels(series, request)),
  );
}

/** The plan's return levels for one map cell. */
export async function returnLevelRows(catalog: Catalog, queries: QueryPool, plan: IndicatorPlan, cellId: number): Promise<ReturnLevelRows> {
  const [rows] = await returnLevelRowsOfCells(catalog, queries, plan, [cellId]);
  if (rows instanceof ServiceError) throw rows;
  return rows!;
}
