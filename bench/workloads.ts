import type { Catalog } from '../src/reference/catalog.js';

export interface Workload {
  name: string;
  /**
   * Request paths, each distinct, shuffled: the warm-up takes the first WARMUP_SHARE of them and the
   * measured run the rest, so that no response cache can serve a measured request.
   */
  paths: string[];
  connections: number;
}

/** The share of a workload's paths the warm-up uses (the measured run never repeats them). */
export const WARMUP_SHARE = 0.2;

/** Deterministic pseudo-random numbers, so that runs are comparable. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    return s / 2 ** 32;
  };
}

/** The distinct values of `make`, in a deterministic shuffled order (draws until `count` or gives up). */
function distinct(count: number, make: () => string): string[] {
  const seen = new Set<string>();
  for (let tries = 0; seen.size < count && tries < count * 20; tries++) seen.add(make());
  return [...seen];
}

/** Deterministic Fisher-Yates shuffle. */
function shuffled<T>(items: T[], seed: number): T[] {
  const r = rng(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

export function referenceWorkloads(catalog: Catalog): Workload[] {
  const r = rng(42);
  // Pages of 20-29 cities, each a distinct path, every page within the list.
  const listPaths = distinct(20_000, () => {
    const size = 20 + Math.floor(r() * 10);
    return `/api/city/?page=${1 + Math.floor(r() * Math.ceil(catalog.cities.length / size))}&page_size=${size}`;
  });
  const nearestPaths = distinct(20_000, () => {
    const lat = (25 + r() * 24).toFixed(4);
    const lon = (-124 + r() * 57).toFixed(4);
    return `/api/city/nearest/?lat=${lat}&lon=${lon}&limit=5`;
  });
  const orderings = ['-population', 'population', 'name', '-name'];
  const filtered = distinct(20_000, () => {
    const c = catalog.cities[Math.floor(r() * catalog.cities.length)]!;
    return `/api/city/?search=${encodeURIComponent(c.name.slice(0, 3))}&ordering=${orderings[Math.floor(r() * 4)]}&page_size=${20 + Math.floor(r() * 10)}`;
  });
  return [
    { name: 'city list page', paths: listPaths, connections: 16 },
    { name: 'city nearest (limit 5)', paths: nearestPaths, connections: 16 },
    { name: 'city search + ordering', paths: filtered, connections: 16 },
  ];
}

/** One city per NEX-GDDP cell with data, so requests spread over every cell (no response cache helps). */
export function citiesPerCell(catalog: Catalog): number[] {
  const seen = new Map<number, number>();
  for (const [cityId, cells] of catalog.cityCells) {
    const cell = cells.get('NEX-GDDP');
    if (cell !== undefined && !seen.has(cell)) seen.set(cell, cityId);
  }
  return [...seen.values()];
}

/**
 * Climate workloads: one cell, all 21 NEX-GDDP models, 86 to 95 of the RCP85 years per request:
 * every path is distinct (46 cells x 100 year spans), so no response cache can make the numbers.
 */
export function climateWorkloads(catalog: Catalog): Workload[] {
  const cities = citiesPerCell(catalog);
  const spans: string[] = [];
  for (let a = 0; a < 10; a++) for (let b = 0; b < 10; b++) spans.push(`${2006 + a}:${2100 - b}`);
  const paths = (suffix: string) =>
    shuffled(
      cities.flatMap((id) => spans.map((years) => `/api/climate-data/${id}/RCP85/${suffix}${suffix.includes('?') ? '&' : '?'}years=${years}`)),
      7,
    );
  const defs: [string, string[]][] = [
    ['frost_days yearly', paths('indicator/frost_days/')],
    // The change against the 1971-2000 baseline: at most 1.5x the plain request (issue 14).
    ['frost_days yearly relative_to=1971', paths('indicator/frost_days/?relative_to=1971')],
    ['heat_wave_incidents monthly', paths('indicator/heat_wave_incidents/?time_aggregation=monthly')],
    ['dry_spells monthly', paths('indicator/dry_spells/?time_aggregation=monthly')],
    ['raw century, 3 variables, agg=avg', paths('')],
    ['area: frost_days yearly over the most populous city', areaPaths(catalog)],
    ['frost_days yearly on NEX-GDDP-CMIP6 ssp585, all 32 models x 86 years', cmip6Paths(catalog)],
    // At global warming levels: at most 1.5x the plain yearly request (issue 28).
    ['frost_days at warming_level=1.5,2.0,3.0 (RCP85)', warmingPaths(cities, 'RCP85', '')],
    ['frost_days at warming_level=1.5,2.0,3.0 on NEX-GDDP-CMIP6 ssp585', warmingPaths(cmip6Cities(catalog), 'ssp585', '&dataset=NEX-GDDP-CMIP6')],
  ];
  return defs.flatMap(([name, p]) => [
    { name: `${name}`, paths: p, connections: 1 },
    { name: `${name}`, paths: p, connections: 16 },
  ]);
}

/**
 * An area request over the most populous city's boundary (every cell of it has data in the default
 * build): frost_days yearly, all 21 models, 86 to 95 of the RCP85 years, each path distinct.
 */
function areaPaths(catalog: Catalog): string[] {
  const city = [...catalog.cities].sort((a, b) => b.population - a.population).find((c) => catalog.boundaries.has(c.id))!;
  const spans: string[] = [];
  for (let a = 0; a < 30; a++) for (let b = 0; b < 30; b++) spans.push(`${2006 + a}:${2100 - b}`);
  return shuffled(spans.map((years) => `/api/climate-data/area/RCP85/indicator/frost_days/?city=${city.id}&years=${years}`), 11);
}

/**
 * frost_days yearly on NEX-GDDP-CMIP6 ssp585 with every model (32) and every year of the SSP
 * (2015-2100, 86): the CMIP6 counterpart of the first workload, at 1.4 times its model-years. Paths
 * stay distinct with the years written as two or three ranges (2015:2040,2041:2100: the same 86
 * years), for one city per NEX-GDDP-CMIP6 cell with data (the default build's 10 CMIP6 cities and
 * New York City's boundary).
 */
/** One city per NEX-GDDP-CMIP6 cell with data. */
function cmip6Cities(catalog: Catalog): number[] {
  const seen = new Map<number, number>();
  for (const [cityId, cells] of catalog.cityCells) {
    const cell = cells.get('NEX-GDDP-CMIP6');
    if (cell !== undefined && !seen.has(cell)) seen.set(cell, cityId);
  }
  return [...seen.values()];
}

/**
 * frost_days at the warming levels 1.5, 2.0 and 3.0 °C, every model of the dataset: the same
 * request for each city, its paths made distinct by how the levels are written (1.5, 1.50 or
 * 1.500; 2, 2.0 or 2.00; in any order: 162 ways), so that no response cache can serve one.
 */
function warmingPaths(cities: number[], scenario: string, extra: string): string[] {
  const forms = [['1.5', '1.50', '1.500'], ['2', '2.0', '2.00'], ['3', '3.0', '3.00']];
  const orders = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];
  const levels: string[] = [];
  for (const a of forms[0]!) for (const b of forms[1]!) for (const c of forms[2]!) for (const o of orders) levels.push(o.map((i) => [a, b, c][i]).join(','));
  return shuffled(cities.flatMap((id) => levels.map((l) => `/api/climate-data/${id}/${scenario}/indicator/frost_days/?warming_level=${l}${extra}`)), 17);
}

function cmip6Paths(catalog: Catalog): string[] {
  // 2015-2100 whole, split once (85 ways) or twice (3,570 ways): the same 86 years every time.
  const years = ['2015:2100'];
  for (let a = 2015; a < 2100; a++) {
    years.push(`2015:${a},${a + 1}:2100`);
    for (let b = a + 1; b < 2100; b++) years.push(`2015:${a},${a + 1}:${b},${b + 1}:2100`);
  }
  return shuffled(
    cmip6Cities(catalog).flatMap((id) => years.map((y) => `/api/climate-data/${id}/ssp585/indicator/frost_days/?dataset=NEX-GDDP-CMIP6&years=${y}`)),
    13,
  );
}

/** The cells' files, for the scan floor: a bare DuckDB scan of the values one request reads. */
export function climateFiles(catalog: Catalog): string[] {
  return [...new Set(citiesPerCell(catalog).map((id) => catalog.cityCells.get(id)!.get('NEX-GDDP')!))].map(
    (cell) => `${catalog.dataDir}/climate/NEX-GDDP/RCP85/${cell}.parquet`,
  );
}
