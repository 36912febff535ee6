/**
 * The daily variables each dataset's files carry, and the models whose files lack some of them
 * (../shared/reference/cmip6.md §1.5, from the Earth Engine catalog). Facts of the publishers, so
 * they live beside the fixtures rather than in a data build: a build of an older version answers
 * with the same lists.
 */

/** What every dataset has: daily high, low and precipitation. */
export const CORE_VARIABLES = ['tasmax', 'tasmin', 'pr'] as const;
/** NEX-GDDP-CMIP6's daily mean temperature (K), near-surface relative humidity (%) and specific humidity (kg kg-1). */
export const HUMIDITY_VARIABLES = ['tas', 'hurs', 'huss'] as const;
export const ALL_VARIABLES = [...CORE_VARIABLES, ...HUMIDITY_VARIABLES] as const;
export type DailyVariable = (typeof ALL_VARIABLES)[number];

// LOCA2 has no daily mean tas or hurs: its humidity (NAmer, v20250218) is hursmax and hursmin, and
// maybe huss, a list the reference leaves unconfirmed (archive-access.md 2, cmip6.md 2.2); LOCA2-Hybrid's
// huss is another product (Cal-Adapt's 3 km California grid). So LOCA2 serves tasmax, tasmin and pr
// only, until its NAmer huss is confirmed (then heat index would need tasmax and huss only).
const OWN: Record<string, readonly DailyVariable[]> = {
  'NEX-GDDP-CMIP6': ALL_VARIABLES,
};

/** Per dataset, the models published without a variable. */
const GAPS: Record<string, Record<string, readonly DailyVariable[]>> = {
  'NEX-GDDP-CMIP6': { 'BCC-CSM2-MR': ['hurs'], 'IPSL-CM6A-LR': ['huss'], MIROC6: ['huss'], NESM3: ['hurs', 'huss'] },
};

/** The dataset's daily variables, in the order of ALL_VARIABLES. */
export const datasetVariables = (dataset: string): readonly DailyVariable[] => OWN[dataset] ?? CORE_VARIABLES;

/** Whether the dataset's files carry the humidity variables at all (the build writes their columns). */
export const hasHumidity = (dataset: string) => datasetVariables(dataset).includes('hurs');

/** The variables of `variables` that the dataset's model lacks. */
export const modelLacks = (dataset: string, model: string, variables: readonly string[]): string[] =>
  (GAPS[dataset]?.[model] ?? []).filter((v) => variables.includes(v));

/** The models of `models` that lack some of `variables`, each with what it lacks. */
export function modelsLacking(dataset: string, models: readonly string[], variables: readonly string[]): { model: string; lacks: string[] }[] {
  return models.map((model) => ({ model, lacks: modelLacks(dataset, model, variables) })).filter((m) => m.lacks.length > 0);
}

/** The variables of `variables` the dataset lacks. */
export const datasetLacks = (dataset: string, variables: readonly string[]) => variables.filter((v) => !(datasetVariables(dataset) as readonly string[]).includes(v));

/** The datasets (of `datasets`) that have every one of `variables`. */
export const datasetsWith = (datasets: readonly string[], variables: readonly string[]) => datasets.filter((d) => datasetLacks(d, variables).length === 0);
