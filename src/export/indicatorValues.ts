import type { QueryPool } from '../db/queryPool.js';
import { ServiceError } from '../errors.js';
import { indicatorRowsOfCells } from '../indicators/indicatorData.js';
import { MOST_CELLS } from '../indicators/query.js';
import type { Catalog } from '../reference/catalog.js';
import { planIndicator, yearsOfScenario, type ExportPlan } from './exportPlan.js';
import type { NetcdfVariable } from './netcdfWriter.js';
import type { PlaceGrid } from './placeGrid.js';

/** One indicator of one scenario: each model's value per place and period (NaN for none). */
export interface IndicatorValues {
  name: string;
  units: string;
  label: string;
  periods: string[];
  /** (model, place position, period) for places, (model, period, lat, lon) for areas: as PlaceGrid.index lays them. */
  values: Float64Array;
}

/**
 * Each model's indicator values of one scenario, through the function the indicator endpoints
 * answer with (indicatorRowsOfCells), one model at a time: the endpoint asked for that model alone
 * answers the same number as every statistic across models, so the files equal its answers
 * whatever the endpoints compute inside. `step` reports each statement.
 */
export async function indicatorValues(catalog: Catalog, queries: QueryPool, plan: ExportPlan, scenario: ExportPlan['scenarios'][number], places: PlaceGrid, step: () => Promise<void>): Promise<IndicatorValues[]> {
  if (plan.what.kind !== 'indicators') throw new Error('indicatorValues: the plan exports raw variables');
  const dataset = catalog.datasetByName.get(plan.dataset)!;
  const out: IndicatorValues[] = [];
  for (const [i, ind] of plan.what.indicators.entries()) {
    const whole = planIndicator(catalog, dataset, scenario, yearsOfScenario(plan.years, scenario.name), ind, i);
    // Per model, per cell: period -> value.
    const found: Map<string, number | null>[][] = [];
    const periods: string[] = [];
    const seen = new Set<string>();
    for (const model of scenario.models) {
      const one = { ...whole, models: [model] };
      const byCell: Map<string, number | null>[] = [];
      for (let g = 0; g < places.cellIds.length; g += MOST_CELLS) {
        const group = places.cellIds.slice(g, g + MOST_CELLS);
        const rows = await indicatorRowsOfCells(catalog, queries, one, group);
        rows.forEach((r) => {
          if (r instanceof ServiceError) throw r;
          const values = new Map<string, number | null>();
          for (const { period, stats } of r) {
            if (!seen.has(period)) {
              seen.add(period);
              periods.push(period);
            }
            const v = stats[0]?.[1] ?? null;
            values.set(period, v === null || !Number.isFinite(v) ? null : v);
          }
          byCell.push(values);
        });
        await step();
      }
      found.push(byCell);
    }
    const values = new Float64Array(scenario.models.length * periods.length * places.size).fill(Number.NaN);
    found.forEach((byCell, m) =>
      byCell.forEach((cellValues, c) => {
        for (const position of places.positionsOf(places.cellIds[c]!)) {
          periods.forEach((p, t) => {
            const v = cellValues.get(p);
            if (v !== null && v !== undefined) values[places.index(m, t, position, periods.length)] = v;
          });
        }
      }),
    );
    out.push({ name: whole.meta.name, units: whole.units, label: whole.meta.label, periods, values });
  }
  return out;
}

/** The indicators as NetCDF variables: one `period` dimension if they share their periods, else one each. */
export function indicatorNetcdfVariables(found: IndicatorValues[]): NetcdfVariable[] {
  const same = found.every((f) => JSON.stringify(f.periods) === JSON.stringify(found[0]!.periods));
  return found.map((f) => ({
    name: f.name,
    axis: { dim: same ? 'period' : `period_${f.name}`, values: f.periods },
    attrs: { units: f.units, long_name: f.label },
    values: f.values,
  }));
}
