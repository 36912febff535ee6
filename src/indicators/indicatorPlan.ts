import type { Catalog, Dataset, Scenario } from '../reference/catalog.js';
import { climateFile, summariesOlderThanService, summaryFile } from '../dataBuild/files.js';
import { checkCost, checkDatasetVariables, modelsWithVariables, parseModels, yearsWithin } from '../climate/params.js';
import { modelsLacking } from '../reference/datasetVariables.js';
import { scenarioModels, scenarioYears } from '../reference/datasetContents.js';
import { badRequest, NotFoundError } from '../errors.js';
import { WINDOW_YEARS } from '../reference/warmingLevels.js';
import type { IndicatorMeta } from './metadata.js';
import { customSpans, multiYearWindows, parseBaseline, parseIndicatorVariables, parseUnits, type Baseline, type IndicatorFields, type IndicatorVariables, type Span, type TimeAggregation } from './params.js';
import type { CellFiles, IndicatorRequest } from './query.js';
import { checkReturnLevelBaseline, parseReturnLevels, type ReturnLevelPlan } from './returnLevels/params.js';
import { findIndicator } from './registry.js';
import { checkWarmingParams, warmingPlan, type WarmingPlan } from './warmingPlan.js';

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
  /** warming_level: each model's window per level, and what to read; then `years` is empty. */
  warming?: WarmingPlan;
  /** return_period or baseline_return_period: `years` are the fitting window's, read from its scenario. */
  returnLevels?: ReturnLevelPlan;
  /** Models asked for that lack one of the indicator's variables: left out, and named in the answer. */
  leftOut: { model: string; lacks: string[] }[];
}

export function indicatorOr404(name: string | undefined): IndicatorMeta {
  const meta = findIndicator(name ?? '');
  if (!meta) throw new NotFoundError(`Indicator ${name} does not exist.`);
  return meta;
}

/** Checks the parameters in the order the endpoints always have: the first bad one is the 400 (or 404). */
export function indicatorPlan(catalog: Catalog, q: IndicatorFields, query: Record<string, unknown>, dataset: Dataset, scenario: Scenario, name: string | undefined, maxModelYears: number): IndicatorPlan {
  const levels = q.warming_level(query);
  // Pooled, the models are those of every scenario pooled (warmingPlan): not checked against this one alone.
  const pooled = levels !== undefined && q.pool_scenarios(query);
  const asked = pooled ? [] : parseModels(dataset, scenario, q.models(query));
  const meta = indicatorOr404(name);
  checkDatasetVariables(dataset, meta.variables, `${meta.name} needs`);
  const { models, leftOut: askedLeftOut } = modelsWithVariables(dataset, asked, meta.variables);
  const aggs = q.agg(query);
  const timeAggregation = q.time_aggregation(query);
  checkWarmingParams(query, levels, timeAggregation);
  const spans = customSpans(timeAggregation, query, q.custom_time_agg);
  const units = parseUnits(meta, q.units(query));
  const vars = parseIndicatorVariables(catalog, dataset, meta, query, q);
  if (levels !== undefined) {
    // Refuses `windows` (time_aggregation is not window here); no year is read through it.
    multiYearWindows(timeAggregation, query, q.windows, [], [0, 0]);
    const relativeTo = parseBaseline(catalog, dataset, query, q);
    // Pooled, the models are every scenario's: those without the inputs are left out there.
    const leftOut = pooled ? modelsLacking(dataset.name, dataset.models, meta.variables) : askedLeftOut;
    const warming = warmingPlan(catalog, dataset, scenario, { levels, pooled, models, modelsParam: q.models(query), timeAggregation, baseline: relativeTo, leftOut: leftOut.map((x) => x.model) });
    // Return levels at warming levels: each model's fitting window is its own window at the level.
    const returnLevels = parseReturnLevels(catalog, dataset, scenario, meta, query, q, timeAggregation, warming);
    if (returnLevels) checkReturnLevelBaseline(returnLevels, relativeTo, query, timeAggregation);
    if (warming.modelYears > maxModelYears) {
      throw badRequest(
        `This request covers ${warming.modelYears} model-years (${WINDOW_YEARS} per model and level${relativeTo ? ", and the baseline's years per model" : ''}); the limit is ${maxModelYears}. Ask for fewer levels or models${pooled ? ', or leave out pool_scenarios' : ''}.`,
      );
    }
    const used = [...new Set(warming.members.map((m) => m.model))];
    return { dataset, scenario, meta, models: pooled ? used : models, aggs, timeAggregation, spans, units, vars, years: [], windows: undefined, relativeTo, baselineYears: [], warming, returnLevels, leftOut };
  }
  const returnLevels = parseReturnLevels(catalog, dataset, scenario, meta, query, q, timeAggregation);
  const available = scenarioYears(catalog, dataset, returnLevels?.window.scenario ?? scenario);
  const { windows, years: windowYears } = returnLevels
    ? { windows: undefined, years: returnLevels.window.years }
    : multiYearWindows(timeAggregation, query, q.windows, yearsWithin(q.years(query), available), available);
  let years = windowYears;
  // An offset year is named by its first calendar year and also needs the next one.
  if (timeAggregation === 'offset_yearly') years = [...new Set(years.flatMap((y) => (y < available[1] ? [y, y + 1] : [y])))].sort((a, b) => a - b);
  const relativeTo = parseBaseline(catalog, dataset, query, q);
  if (returnLevels) checkReturnLevelBaseline(returnLevels, relativeTo, query, timeAggregation);
  const baselineYears = relativeTo ? Array.from({ length: relativeTo.end_year - relativeTo.start_year + 1 }, (_, i) => relativeTo.start_year + i) : [];
  checkCost(years.length + baselineYears.length, models.length, maxModelYears);
  return { dataset, scenario, meta, models, aggs, timeAggregation, spans, units, vars, years, windows, relativeTo, baselineYears, returnLevels, leftOut: askedLeftOut };
}

