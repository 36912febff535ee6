import type { Catalog, Dataset, Scenario } from '../reference/catalog.js';
import { climateFile, summaryFile } from '../climate/files.js';
import { checkCost, parseModels, scenarioModels, scenarioYears, yearsWithin } from '../climate/params.js';
import type { QueryPool } from '../db/queryPool.js';
import { HttpError } from '../http/errors.js';
import type { IndicatorMeta } from './metadata.js';
import { customSpans, multiYearWindows, parseBaseline, parseIndicatorVariables, parseUnits, type Baseline, type IndicatorFields, type IndicatorVariables, type Span, type TimeAggregation } from './params.js';
import { queryIndicator, type IndicatorRequest, type PeriodStats } from './query.js';
import { findIndicator } from './registry.js';

/**
 * An indicator request split in two: the plan (every parameter checked, the same for any place)
 * and the rows of one map cell. The single-location endpoints run both once; a batch checks the
 * parameters once and computes the rows once per distinct cell.
 */
export interface IndicatorPlan {
  dataset: Dataset;
  scenario: Scenario;
  meta: IndicatorMeta;
  models: string[];
  aggs: string[];
  timeAggregation: TimeAggregation;
  spans: Span[];
  units: string;
  vars: IndicatorVariables;
  /** Years read from the scenario (an offset year's next calendar year included). */
  years: number[];
  windows: Span[] | undefined;
  relativeTo: Baseline | undefined;
  baselineYears: number[];
}

export function indicatorOr404(name: string | undefined): IndicatorMeta {
  const meta = findIndicator(name ?? '');
  if (!meta) throw new HttpError(404, `Indicator ${name} does not exist.`);
  return meta;
}

/** Checks the parameters in the order the endpoints always have: the first bad one is the 400 (or 404). */
export function indicatorPlan(catalog: Catalog, q: IndicatorFields, query: Record<string, unknown>, dataset: Dataset, scenario: Scenario, name: string | undefined, maxModelYears: number): IndicatorPlan {
  const models = parseModels(dataset, scenario, q.models(query));
  const meta = indicatorOr404(name);
  const aggs = q.agg(query);
  const timeAggregation = q.time_aggregation(query);
  const spans = customSpans(timeAggregation, query, q.custom_time_agg);
  const units = parseUnits(meta, q.units(query));
  const vars = parseIndicatorVariables(catalog, dataset, meta, query, q);
  const available = scenarioYears(catalog, dataset, scenario);
  const { windows, years: windowYears } = multiYearWindows(timeAggregation, query, q.windows, yearsWithin(q.years(query), available), available);
  let years = windowYears;
  // An offset year is named by its first calendar year and also needs the next one.
  if (timeAggregation === 'offset_yearly') years = [...new Set(years.flatMap((y) => (y < available[1] ? [y, y + 1] : [y])))].sort((a, b) => a - b);
  const relativeTo = parseBaseline(catalog, dataset, query, q);
  const baselineYears = relativeTo ? Array.from({ length: relativeTo.end_year - relativeTo.start_year + 1 }, (_, i) => relativeTo.start_year + i) : [];
  checkCost(years.length + baselineYears.length, models.length, maxModelYears);
  return { dataset, scenario, meta, models, aggs, timeAggregation, spans, units, vars, years, windows, relativeTo, baselineYears };
}

/** The plan's rows for one map cell: none when the cell has no data for the scenario or no year is asked for. */
export async function indicatorRows(catalog: Catalog, queries: QueryPool, plan: IndicatorPlan, cellId: number): Promise<PeriodStats[]> {
  const { dataset, scenario, meta, models, years, relativeTo, vars } = plan;
  const file = climateFile(catalog.dataDir, dataset.name, scenario.name, cellId);
  if (!file || years.length === 0) return [];
  let historicFile: string | undefined;
  if (vars.historicRange) {
    historicFile = climateFile(catalog.dataDir, dataset.name, 'historical', cellId);
    if (!historicFile) throw new HttpError(404, `No historical ${dataset.name} data for this map cell, so no historic baseline for ${meta.name}.`);
  }
  let baseline: IndicatorRequest['baseline'];
  if (relativeTo) {
    const baselineFile = climateFile(catalog.dataDir, dataset.name, 'historical', cellId);
    if (!baselineFile) throw new HttpError(404, `No historical ${dataset.name} data for this map cell, so no baseline for relative_to.`);
    const monthlyFile = summaryFile(catalog.dataDir, 'monthly', dataset.name, 'historical', cellId);
    baseline = { file: baselineFile, monthlyFile, years: plan.baselineYears, change: relativeTo.change };
  }
  const all = readsEveryModel(plan);
  const monthlyFile = summaryFile(catalog.dataDir, 'monthly', dataset.name, scenario.name, cellId);
  // Windows are made of each model's yearly values.
  const periods = plan.windows ? 'yearly' : plan.timeAggregation;
  return queryIndicator(queries, {
    name: meta.name,
    file,
    monthlyFile,
    models: all ? undefined : models,
    years,
    timeAggregation: periods,
    spans: plan.spans,
    aggs: plan.aggs,
    units: plan.units,
    historicFile,
    baseline,
    windows: plan.windows,
    ...vars,
  });
}

/**
 * Whether the plan reads every model of the scenario's file, so that the query need not name them.
 * (Historic baselines always average every model of the historical file, whatever `models` says.)
 */
export function readsEveryModel(plan: IndicatorPlan): boolean {
  return plan.models.length === scenarioModels(plan.dataset, plan.scenario).length;
}

/** The `data` member of an indicator answer: period -> statistic -> value (null for none). */
export function dataJson(rows: PeriodStats[]): string {
  const periods = rows.map(({ period, stats }) => `${JSON.stringify(period)}:{${stats.map(([k, v]) => `${JSON.stringify(k)}:${v === null || !Number.isFinite(v) ? 'null' : String(v)}`).join(',')}}`);
  return `{${periods.join(',')}}`;
}

/** The members of an indicator answer between the place and `data`, as the endpoints print them. */
export function indicatorHead(plan: IndicatorPlan, indicatorJson: unknown): string {
  return (
    `"dataset":${JSON.stringify(plan.dataset.name)},"scenario":${JSON.stringify(plan.scenario.name)},` +
    `"indicator":${JSON.stringify(indicatorJson)},"climate_models":${JSON.stringify(plan.models)},` +
    `"time_aggregation":${JSON.stringify(plan.timeAggregation)},"units":${JSON.stringify(plan.units)},` +
    (plan.relativeTo ? `"relative_to":${JSON.stringify(plan.relativeTo)},` : '')
  );
}
