import { badRequest } from '../http/errors.js';
import type { Catalog, Dataset, Scenario } from '../reference/catalog.js';

/** Parameters shared by the raw-data and indicator-data endpoints. */

export const VARIABLES = ['tasmax', 'tasmin', 'pr'] as const;
export type Variable = (typeof VARIABLES)[number];

/** A query value that must be given at most once; empty means absent. */
export function single(query: Record<string, unknown>, name: string): string | undefined {
  const v = query[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw badRequest(`${name} must be given once, as a single value.`);
  return v.trim() === '' ? undefined : v.trim();
}

export function parseDataset(catalog: Catalog, value: string | undefined): Dataset {
  const name = value ?? 'NEX-GDDP';
  const d = catalog.datasetByName.get(name);
  if (!d) {
    throw badRequest(`Dataset ${name} does not exist. Choose one of: ${catalog.datasets.map((x) => x.name).join(', ')}.`);
  }
  return d;
}

/** Comma-separated model names, all of the dataset's; default: every model of the dataset. */
export function parseModels(dataset: Dataset, value: string | undefined): string[] {
  if (value === undefined || value === 'all') return dataset.models;
  const names = value.split(',').map((m) => m.trim());
  const unknown = names.filter((m) => !dataset.models.includes(m));
  if (unknown.length > 0) {
    throw badRequest(
      `Dataset ${dataset.name} has no data for model(s): ${unknown.map((m) => m || '(empty)').join(',')}. ` +
        `Its models are listed at /api/dataset/${dataset.name}/.`,
    );
  }
  return [...new Set(names)];
}

export function parseVariables(value: string | undefined): Variable[] {
  if (value === undefined) return [...VARIABLES];
  const names = value.split(',').map((v) => v.trim());
  for (const n of names) {
    if (!(VARIABLES as readonly string[]).includes(n)) {
      throw badRequest(`variables accepts a comma-separated list of ${VARIABLES.join(', ')}; got '${n}'.`);
    }
  }
  return VARIABLES.filter((v) => names.includes(v));
}

/**
 * `years`: comma-separated `start[:end]` ranges, inclusive, ORed. Returns the sorted years within
 * `available` (the scenario's years in this data build).
 */
export function parseYears(value: string | undefined, available: [number, number]): number[] {
  const [lo, hi] = available;
  if (value === undefined || value === 'all') return range(lo, hi);
  const out = new Set<number>();
  for (const term of value.split(',')) {
    const m = /^\s*(\d{4})\s*(?::\s*(\d{4})\s*)?$/.exec(term);
    const start = m ? Number(m[1]) : NaN;
    const end = m?.[2] !== undefined ? Number(m[2]) : start;
    if (!m || start > end) {
      throw badRequest(
        `years accepts comma-separated ranges start[:end] of 4-digit years with start <= end, e.g. 2010, 2010:2020, 2010:2020,2030; got '${term}'.`,
      );
    }
    for (let y = Math.max(start, lo); y <= Math.min(end, hi); y++) out.add(y);
  }
  return [...out].sort((a, b) => a - b);
}

const range = (a: number, b: number) => Array.from({ length: Math.max(0, b - a + 1) }, (_, i) => a + i);

/** The scenario's years present in this data build. */
export function scenarioYears(catalog: Catalog, scenario: Scenario): [number, number] {
  const built = (catalog.manifest.years as Record<string, [number, number]> | undefined)?.[scenario.name];
  return built ?? [scenario.startYear, scenario.endYear];
}

/** A request's size: years x models x cells, bounded so no request can occupy the server for long. */
export function checkCost(years: number, models: number, maxModelYears: number) {
  if (years * models > maxModelYears) {
    throw badRequest(
      `This request covers ${years} years x ${models} models = ${years * models} model-years; the limit is ${maxModelYears}. Ask for fewer years or models.`,
    );
  }
}
