import type { QueryPool } from '../db/queryPool.js';
import type { IndicatorPlan } from '../indicators/indicatorPlan.js';
import type { PeriodStats } from '../indicators/query.js';
import { warmingCellFiles, warmingFilesRequest, type RowsByScenario } from '../indicators/warmingData.js';
import { warmingLevelStats } from '../indicators/warmingLevelStats.js';
import type { WarmingPlan } from '../indicators/warmingPlan.js';
import type { Catalog } from '../reference/catalog.js';
import type { AreaAgg } from './area.js';
import { combinedModelRows, queryAreaFileRows } from './areaIndicator.js';

/** Warming levels over an area (src/indicators/warmingData.ts reads them for cells). */

/** Each file's per-model rows over an area: each file's values combined over the area's cells. */
export async function warmingAreaSeries(catalog: Catalog, queries: QueryPool, plan: IndicatorPlan, warming: WarmingPlan, cells: { cellId: number; weight: number }[], areaAgg: AreaAgg): Promise<RowsByScenario> {
  const asked = warming.files.flatMap((scenario) =>
    cells.flatMap((c) => {
      const files = warmingCellFiles(catalog, plan, c.cellId, scenario, `map cell ${c.cellId} of this area`);
      return files ? [{ scenario, files, weight: c.weight }] : [];
    }),
  );
  const rows = await queryAreaFileRows(queries, warmingFilesRequest(plan, warming, asked.map((a) => a.files)));
  const byScenario: RowsByScenario = new Map();
  for (const scenario of warming.files) {
    const own = asked.map((a, k) => ({ ...a, rows: rows[k]! })).filter((a) => a.scenario === scenario);
    if (own.length > 0) byScenario.set(scenario, combinedModelRows(own.map((a) => a.rows), own.map((a) => a.weight), areaAgg));
  }
  return byScenario;
}

/** The answer at the plan's levels over an area: each file's per-model values combined over the area's cells first. */
export async function warmingAreaRows(catalog: Catalog, queries: QueryPool, plan: IndicatorPlan, warming: WarmingPlan, cells: { cellId: number; weight: number }[], areaAgg: AreaAgg): Promise<PeriodStats[]> {
  return warmingLevelStats(warming, await warmingAreaSeries(catalog, queries, plan, warming, cells, areaAgg), { ...plan, baseline: plan.relativeTo });
}
