import type { Baseline, TimeAggregation } from '../params.js';
import { forEachModelValue, type ModelRows } from '../periodChanges.js';
import type { PeriodStats } from '../query.js';
import type { RowsByScenario } from '../warmingData.js';
import type { WarmingPlan } from '../warmingPlan.js';
import { seriesReturnLevels, type FitNotes, type MemberSeries, type ReturnLevelRequest, type ReturnLevelRows } from './modelLevels.js';

/**
 * Return levels at global warming levels: per level, each member (a model in a scenario that
 * reaches the level) is fitted over its own 20-year window, its yearly extremes taken from the
 * scenario's file and, for the years before the scenario, the historical one (each file holds only
 * its own years); with a baseline, over the historical file's years of relative_to. Then per level
 * the statistics across the members, as for any fitting window.
 */

/** A model's finite values in one file's rows whose period id (a year) lies in [first, last]. */
function valuesIn(rows: ModelRows | undefined, model: string, first: number, last: number, into: number[]) {
  forEachModelValue(rows, model, (id, v) => {
    if (id >= first && id <= last && v !== null && Number.isFinite(v)) into.push(v);
  });
}

export function warmingReturnLevels(warming: WarmingPlan, byScenario: RowsByScenario, r: ReturnLevelRequest & { relativeTo?: Baseline; timeAggregation: TimeAggregation }): ReturnLevelRows {
  const historical = byScenario.get('historical');
  const baselines = new Map<string, number[]>();
  // A model's baseline is the same at every level and in every scenario: its historical run's years.
  const baselineOf = (model: string) => {
    const b = r.relativeTo;
    if (!b) return [];
    let values = baselines.get(model);
    if (!values) {
      values = [];
      // An offset year needs its next calendar year within the span too.
      valuesIn(historical, model, b.start_year, r.timeAggregation === 'offset_yearly' ? b.end_year - 1 : b.end_year, values);
      baselines.set(model, values);
    }
    return values;
  };
  const periods: PeriodStats[] = [];
  const levels: [string, FitNotes][] = [];
  for (const level of warming.levels) {
    const series = warming.members
      .filter((m) => m.level === level)
      .map(({ model, scenario, window: { start_year, end_year } }): MemberSeries => {
        const window: number[] = [];
        valuesIn(byScenario.get(scenario), model, start_year, end_year, window);
        valuesIn(historical, model, start_year, end_year, window);
        return { member: { model, scenario }, window, baseline: baselineOf(model) };
      });
    const answer = seriesReturnLevels(series, r, level);
    periods.push(...answer.periods);
    levels.push([level, answer.notes]);
  }
  return { periods, withoutFit: [], levels };
}