/**
 * The files the plan reads of one map cell; undefined when the cell has no data for the scenario.
 * A historic range or a baseline needs the cell's historical file: without one, a 404 naming the
 * place ("this map cell", "map cell 123 of this area").
 */
export function planCellFiles(catalog: Catalog, plan: IndicatorPlan, cellId: number, place = 'this map cell', scenario = dataScenario(plan).name): CellFiles | undefined {
  const { dataset, meta, vars } = plan;
  // At warming levels the baseline's years are read as those of the historical file (warmingData.ts).
  const relativeTo = plan.warming ? undefined : plan.relativeTo;
  const historical = (what: string) => {
    const historicFile = climateFile(catalog.dataDir, dataset.name, 'historical', cellId);
    if (!historicFile) throw new NotFoundError(`No historical ${dataset.name} data for ${place}, so no ${what}.`);
    return historicFile;
  };
  // A historic_range fitting window reads the historical run, whatever the request's scenario.
  const file = dataScenario(plan) !== plan.scenario ? historical('fitting window for historic_range') : climateFile(catalog.dataDir, dataset.name, scenario, cellId);
  if (!file) return undefined;
  if (catalog.staleSummaries.has(dataset.name)) throw summariesOlderThanService(`has ${dataset.name} monthly summaries of an older format`);
  return {
    file,
    monthlyFile: summaryFile(catalog.dataDir, 'monthly', dataset.name, scenario, cellId),
    historicFile: vars.historicRange ? historical(`historic baseline for ${meta.name}`) : undefined,
    baselineFile: relativeTo ? historical('baseline for relative_to') : undefined,
    baselineMonthlyFile: relativeTo ? summaryFile(catalog.dataDir, 'monthly', dataset.name, 'historical', cellId) : undefined,
  };
}

/** The template request of a plan for some cells' files. */
export function planRequest(plan: IndicatorPlan, cells: CellFiles[]): IndicatorRequest {
  return {
    name: plan.meta.name,
    cells,
    models: readsEveryModel(plan) ? undefined : plan.models,
    years: plan.years,
    // Windows are made of each model's yearly values.
    timeAggregation: plan.windows ? 'yearly' : plan.timeAggregation,
    spans: plan.spans,
    aggs: plan.aggs,
    units: plan.units,
    baseline: plan.relativeTo ? { years: plan.baselineYears, change: plan.relativeTo.change } : undefined,
    windows: plan.windows,
    ...plan.vars,
  };
}

/**
 * Whether the plan reads every model of the scenario's file, so that the query need not name them.
 * (Historic baselines always average every model of the historical file, whatever `models` says.)
 */
export function readsEveryModel(plan: IndicatorPlan): boolean {
  return plan.models.length === scenarioModels(plan.dataset, dataScenario(plan)).length;
}

/** The scenario whose data the plan reads: the request's, or the fitting window's (historical for a historic_range). */
export const dataScenario = (plan: IndicatorPlan): Scenario => plan.returnLevels?.window.scenario ?? plan.scenario;
