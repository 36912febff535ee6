import { scenarioYears } from './datasetContents.js';
import type { Catalog, Dataset, WarmingWindow } from './catalog.js';

/**
 * The global warming levels the service answers at, and each model's window at them: the IPCC AR6
 * Atlas tables as the build resolved them per dataset (src/ingest/warmingLevels.ts). The tables also
 * have 0.61 and 1.2 °C; the API offers the Atlas's headline levels.
 */
export const WARMING_LEVELS = ['1.0', '1.5', '2.0', '3.0', '4.0'] as const;
export type WarmingLevel = (typeof WARMING_LEVELS)[number];
export const WINDOW_YEARS = 20;

export const WARMING_SOURCE = {
  citation: 'M. Hauser, F. Engelbrecht, E. M. Fischer, "Transient global warming levels for CMIP5 and CMIP6", Zenodo',
  doi: '10.5281/zenodo.3591807',
  url: 'https://doi.org/10.5281/zenodo.3591807',
  licence: 'CC BY-SA 4.0',
  method:
    "Per model (one member), the global mean near-surface air temperature's 20-year centred running mean, historical run then scenario, against the reference period; " +
    'the window is the 20 years centred on the first year above the level (start = central - 10, end = central + 9). These are the tables of the IPCC AR6 WGI Atlas.',
};

/** The API's label of a level: 2 -> "2.0". */
export const levelLabel = (level: number) => level.toFixed(1);

/** Where a model stands at a level in a scenario. */
export type WarmingStatus = { window: WarmingWindow } | { missing: 'not_reached' | 'not_in_table' };

/** `${dataset}|${model}|${scenario}` -> level label -> window; the key is present when the table has the pair at all. */
const indexes = new WeakMap<Catalog, Map<string, Map<string, WarmingWindow>>>();
function indexOf(catalog: Catalog): Map<string, Map<string, WarmingWindow>> {
  let index = indexes.get(catalog);
  if (!index) {
    index = new Map();
    for (const w of catalog.warmingWindows) {
      const key = `${w.dataset}|${w.model}|${w.scenario}`;
      let levels = index.get(key);
      if (!levels) index.set(key, (levels = new Map()));
      levels.set(levelLabel(w.warming_level), w);
    }
    indexes.set(catalog, index);
  }
  return index;
}

/**
 * A model's window at a level in a scenario; or why it has none: the table has the model and
 * scenario but no window at the level (it did not reach it by 2100), or has neither.
 */
export function warmingStatus(catalog: Catalog, dataset: string, model: string, scenario: string, level: WarmingLevel): WarmingStatus {
  const levels = indexOf(catalog).get(`${dataset}|${model}|${scenario}`);
  if (!levels) return { missing: 'not_in_table' };
  const window = levels.get(level);
  return window ? { window } : { missing: 'not_reached' };
}

/** The years of the build a window in a scenario can draw on: the scenario's and, before them, the historical run's. */
export function buildYears(catalog: Catalog, dataset: Dataset, scenario: string): { scenario: [number, number]; historical?: [number, number] } {
  const own = scenarioYears(catalog, dataset, catalog.scenarioByName.get(scenario)!);
  const hist = catalog.scenarioByName.get('historical');
  return { scenario: own, historical: hist && dataset.scenarios.some((s) => s.name === 'historical') ? scenarioYears(catalog, dataset, hist) : undefined };
}

/** Whether every year of the window is in the build: the scenario's years and the historical years before them. */
export function windowInData(w: WarmingWindow, years: ReturnType<typeof buildYears>): boolean {
  for (let y = w.start_year; y <= w.end_year; y++) {
    const inScenario = y >= years.scenario[0] && y <= years.scenario[1];
    const inHistorical = years.historical !== undefined && y < years.scenario[0] && y >= years.historical[0] && y <= years.historical[1];
    if (!inScenario && !inHistorical) return false;
  }
  return true;
}

/** The dataset's scenarios a warming level can be asked in: its future ones. */
export const futureScenarios = (dataset: Dataset) => dataset.scenarios.map((s) => s.name).filter((s) => s !== 'historical');

/** The dataset's models that have a run of the scenario. */
const modelsWith = (dataset: Dataset, scenario: string) => dataset.models.filter((m) => dataset.runs.get(m)?.scenarios.includes(scenario) ?? true);

/** GET /api/warming-level/: the levels, their source and, per dataset and scenario, how many models reach each. */
export function warmingLevelListing(catalog: Catalog) {
  return {
    levels: [...WARMING_LEVELS],
    window_years: WINDOW_YEARS,
    reference_period: { start_year: 1850, end_year: 1900 },
    source: WARMING_SOURCE,
    datasets: catalog.datasets.map((d) => {
      const own = catalog.warmingWindows.filter((w) => w.dataset === d.name);
      const otherReference = [...new Map(own.filter((w) => w.reference_start !== 1850).map((w) => [w.model, w])).values()];
      return {
        name: d.name,
        other_reference_period: otherReference.map((w) => ({ model: w.model, start_year: w.reference_start, end_year: w.reference_end })),
        scenarios: futureScenarios(d).map((scenario) => {
          const models = modelsWith(d, scenario);
          const status = (m: string, level: WarmingLevel) => warmingStatus(catalog, d.name, m, scenario, level);
          const years = buildYears(catalog, d, scenario);
          const inData = (m: string, level: WarmingLevel) => {
            const s = status(m, level);
            return 'window' in s && windowInData(s.window, years);
          };
          return {
            name: scenario,
            models: models.length,
            reaching: Object.fromEntries(WARMING_LEVELS.map((level) => [level, models.filter((m) => 'window' in status(m, level)).length])),
            reaching_in_data: Object.fromEntries(WARMING_LEVELS.map((level) => [level, models.filter((m) => inData(m, level)).length])),
            not_in_table: models.filter((m) => !indexOf(catalog).has(`${d.name}|${m}|${scenario}`)),
          };
        }),
      };
    }),
  };
}
