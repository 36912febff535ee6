import { z } from 'zod';
import { badRequest } from '../errors.js';
import { parsedBy } from '../http/queryParams.js';
import type { Catalog, Dataset, Scenario } from '../reference/catalog.js';
import { DEFAULT_DATASET, scenarioModels } from '../reference/datasetContents.js';
import { ALL_VARIABLES, CORE_VARIABLES, datasetLacks, datasetsWith, datasetVariables, modelsLacking } from '../reference/datasetVariables.js';
import { DATASETS } from '../reference/fixtures.js';

/**
 * Query parameters of the raw-data and indicator-data endpoints, as zod schemas: the routes
 * validate with them (through `queryFields`, blank values counting as absent) and the OpenAPI
 * document is generated from them. Messages end with a full stop: they are the whole 400 detail.
 */

/** Every daily variable of some dataset (datasetVariables says which a dataset has). */
export const VARIABLES = ALL_VARIABLES;
export type Variable = (typeof VARIABLES)[number];
/** How the raw-data endpoints combine the models' daily values. */
export const RAW_AGGS = ['avg', 'min', 'max'] as const;
export type RawAgg = (typeof RAW_AGGS)[number];

/** `all`, or inclusive [start, end] year ranges, ORed. */
export type YearsFilter = 'all' | [number, number][];

