import type { Catalog } from '../src/reference/catalog.js';

export interface Workload {
  name: string;
  /** Request paths, cycled through by the load generator. */
  paths: string[];
  connections: number;
}

/** Deterministic pseudo-random numbers, so that runs are comparable. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    return s / 2 ** 32;
  };
}

export function referenceWorkloads(catalog: Catalog): Workload[] {
  const r = rng(42);
  const pages = Math.ceil(catalog.cities.length / 20);
  const listPaths = Array.from({ length: 500 }, () => `/api/city/?page=${1 + Math.floor(r() * pages)}`);
  const nearestPaths = Array.from({ length: 500 }, () => {
    const lat = (25 + r() * 24).toFixed(4);
    const lon = (-124 + r() * 57).toFixed(4);
    return `/api/city/nearest/?lat=${lat}&lon=${lon}&limit=5`;
  });
  const filtered = Array.from({ length: 500 }, () => {
    const c = catalog.cities[Math.floor(r() * catalog.cities.length)]!;
    return `/api/city/?search=${encodeURIComponent(c.name.slice(0, 3))}&ordering=-population`;
  });
  return [
    { name: 'city list page', paths: listPaths, connections: 32 },
    { name: 'city nearest (limit 5)', paths: nearestPaths, connections: 32 },
    { name: 'city search + ordering', paths: filtered, connections: 32 },
  ];
}

/** One city per NEX-GDDP cell with data, so requests spread over every cell (no response cache helps). */
function citiesPerCell(catalog: Catalog): number[] {
  const seen = new Map<number, number>();
  for (const [cityId, cells] of catalog.cityCells) {
    const cell = cells.get('NEX-GDDP');
    if (cell !== undefined && !seen.has(cell)) seen.set(cell, cityId);
  }
  return [...seen.values()];
}

/** Climate workloads: one cell, all 21 NEX-GDDP models, all 95 RCP85 years per request. */
export function climateWorkloads(catalog: Catalog): Workload[] {
  const cities = citiesPerCell(catalog);
  const paths = (suffix: string) => cities.map((id) => `/api/climate-data/${id}/RCP85/${suffix}`);
  const defs: [string, string[]][] = [
    ['frost_days yearly', paths('indicator/frost_days/')],
    // The change against the 1971-2000 baseline: at most 1.5x the plain request (issue 14).
    ['frost_days yearly relative_to=1971', paths('indicator/frost_days/?relative_to=1971')],
    ['heat_wave_incidents monthly', paths('indicator/heat_wave_incidents/?time_aggregation=monthly')],
    ['dry_spells monthly', paths('indicator/dry_spells/?time_aggregation=monthly')],
    ['raw century, 3 variables, agg=avg', paths('')],
  ];
  return defs.flatMap(([name, p]) => [
    { name: `${name}`, paths: p, connections: 1 },
    { name: `${name}`, paths: p, connections: 16 },
  ]);
}

/** The cells' files, for the scan floor: a bare DuckDB scan of the values one request reads. */
export function climateFiles(catalog: Catalog): string[] {
  return [...new Set(citiesPerCell(catalog).map((id) => catalog.cityCells.get(id)!.get('NEX-GDDP')!))].map(
    (cell) => `${catalog.dataDir}/climate/NEX-GDDP/RCP85/${cell}.parquet`,
  );
}
