import { checkDatasetScenario, single } from '../climate/params.js';
import { scenarioModels } from '../reference/datasetContents.js';
import { badRequest, UnavailableError } from '../errors.js';
import type { Catalog, Dataset, Scenario, WarmingWindow } from '../reference/catalog.js';
import { buildYears, futureScenarios, windowInData, warmingStatus, WARMING_LEVELS, WINDOW_YEARS, type WarmingLevel } from '../reference/warmingLevels.js';
import type { Baseline, TimeAggregation } from './params.js';

/**
 * A request at global warming levels (`warming_level`): per level, the models' windows from the
 * catalog's table, and the years each scenario file (and the historical one) must be read for.
 * Each model's window is a list of years like any other: the indicator's per-model values over
 * those years are what the plain request computes, then reduced per model and across models
 * (warmingLevelStats.ts).
 */

/** A model at a level in a scenario, with its window. */
export interface WarmingMember {
  level: WarmingLevel;
  model: string;
  scenario: string;
  window: WarmingWindow;
}

/** A model and scenario without a window at a level, and why. */
export interface WarmingMiss {
  level: WarmingLevel;
  model: string;
  scenario: string;
  /**
   * not_reached: the table has the model and scenario but it does not reach the level by 2100;
   * not_in_table: the table has neither; outside_data: the window's years are not all in this data build.
   */
  why: 'not_reached' | 'not_in_table' | 'outside_data';
  window?: WarmingWindow;
}


export interface WarmingPlan {
  levels: WarmingLevel[];
  pooled: boolean;
  /** The scenarios whose windows are used: the requested one, or every future one when pooled. */
  scenarios: string[];
  members: WarmingMember[];
  misses: WarmingMiss[];
  /**
   * The files to read of each cell: the scenarios' with members, then the historical one when a
   * window starts before its scenario or there is a baseline.
   */
  files: string[];
  /** The years to read: every file's, as each file holds only its own (an offset year's next one included). */
  years: number[];
  /** The models to read; undefined for every model of the files (all were asked for). */
  models?: string[];
  /** Model-years the request reads: 20 per member, and the baseline's years per model. */
  modelYears: number;
}

const range = (a: number, b: number) => Array.from({ length: Math.max(0, b - a + 1) }, (_, i) => a + i);

/** The checks that come before the levels: warming_level with years, decadal or window; pool_scenarios without it. */
export function checkWarmingParams(query: Record<string, unknown>, levels: WarmingLevel[] | undefined, timeAggregation: TimeAggregation) {
  if (levels === undefined) {
    if (single(query, 'pool_scenarios') !== undefined) throw badRequest('pool_scenarios applies only with warming_level: give warming_level (one or several of 1.0, 1.5, 2.0, 3.0, 4.0), or leave pool_scenarios out.');
    return;
  }
  if (single(query, 'years') !== undefined) {
    throw badRequest("warming_level replaces years: each model's years are its own 20-year window at the level. Leave out years, or leave out warming_level.");
  }
  if (timeAggregation === 'decadal' || timeAggregation === 'window') {
    throw badRequest(`With warming_level, time_aggregation must be one of yearly, quarterly, monthly, offset_yearly, custom (each model's window is averaged per year, quarter, month or span); got '${timeAggregation}'.`);
  }
}

/**
 * The models of a pooled request: every model of the dataset (`all`), or the ones named, each a
 * model of the dataset; a named model is used in the pooled scenarios it has a run of.
 */
function pooledModels(dataset: Dataset, value: string): string[] {
  if (value === 'all') return dataset.models;
  const names = [...new Set(value.split(',').map((m) => m.trim()))];
  const unknown = names.filter((m) => !dataset.models.includes(m));
  if (unknown.length > 0) throw badRequest(`Dataset ${dataset.name} has no data for model(s): ${unknown.map((m) => m || '(empty)').join(',')}. Its models are listed at /api/dataset/${dataset.name}/.`);
  return names;
}

/**
 * The windows of the requested models at each level in the scenario (or, pooled, in every future
 * scenario of the dataset), the models without one and why, and what to read. A level that no model
 * reaches within this build is a 400 naming the levels that some do.
 */