/** A query value that must be given at most once; empty means absent. */
export function single(query: Record<string, unknown>, name: string): string | undefined {
  const v = query[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw badRequest(`${name} must be given once, as a single value.`);
  return v.trim() === '' ? undefined : v.trim();
}

export function parseVariables(value: string): Variable[] {
  const names = value.split(',').map((v) => v.trim());
  for (const n of names) {
    if (!(VARIABLES as readonly string[]).includes(n)) {
      throw badRequest(`variables accepts a comma-separated list of ${VARIABLES.join(', ')}; got '${n}'.`);
    }
  }
  return VARIABLES.filter((v) => names.includes(v));
}

/** `years`: comma-separated `start[:end]` ranges of 4-digit years, inclusive; or `all`. */
export function parseYearRanges(value: string): YearsFilter {
  if (value === 'all') return 'all';
  return value.split(',').map((term) => {
    const m = /^\s*(\d{4})\s*(?::\s*(\d{4})\s*)?$/.exec(term);
    const start = m ? Number(m[1]) : NaN;
    const end = m?.[2] !== undefined ? Number(m[2]) : start;
    if (!m || start > end) {
      throw badRequest(
        `years accepts comma-separated ranges start[:end] of 4-digit years with start <= end, e.g. 2010, 2010:2020, 2010:2020,2030; got '${term}'.`,
      );
    }
    return [start, end];
  });
}

/** The parameters every climate data endpoint takes. */
export function climateQuery(catalog: Catalog) {
  const names = catalog.datasets.map((d) => d.name) as [string, ...string[]];
  const unknown = (name: unknown) => `Dataset ${String(name)} does not exist. Choose one of: ${names.join(', ')}.`;
  return {
    dataset: z
      .enum(names, { error: (iss) => unknown(iss.input) })
      .default(DEFAULT_DATASET)
      .transform((name, ctx): Dataset => {
        const d = catalog.datasetByName.get(name);
        if (!d) ctx.addIssue({ code: 'custom', message: unknown(name), input: name });
        return d!;
      })
      .meta({ description: 'The dataset to read: its map cell for the place and its models.' }),
    models: z
      .string()
      .default('all')
      .meta({ description: "Comma-separated names of the dataset's models (listed by /api/dataset/{name}/), or `all`." }),
    years: z
      .string()
      .transform(parsedBy(parseYearRanges))
      .default('all')
      .meta({
        description:
          'Comma-separated year ranges `start[:end]`, inclusive (e.g. `2010`, `2010:2020`, `2010:2020,2030`), or `all`. Years outside the scenario are left out.',
        examples: ['2050:2052'],
      }),
  };
}

/** The raw daily data endpoints' parameters. */
export function rawDataQuery(catalog: Catalog) {
  return {
    ...climateQuery(catalog),
    variables: z
      .string()
      .transform(parsedBy(parseVariables))
      .default([...CORE_VARIABLES])
      .meta({
        description: `Comma-separated variables, of ${VARIABLES.join(', ')}; by default ${CORE_VARIABLES.join(', ')}. Storage units: tasmax, tasmin, tas in K, pr in kg m-2 s-1, hurs in %, huss in kg kg-1. tas, hurs and huss are NEX-GDDP-CMIP6's only (each dataset's variables at /api/dataset/); models without one of the variables asked for are left out and named in models_left_out.`,
      }),
    agg: z
      .enum(RAW_AGGS, { error: (iss) => `agg must be one of ${RAW_AGGS.join(', ')} (across models); got '${String(iss.input)}'.` })
      .default('avg')
      .meta({ description: 'How the daily values of the models are combined: one value per day.' }),
  };
}

/** A 400 unless the dataset has the scenario (the CMIP5 datasets have RCPs, the CMIP6 ones SSPs). */
export function checkDatasetScenario(dataset: Dataset, scenario: Scenario) {
  if (!dataset.scenarios.some((s) => s.name === scenario.name)) {
    throw badRequest(`Dataset ${dataset.name} has no scenario ${scenario.name}; its scenarios are ${dataset.scenarios.map((s) => s.name).join(', ')}.`);
  }
}

/**
 * Comma-separated model names of the dataset that have the scenario; `all`: every such model.
 * Checks first that the dataset has the scenario at all.
 */
export function parseModels(dataset: Dataset, scenario: Scenario, value: string): string[] {
  checkDatasetScenario(dataset, scenario);
  const withScenario = scenarioModels(dataset, scenario);
  if (value === 'all') return withScenario;
  const names = value.split(',').map((m) => m.trim());
  const unknown = names.filter((m) => !dataset.models.includes(m));
  if (unknown.length > 0) {
    throw badRequest(
      `Dataset ${dataset.name} has no data for model(s): ${unknown.map((m) => m || '(empty)').join(',')}. ` +
        `Its models are listed at /api/dataset/${dataset.name}/.`,
    );
  }
  const lacking = names.filter((m) => !withScenario.includes(m));
  if (lacking.length > 0) {
    throw badRequest(
      `In ${dataset.name}, model(s) ${[...new Set(lacking)].join(',')} have no ${scenario.name} run. ` +
        `Its models with ${scenario.name}: ${withScenario.join(', ')} (each model's scenarios at /api/climate-model/{name}/).`,
    );
  }
  return [...new Set(names)];
}

/** The sorted years of `filter` within `available` (the scenario's years in this data build). */
export function yearsWithin(filter: YearsFilter, available: [number, number]): number[] {
  const [lo, hi] = available;
  if (filter === 'all') return range(lo, hi);
  const out = new Set<number>();
  for (const [start, end] of filter) for (let y = Math.max(start, lo); y <= Math.min(end, hi); y++) out.add(y);
  return [...out].sort((a, b) => a - b);
}

const range = (a: number, b: number) => Array.from({ length: Math.max(0, b - a + 1) }, (_, i) => a + i);

/** A 400 unless the dataset has every variable asked for (an indicator's inputs, or the raw endpoints' variables). */
export function checkDatasetVariables(dataset: Dataset, variables: readonly string[], what: string) {
  const lacking = datasetLacks(dataset.name, variables);
  if (lacking.length > 0) {
    throw badRequest(
      `Dataset ${dataset.name} has no ${lacking.join(', ')}, which ${what}; its variables are ${datasetVariables(dataset.name).join(', ')}` +
        ` (each dataset's at /api/dataset/). ${lacking.join(', ')} ${lacking.length > 1 ? 'are' : 'is'} in ${datasetsWith(DATASETS.map((d) => d.name), lacking).join(', ') || 'no dataset of this service'}.`,
    );
  }
}

/**
 * The models that have every variable asked for, and those left out (each with what it lacks). Only
 * models without one is a 400 naming them.
 */
export function modelsWithVariables(dataset: Dataset, models: string[], variables: readonly string[]): { models: string[]; leftOut: { model: string; lacks: string[] }[] } {
  const leftOut = modelsLacking(dataset.name, models, variables);
  if (leftOut.length === 0) return { models, leftOut };
  const kept = models.filter((m) => !leftOut.some((x) => x.model === m));
  if (kept.length === 0) {
    throw badRequest(
      `models: ${leftOut.map((x) => `${x.model} has no ${x.lacks.join(' or ')}`).join('; ')} in ${dataset.name}, and ${variables.join(', ')} ${variables.length > 1 ? 'are' : 'is'} needed here. Ask for other models, or leave models out for all that have them.`,
    );
  }
  return { models: kept, leftOut };
}

/** A request's size: years x models x cells, bounded so no request can occupy the server for long. */
export function checkCost(years: number, models: number, maxModelYears: number) {
  if (years * models > maxModelYears) {
    throw badRequest(
      `This request covers ${years} years x ${models} models = ${years * models} model-years; the limit is ${maxModelYears}. Ask for fewer years or models.`,
    );
  }
}
