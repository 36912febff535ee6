/**
 * The view (place, indicator, its parameters, dataset, time aggregation, units, baseline) and its
 * URL query: everything but the token is in the address, so a view can be bookmarked, shared and
 * restored by a reload.
 */
export interface ViewState {
  city: number | undefined;
  /**
   * 'time': the periods on a time axis; 'warming_level': the model spread at each global warming
   * level; 'map': every map cell of the build for one scenario and period, coloured by a statistic.
   */
  view: 'time' | 'warming_level' | 'map';
  indicator: string;
  dataset: string;
  time_aggregation: string;
  windows: string;
  units: string;
  relative_to: string;
  /** The indicator's own parameters (threshold, percentile, basetemp, ...) by name. */
  params: Record<string, string>;
  /** The map view's scenario ('' for the dataset's last), span of years, warming level ('' for the years) and statistic. */
  map_scenario: string;
  /** The map view's ecoregion (its id; '' for every cell of the contiguous US): the map asks for its cells and zooms to it. */
  map_area: string;
  map_years: string;
  map_level: string;
  map_stat: string;
}

export interface ScenarioChoice {
  name: string;
  label: string;
}

/** Every scenario the service has, in the order the chart, table and legend show them. */
export const SCENARIOS: ScenarioChoice[] = [
  { name: 'historical', label: 'Historical' },
  { name: 'RCP45', label: 'RCP 4.5' },
  { name: 'RCP85', label: 'RCP 8.5' },
  { name: 'ssp126', label: 'SSP1-2.6' },
  { name: 'ssp245', label: 'SSP2-4.5' },
  { name: 'ssp370', label: 'SSP3-7.0' },
  { name: 'ssp585', label: 'SSP5-8.5' },
];

/** The scenarios named, in SCENARIOS' order (an unknown name last, under its own name). */
export const shownScenarios = (shown: string[]): ScenarioChoice[] => [
  ...SCENARIOS.filter((s) => shown.includes(s.name)),
  ...shown.filter((n) => !SCENARIOS.some((s) => s.name === n)).map((name) => ({ name, label: name })),
];

/**
 * The scenarios of a dataset, as /api/dataset/ lists them once loaded. Before that (the first
 * chart's requests go out with the metadata), the generation tells: the CMIP6 datasets have SSPs.
 */
export function datasetScenarios(dataset: string, listed?: string[]): ScenarioChoice[] {
  const names = listed ?? (/CMIP6|LOCA2/.test(dataset) ? ['historical', 'ssp126', 'ssp245', 'ssp370', 'ssp585'] : ['historical', 'RCP45', 'RCP85']);
  return names.map((name) => SCENARIOS.find((s) => s.name === name) ?? { name, label: name });
}

/** The statistics across models the chart and table show: a 10th-90th band around the median. */
export const STATISTICS = ['10th', 'median', '90th'] as const;

export const DEFAULT_WINDOWS = '1971:2000,2021:2050,2041:2070,2071:2100';
export const DEFAULT_MAP_YEARS = '2041:2070';
const OWN_KEYS = new Set(['city', 'view', 'indicator', 'dataset', 'time_aggregation', 'windows', 'units', 'relative_to', 'map_scenario', 'map_years', 'map_level', 'map_stat', 'map_area']);
const VIEWS: ViewState['view'][] = ['time', 'warming_level', 'map'];

export function stateFromQuery(query: string): ViewState {
  const q = new URLSearchParams(query);
  const city = Number(q.get('city'));
  const params: Record<string, string> = {};
  for (const [k, v] of q) if (!OWN_KEYS.has(k)) params[k] = v;
  return {
    city: Number.isInteger(city) && city > 0 ? city : undefined,
    view: VIEWS.find((v) => v === q.get('view')) ?? 'time',
    indicator: q.get('indicator') ?? 'frost_days',
    dataset: q.get('dataset') ?? 'NEX-GDDP',
    time_aggregation: q.get('time_aggregation') ?? 'yearly',
    windows: q.get('windows') ?? DEFAULT_WINDOWS,
    units: q.get('units') ?? '',
    relative_to: q.get('relative_to') ?? '',
    params,
    map_scenario: q.get('map_scenario') ?? '',
    map_area: /^\d+$/.test(q.get('map_area') ?? '') ? q.get('map_area')! : '',
    map_years: q.get('map_years') ?? DEFAULT_MAP_YEARS,
    map_level: q.get('map_level') ?? '',
    map_stat: (STATISTICS as readonly string[]).includes(q.get('map_stat') ?? '') ? q.get('map_stat')! : 'median',
  };
}

export function queryFromState(s: ViewState): string {
  const q = new URLSearchParams();
  if (s.city !== undefined) q.set('city', String(s.city));
  if (s.view !== 'time') q.set('view', s.view);
  q.set('indicator', s.indicator);
  q.set('dataset', s.dataset);
  q.set('time_aggregation', s.time_aggregation);
  if (s.time_aggregation === 'window') q.set('windows', s.windows);
  if (s.units) q.set('units', s.units);
  if (s.relative_to) q.set('relative_to', s.relative_to);
  if (s.view === 'map') {
    if (s.map_scenario) q.set('map_scenario', s.map_scenario);
    if (s.map_level) q.set('map_level', s.map_level);
    else q.set('map_years', s.map_years);
    q.set('map_stat', s.map_stat);
    if (s.map_area) q.set('map_area', s.map_area);
  }
  for (const [k, v] of Object.entries(s.params)) if (v !== '') q.set(k, v);
  return q.toString();
}

/**
 * The map view's request: every cell of the build (no area), the view's indicator, parameters,
 * units and baseline, over its years or warming level; the three statistics, so that changing the
 * one shown asks nothing again.
 */
export function mapPath(s: ViewState, scenario: string): string {
  const q = new URLSearchParams({ agg: STATISTICS.join(','), dataset: s.dataset });
  if (s.map_level) q.set('warming_level', s.map_level);
  else q.set('years', s.map_years);
  if (s.map_area) q.set('region', s.map_area);
  if (s.units) q.set('units', s.units);
  if (s.relative_to) q.set('relative_to', s.relative_to);
  for (const [k, v] of Object.entries(s.params)) if (v !== '') q.set(k, v);
  return `/api/climate-data/map/${scenario}/indicator/${encodeURIComponent(s.indicator)}/?${q.toString()}`;
}

/**
 * The indicator request of one scenario for this view (format=csv for the download); `windows`:
 * those of the view that fall within the scenario's years (windows.ts). The warming-level view asks
 * for the scenario's levels (`levels`, comma-separated) instead of periods.
 */
export function indicatorPath(s: ViewState, scenario: string, format?: 'csv', windows = s.windows, levels?: string): string {
  const q = new URLSearchParams({ agg: STATISTICS.join(','), dataset: s.dataset });
  if (s.view === 'warming_level') q.set('warming_level', levels ?? '');
  else q.set('time_aggregation', s.time_aggregation);
  if (s.view !== 'warming_level' && s.time_aggregation === 'window') q.set('windows', windows);
  if (s.units) q.set('units', s.units);
  if (s.relative_to) q.set('relative_to', s.relative_to);
  for (const [k, v] of Object.entries(s.params)) if (v !== '') q.set(k, v);
  if (format) q.set('format', format);
  return `/api/climate-data/${s.city}/${scenario}/indicator/${encodeURIComponent(s.indicator)}/?${q.toString()}`;
}
