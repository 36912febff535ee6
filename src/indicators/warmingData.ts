import type { Catalog } from '../reference/catalog.js';
import { scenarioModels } from '../climate/params.js';
import type { QueryPool } from '../db/queryPool.js';
import { HttpError } from '../http/errors.js';
import type { AreaAgg } from '../areas/area.js';
import { queryAreaModelRows } from '../areas/areaIndicator.js';
import { planCellFiles, type IndicatorPlan } from './indicatorData.js';
import type { ModelRows } from './periodChanges.js';
import { queryModelRows, type CellFiles, type IndicatorRequest, type PeriodStats } from './query.js';
import { warmingLevelStats } from './warmingLevelStats.js';
import type { WarmingPlan, WarmingSource } from './warmingPlan.js';

/**
 * Warming levels read as the plain request reads: per file (each scenario's, then the historical
 * one) the template's per-model values over the years that file is asked for, one statement per
 * file for all the cells (the files in parallel through the pool); then warmingLevelStats.
 */

/** The template request of one source for some cells' files: no windows, no baseline (the historical source holds its years). */
function sourceRequest(catalog: Catalog, plan: IndicatorPlan, source: WarmingSource, cells: CellFiles[]): IndicatorRequest {
  // Every model of the file: the query need not name them.
  const every = scenarioModels(plan.dataset, catalog.scenarioByName.get(source.scenario)!);
  return {
    name: plan.meta.name,
    cells,
    models: source.models.length === every.length ? undefined : source.models,
    years: source.years,
    timeAggregation: plan.timeAggregation,
    spans: plan.spans,
    aggs: plan.aggs,
    units: plan.units,
    ...plan.vars,
  };
}

/** Per cell, the answer at the plan's levels; a cell without data has none, a cell missing its historical file its HttpError. */
export async function warmingRowsOfCells(catalog: Catalog, queries: QueryPool, plan: IndicatorPlan, warming: WarmingPlan, cellIds: number[]): Promise<(PeriodStats[] | HttpError)[]> {
  const out: (PeriodStats[] | HttpError)[] = cellIds.map(() => []);
  const byCell = cellIds.map(() => new Map<string, ModelRows>());
  // Every file first, so that a cell's error is known before any statement runs.
  const asked = warming.sources.map((source) => {
    const cells: { at: number; files: CellFiles }[] = [];
    cellIds.forEach((cellId, at) => {
      if (out[at] instanceof HttpError) return;
      try {
        const files = planCellFiles(catalog, plan, cellId, 'this map cell', source.scenario);
        if (files) cells.push({ at, files });
        else if (source.scenario === 'historical') throw new HttpError(404, `No historical ${plan.dataset.name} data for this map cell, so no window years before ${plan.scenario.name} and no baseline.`);
      } catch (err) {
        if (!(err instanceof HttpError)) throw err;
        out[at] = err;
      }
    });
    return { source, cells };
  });
  const hasData = cellIds.map((_, at) => asked.some(({ source, cells }) => source.scenario !== 'historical' && cells.some((c) => c.at === at)));
  await Promise.all(
    asked.map(async ({ source, cells }) => {
      const live = cells.filter(({ at }) => !(out[at] instanceof HttpError) && hasData[at]);
      if (live.length === 0) return;
      const rows = await queryModelRows(queries, sourceRequest(catalog, plan, source, live.map((c) => c.files)));
      live.forEach(({ at }, k) => byCell[at]!.set(source.scenario, rows[k]!));
    }),
  );
  cellIds.forEach((_, at) => {
    if (!(out[at] instanceof HttpError) && hasData[at]) out[at] = warmingLevelStats(warming, byCell[at]!, { ...plan, baseline: plan.relativeTo });
  });
  return out;
}

/** The answer at the plan's levels over an area: each file's per-model values combined over the area's cells first. */
export async function warmingAreaRows(catalog: Catalog, queries: QueryPool, plan: IndicatorPlan, warming: WarmingPlan, cells: { cellId: number; weight: number }[], areaAgg: AreaAgg): Promise<PeriodStats[]> {
  const bySource = new Map<string, ModelRows>();
  await Promise.all(
    warming.sources.map(async (source) => {
      const present = cells.flatMap((c) => {
        const files = planCellFiles(catalog, plan, c.cellId, `map cell ${c.cellId} of this area`, source.scenario);
        if (!files && source.scenario === 'historical') throw new HttpError(404, `No historical ${plan.dataset.name} data for map cell ${c.cellId} of this area, so no window years before ${plan.scenario.name} and no baseline.`);
        return files ? [{ files, weight: c.weight }] : [];
      });
      if (present.length === 0) return;
      bySource.set(source.scenario, await queryAreaModelRows(queries, sourceRequest(catalog, plan, source, present.map((p) => p.files)), present.map((p) => p.weight), areaAgg));
    }),
  );
  return warmingLevelStats(warming, bySource, { ...plan, baseline: plan.relativeTo });
}
