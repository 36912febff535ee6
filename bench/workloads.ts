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