export function warmingPlan(
  catalog: Catalog,
  dataset: Dataset,
  scenario: Scenario,
  opts: { levels: WarmingLevel[]; pooled: boolean; models: string[]; modelsParam: string; timeAggregation: TimeAggregation; baseline?: Baseline; leftOut?: string[] },
): WarmingPlan {
  checkDatasetScenario(dataset, scenario);
  const future = futureScenarios(dataset);
  if (!future.includes(scenario.name)) {
    throw badRequest(`warming_level needs a scenario that reaches warming levels, one of ${future.join(', ')} for ${dataset.name}; got ${scenario.name}.`);
  }
  if (catalog.warmingWindows.length === 0) {
    throw new UnavailableError('This data build has no warming-level table (it was made before warming levels were served): rebuild it with make data.');
  }
  const scenarios = opts.pooled ? future : [scenario.name];
  // Models without the indicator's inputs (leftOut) are not members in any scenario.
  const models = (opts.pooled ? pooledModels(dataset, opts.modelsParam) : opts.models).filter((m) => !opts.leftOut?.includes(m));
  const members: WarmingMember[] = [];
  const misses: WarmingMiss[] = [];
  for (const level of opts.levels) {
    for (const s of scenarios) {
      const years = buildYears(catalog, dataset, s);
      const withRun = new Set(scenarioModels(dataset, catalog.scenarioByName.get(s)!));
      for (const model of models.filter((m) => withRun.has(m))) {
        const status = warmingStatus(catalog, dataset.name, model, s, level);
        if ('missing' in status) misses.push({ level, model, scenario: s, why: status.missing });
        else if (!windowInData(status.window, years)) misses.push({ level, model, scenario: s, why: 'outside_data', window: status.window });
        else members.push({ level, model, scenario: s, window: status.window });
      }
    }
    if (!members.some((m) => m.level === level)) throw badRequest(noModelAt(catalog, dataset, scenarios, models, level));
  }

  // What to read: each scenario's file and, for the windows' years before the scenarios and the
  // baseline's, the historical one. An offset year also needs its next calendar year; a year past a
  // file's is simply not in it.
  const years = new Set<number>();
  let historical = false;
  for (const { window, scenario: s } of members) {
    const first = buildYears(catalog, dataset, s).scenario[0];
    for (const y of range(window.start_year, window.end_year + (opts.timeAggregation === 'offset_yearly' ? 1 : 0))) years.add(y);
    if (window.start_year < first) historical = true;
  }
  if (opts.baseline) for (const y of range(opts.baseline.start_year, opts.baseline.end_year)) years.add(y);
  const files = [...scenarios.filter((s) => members.some((m) => m.scenario === s)), ...(historical || opts.baseline ? ['historical'] : [])];
  const everyModel = opts.pooled ? opts.modelsParam === 'all' && !opts.leftOut?.length : models.length === scenarioModels(dataset, scenario).length;
  const baselineYears = opts.baseline ? opts.baseline.end_year - opts.baseline.start_year + 1 : 0;
  const modelYears = members.length * WINDOW_YEARS + baselineYears * new Set(members.map((m) => m.model)).size;
  return {
    levels: opts.levels,
    pooled: opts.pooled,
    scenarios,
    members,
    misses,
    files,
    years: [...years].sort((a, b) => a - b),
    models: everyModel ? undefined : [...new Set(members.map((m) => m.model))],
    modelYears,
  };
}

/** The 400 for a level without a model: which levels the scenarios do have models at, within this build. */
function noModelAt(catalog: Catalog, dataset: Dataset, scenarios: string[], models: string[], level: WarmingLevel): string {
  const reached = WARMING_LEVELS.map((l) => {
    let n = 0;
    for (const s of scenarios) {
      const years = buildYears(catalog, dataset, s);
      const withRun = new Set(scenarioModels(dataset, catalog.scenarioByName.get(s)!));
      for (const m of models.filter((x) => withRun.has(x))) {
        const status = warmingStatus(catalog, dataset.name, m, s, l);
        if ('window' in status && windowInData(status.window, years)) n++;
      }
    }
    return [l, n] as const;
  }).filter(([, n]) => n > 0);
  const where = `${dataset.name} ${scenarios.join(', ')}`;
  return (
    `warming_level: no requested model of ${where} reaches ${level} °C with its window within this data build's years. ` +
    (reached.length ? `Levels with models: ${reached.map(([l, n]) => `${l} (${n})`).join(', ')}.` : 'No level has one (see /api/warming-level/).')
  );
}
