import { single, yearsWithin } from '../../climate/params.js';
import { scenarioYears } from '../../reference/datasetContents.js';
import { badRequest } from '../../errors.js';
import type { Catalog, Dataset, Scenario } from '../../reference/catalog.js';
import type { IndicatorMeta } from '../metadata.js';
import { parseHistoricRange, type Baseline, type IndicatorFields, type TimeAggregation } from '../params.js';
import { WINDOW_YEARS } from '../../reference/warmingLevels.js';
import type { WarmingPlan } from '../warmingPlan.js';
import { DEFAULT_FIT_YEARS, MIN_FIT_YEARS, RETURN_LEVEL_EXTREMES, RETURN_LEVEL_INDICATORS, type Extreme } from './returnPeriods.js';

/**
 * Return levels: the fitting window they are computed over, and the plan a request's parameters
 * (returnPeriods.ts) make of them.
 */

/**
 * The years a return level is fitted over: `years` of `scenario`, or at warming levels (`atLevels`)
 * each model's own window in the warming plan (then `years` is empty).
 */
export interface FittingWindow {
  /** The scenario whose data the window reads: the request's, or historical for a historic_range. */
  scenario: Scenario;
  /** Period ids of the window: calendar years, or offset years by their first year. */
  years: number[];
  atLevels?: true;
  /** What the answer says the window is. */
  json: Record<string, unknown>;
}

export interface ReturnLevelPlan {
  extreme: Extreme;
  /** The return periods asked for, ascending: return_period's, or with `inverse` baseline_return_period's. */
  periods: number[];
  /** baseline_return_period: each model's baseline N-year level, answered as its return period in the window. */
  inverse: boolean;
  /** include=fit */
  includeFit: boolean;
  window: FittingWindow;
}

const yearRange = (a: number, b: number) => Array.from({ length: Math.max(0, b - a + 1) }, (_, i) => a + i);

/**
 * The fitting window: at warming levels each model's own window (the warming plan's); else
 * `historic_range` (that range of the cell's historical data, whatever the request's scenario), or
 * the scenario's years of `years`, by default its last 30; at least 20 years either way. Offset
 * years are named by their first year and need the next.
 */
function fittingWindow(catalog: Catalog, dataset: Dataset, scenario: Scenario, query: Record<string, unknown>, q: IndicatorFields, agg: TimeAggregation, warming: WarmingPlan | undefined): FittingWindow {
  const offset = agg === 'offset_yearly' ? 1 : 0;
  const historic = q.historic_range(query);
  if (warming) {
    if (historic !== undefined) throw badRequest("historic_range and warming_level each set the fitting window of return levels: give one of them (at a warming level, each model's window is its own 20 years at the level).");
    return { scenario, years: [], atLevels: true, json: { warming_levels: warming.levels, scenarios: warming.scenarios, years: WINDOW_YEARS } };
  }
  if (historic !== undefined) {
    if (single(query, 'years') !== undefined) throw badRequest('years and historic_range each set the fitting window of return levels: give one of them.');
    const range = parseHistoricRange(catalog, dataset, historic);
    const historical = catalog.scenarioByName.get('historical')!;
    const [lo, hi] = scenarioYears(catalog, dataset, historical);
    const years = yearRange(Math.max(range.start_year, lo), Math.min(range.end_year, hi - offset));
    if (years.length < MIN_FIT_YEARS) {
      throw badRequest(`historic_range: return levels are fitted over at least ${MIN_FIT_YEARS} years; this data has ${years.length} of ${range.start_year}-${range.end_year} (its ${dataset.name} historical years are ${lo}-${hi}).`);
    }
    return { scenario: historical, years, json: { scenario: 'historical', historic_range: range.start_year, start_year: years[0], end_year: years.at(-1), years: years.length } };
  }
  const [lo, hi] = scenarioYears(catalog, dataset, scenario);
  const last = hi - offset;
  const given = single(query, 'years') !== undefined;
  const years = given ? yearsWithin(q.years(query), [lo, last]) : yearRange(Math.max(lo, last - DEFAULT_FIT_YEARS + 1), last);
  if (years.length < MIN_FIT_YEARS) {
    const what = given ? `got ${years.length} of its years` : `by default the window is its last ${DEFAULT_FIT_YEARS}, and it has ${years.length}`;
    throw badRequest(`years: return levels are fitted over at least ${MIN_FIT_YEARS} years of ${scenario.name} (${lo}-${hi} in this data); ${what}.`);
  }
  return { scenario, years, json: { scenario: scenario.name, start_year: years[0], end_year: years.at(-1), years: years.length } };
}

/**
 * return_period or baseline_return_period, with include and the fitting window; undefined when
 * neither is given. Checked after the indicator's own parameters, before relative_to.
 */
export function parseReturnLevels(
  catalog: Catalog,
  dataset: Dataset,
  scenario: Scenario,
  meta: IndicatorMeta,
  query: Record<string, unknown>,
  q: IndicatorFields,
  agg: TimeAggregation,
  warming?: WarmingPlan,
): ReturnLevelPlan | undefined {
  const periods = q.return_period(query);
  const baselinePeriods = q.baseline_return_period(query);
  const include = q.include(query);
  if (periods === undefined && baselinePeriods === undefined) {
    if (include !== undefined) throw badRequest('include=fit applies only with return_period or baseline_return_period.');
    return undefined;
  }
  const asked = periods !== undefined ? 'return_period' : 'baseline_return_period';
  const extreme = RETURN_LEVEL_EXTREMES.get(meta.name);
  if (!extreme) throw badRequest(`${asked} applies to the indicators of a yearly extreme, ${RETURN_LEVEL_INDICATORS}; ${meta.name} has no return levels.`);
  if (periods !== undefined && baselinePeriods !== undefined) {
    throw badRequest('return_period and baseline_return_period cannot be combined: return_period asks for return levels, baseline_return_period for how often the baseline\'s levels recur.');
  }
  if (agg !== 'yearly' && agg !== 'offset_yearly') {
    throw badRequest(`time_aggregation must be yearly or offset_yearly with ${asked}: a return level is fitted to one extreme per year; got '${agg}'.`);
  }
  if (single(query, 'windows') !== undefined) throw badRequest(`windows does not apply with ${asked}: the fitting window is years, historic_range or warming_level.`);
  return { extreme, periods: (periods ?? baselinePeriods)!, inverse: baselinePeriods !== undefined, includeFit: include === 'fit', window: fittingWindow(catalog, dataset, scenario, query, q, agg, warming) };
}

/** The checks of relative_to with return levels: the inverse needs it, and a baseline is fitted too, so it needs 20 years. */
export function checkReturnLevelBaseline(plan: ReturnLevelPlan, relativeTo: Baseline | undefined, query: Record<string, unknown>, agg: TimeAggregation) {
  if (plan.inverse) {
    if (!relativeTo) throw badRequest("baseline_return_period needs relative_to: the historic range or span whose N-year event's return period is asked for.");
    if (single(query, 'change') !== undefined) throw badRequest('change does not apply with baseline_return_period: the answer is a return period in years, not a change.');
  }
  if (relativeTo) {
    // Offset years need the next year within the span.
    const years = relativeTo.end_year - relativeTo.start_year + 1 - (agg === 'offset_yearly' ? 1 : 0);
    if (years < MIN_FIT_YEARS) {
      throw badRequest(`relative_to: with return levels the baseline is fitted too, over at least ${MIN_FIT_YEARS} years; ${relativeTo.start_year}-${relativeTo.end_year} has ${years}.`);
    }
  }
}
