import type { Catalog, Dataset, Scenario } from './catalog.js';

/**
 * What a dataset holds in this data build: its models per scenario, each scenario's years and its
 * historic ranges. Facts of the catalog, read by the reference endpoints and by every data request.
 */

/** The dataset a request without `dataset` reads. */
export const DEFAULT_DATASET = 'NEX-GDDP';

/** The dataset's models that have a run of the scenario, in the dataset's order. */
export function scenarioModels(dataset: Dataset, scenario: Scenario): string[] {
  return dataset.models.filter((m) => dataset.runs.get(m)?.scenarios.includes(scenario.name) ?? true);
}

type YearsByScenario = Record<string, [number, number]>;

/**
 * The years of the dataset's scenario present in this data build: the manifest's per-dataset
 * years, else (a build from before CMIP6) its per-scenario years for the CMIP5 datasets, else the
 * dataset's full range (historical ends in 2005 for CMIP5 and 2014 for CMIP6).
 */
export function scenarioYears(catalog: Catalog, dataset: Dataset, scenario: Scenario): [number, number] {
  const m = catalog.manifest as { dataset_years?: Record<string, YearsByScenario>; years?: YearsByScenario };
  const built = m.dataset_years?.[dataset.name]?.[scenario.name] ?? (dataset.generation === 'CMIP5' ? m.years?.[scenario.name] : undefined);
  if (built) return built;
  const own = dataset.scenarios.find((s) => s.name === scenario.name);
  return own ? [own.startYear, own.endYear] : [scenario.startYear, scenario.endYear];
}

/** The historic ranges within the dataset's historical years (1981-2010 only for CMIP6). */
export const datasetRanges = (catalog: Catalog, dataset: Dataset) => catalog.historicRanges.filter((r) => r.datasets.includes(dataset.name));

/**
 * The ranges of the dataset a request without `dataset` reads (NEX-GDDP): what /api/historic-range/
 * lists without `dataset`, so that a client that knows only CMIP5 and takes the latest of that
 * list asks for a range every CMIP5 request accepts.
 */
export function defaultDatasetRanges(catalog: Catalog) {
  const dataset = catalog.datasetByName.get(DEFAULT_DATASET);
  return dataset ? datasetRanges(catalog, dataset) : catalog.historicRanges;
}

/** The latest of the ranges: the default historic_range. */
export const latestRange = <T extends { end_year: number }>(ranges: T[]) => [...ranges].sort((a, b) => b.end_year - a.end_year)[0];
