import type { Catalog } from '../reference/catalog.js';
import type { QueryPool } from '../db/queryPool.js';
import { NotFoundError, ServiceError } from '../errors.js';
import { planCellFiles, type IndicatorPlan } from './indicatorPlan.js';
import type { ModelRows } from './periodChanges.js';
import { queryModelRows, type CellFiles, type IndicatorRequest, type PeriodStats } from './query.js';
import { warmingLevelStats } from './warmingLevelStats.js';
import type { WarmingPlan } from './warmingPlan.js';

/**
 * Warming levels read as the plain request reads: the template's per-model values over the plan's
 * years, from each cell's files (its scenarios' and its historical one) in one statement, each file
 * as if it were a cell of its own (the statement answers many cells at once: binding it is most of
 * a small query's time, and a second statement for the historical years cost as much again). Each
 * file holds only its own years, so the rows of a year come from the one file that has it. Then
 * warmingLevelStats, or for return levels their fits (returnLevels/atWarmingLevels.ts).
 */

/** The template request for some files: no windows, no baseline (the historical file's years hold it). */
export function warmingFilesRequest(plan: IndicatorPlan, warming: WarmingPlan, files: CellFiles[]): IndicatorRequest {
  return {
    name: plan.meta.name,
    cells: files,
    models: warming.models,
    years: warming.years,
    timeAggregation: plan.timeAggregation,
    spans: plan.spans,
    aggs: plan.aggs,
    units: plan.units,
    ...plan.vars,
  };
}

/** A cell's file of one of the plan's files (a scenario's or the historical one); a missing historical file is the cell's 404. */
export function warmingCellFiles(catalog: Catalog, plan: IndicatorPlan, cellId: number, scenario: string, place: string): CellFiles | undefined {
  const files = planCellFiles(catalog, plan, cellId, place, scenario);
  if (!files && scenario === 'historical') throw new NotFoundError(`No historical ${plan.dataset.name} data for ${place}, so no window years before ${plan.scenario.name} and no baseline.`);
  return files;
}

/** Each file's per-model rows, by its scenario ('historical' for the historical file). */
export type RowsByScenario = Map<string, ModelRows>;

/**
 * Per cell, each of its files' per-model rows over the plan's years, in one statement: undefined
 * for a cell without data for the scenarios, the ServiceError of a cell missing its historical file.
 */
export async function warmingSeriesOfCells(catalog: Catalog, queries: QueryPool, plan: IndicatorPlan, warming: WarmingPlan, cellIds: number[]): Promise<(RowsByScenario | undefined | ServiceError)[]> {
  const out: (RowsByScenario | undefined | ServiceError)[] = cellIds.map(() => undefined);
  const asked: { at: number; scenario: string; files: CellFiles }[] = [];
  cellIds.forEach((cellId, at) => {
    try {
      const own = warming.files.flatMap((scenario) => {
        const files = warmingCellFiles(catalog, plan, cellId, scenario, 'this map cell');
        return files ? [{ at, scenario, files }] : [];
      });
      // Without a file of the scenarios, the cell has no data for them.
      if (own.some((f) => f.scenario !== 'historical')) asked.push(...own);
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      out[at] = err;
    }
  });
  if (asked.length === 0) return out;
  const rows = await queryModelRows(queries, warmingFilesRequest(plan, warming, asked.map((a) => a.files)));
  asked.forEach(({ at, scenario }, k) => {
    let byScenario = out[at];
    if (!(byScenario instanceof Map)) out[at] = byScenario = new Map();
    byScenario.set(scenario, rows[k]!);
  });
  return out;
}

/** Per cell, the answer at the plan's levels; a cell without data has none, a cell missing its historical file its ServiceError. */
export async function warmingRowsOfCells(catalog: Catalog, queries: QueryPool, plan: IndicatorPlan, warming: WarmingPlan, cellIds: number[]): Promise<(PeriodStats[] | ServiceError)[]> {
  const series = await warmingSeriesOfCells(catalog, queries, plan, warming, cellIds);
  return series.map((s) => (s === undefined ? [] : s instanceof ServiceError ? s : warmingLevelStats(warming, s, { ...plan, baseline: plan.relativeTo })));
}
