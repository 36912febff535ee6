import type { QueryPool } from '../db/queryPool.js';
import type { Piece } from '../http/gzipSegments.js';
import type { Catalog, Dataset, Scenario } from '../reference/catalog.js';
import { climateFile, summaryFile } from '../dataBuild/files.js';
import { checkCost, checkDatasetVariables, modelsWithVariables, parseModels, type RawAgg, rawDataQuery, type Variable, yearsWithin } from './params.js';
import { CORE_VARIABLES } from '../reference/datasetVariables.js';
import { scenarioModels, scenarioYears } from '../reference/datasetContents.js';
import { dailyDataJson, queryEnsembleJson, queryRawData, queryRawDataText, type DailyColumns, type RawDataQuery } from './rawData.js';
import type { queryFields } from '../http/queryParams.js';

export type RawDataFields = ReturnType<typeof queryFields<ReturnType<typeof rawDataQuery>>>;

/**
 * A raw-data request split in two, like an indicator's (src/indicators/indicatorPlan.ts): the plan
 * (parameters checked once) and what one map cell contributes.
 */
export interface RawDataPlan {
  dataset: Dataset;
  scenario: Scenario;
  agg: RawAgg;
  models: string[];
  variables: Variable[];
  years: number[];
  /** Models of the request without one of the variables: not read, and named in the answer. */
  leftOut: { model: string; lacks: string[] }[];
}

export function rawDataPlan(catalog: Catalog, q: RawDataFields, query: Record<string, unknown>, dataset: Dataset, scenario: Scenario, maxModelYears: number): RawDataPlan {
  const agg = q.agg(query);
  const asked = parseModels(dataset, scenario, q.models(query));
  const variables = q.variables(query);
  checkDatasetVariables(dataset, variables, 'variables asks for');
  const { models, leftOut } = modelsWithVariables(dataset, asked, variables);
  const years = yearsWithin(q.years(query), scenarioYears(catalog, dataset, scenario));
  checkCost(years.length, models.length, maxModelYears);
  return { dataset, scenario, agg, models, variables, years, leftOut };
}

/** Where one cell's values come from; undefined when there are none to read. */
export function rawSource(catalog: Catalog, plan: RawDataPlan, cellId: number): RawDataQuery['source'] | undefined {
  const { dataset, scenario } = plan;
  const file = climateFile(catalog.dataDir, dataset.name, scenario.name, cellId);
  if (!file || plan.years.length === 0 || plan.variables.length === 0) return undefined;
  // The ensemble summaries hold the variables every dataset has (the build's time budget).
  const summarised = plan.variables.every((v) => (CORE_VARIABLES as readonly string[]).includes(v));
  return summarised && plan.models.length === scenarioModels(dataset, scenario).length
    ? { kind: 'ensemble', file: summaryFile(catalog.dataDir, 'ensemble', dataset.name, scenario.name, cellId) }
    : { kind: 'days', file, models: plan.models };
}

/** One cell's values as numbers, for the CSV and Arrow tables. */
export async function rawColumns(catalog: Catalog, queries: QueryPool, plan: RawDataPlan, cellId: number): Promise<DailyColumns | undefined> {
  const source = rawSource(catalog, plan, cellId);
  return source ? queryRawData(queries, { source, years: plan.years, variables: plan.variables, agg: plan.agg }) : undefined;
}

/**
 * One cell's members of the JSON `data`, `"<year>": {...}` each. Members with a key are the same
 * text for every request of this cell and year: their gzip segments may be kept (src/http/gzipSegments.ts).
 */
export async function rawYearMembers(catalog: Catalog, queries: QueryPool, plan: RawDataPlan, cellId: number): Promise<Piece[]> {
  const { dataset, scenario, years, variables, agg } = plan;
  const source = rawSource(catalog, plan, cellId);
  if (source?.kind === 'ensemble') {
    const file = summaryFile(catalog.dataDir, 'ensemble_json', dataset.name, scenario.name, cellId);
    return (await queryEnsembleJson(queries, { file, years, variables, agg })).map(({ year, member }) => ({ text: member, key: `${file}|${agg}|${variables.join(',')}|${year}` }));
  }
  if (source) return dailyDataJson(await queryRawDataText(queries, { source, years, variables, agg }), variables).map((text) => ({ text }));
  return [];
}

/** The members of a raw answer between the place and `data`. */
export function rawHead(plan: RawDataPlan): string {
  return (
    `"dataset":${JSON.stringify(plan.dataset.name)},"scenario":${JSON.stringify(plan.scenario.name)},"climate_models":${JSON.stringify(plan.models)},"variables":${JSON.stringify(plan.variables)},` +
    (plan.leftOut.length > 0 ? `"models_left_out":${JSON.stringify(plan.leftOut)},` : '')
  );
}
