import { cellAt, cellCentre, GRIDS, NON_CONUS } from '../reference/grids.js';
import { bboxOf, boundaryDistanceKm, containsPoint, inBbox, type Bbox, type Coastline, type MultiPolygon } from './geometry.js';
import type { SourceBoundary, SourceCity, SourceRegion } from './sources.js';

/** Rows of the catalog tables, computed from the source files (see data/sources/SOURCES.md). */

export const OCEAN_KM = 5;
export const COASTAL_KM = 50;

export interface Proximity {
  ocean: boolean;
  coastal: boolean;
  /** Distance to the coastline in km (Infinity when farther than the search radius). */
  coastKm: number;
}

/** Distance is 0 for a point in the sea. */
export function proximityOf(coast: Coastline, x: number, y: number): Proximity {
  const km = coast.onLand(x, y) ? coast.distanceKm(x, y, COASTAL_KM) : 0;
  return { ocean: km <= OCEAN_KM, coastal: km <= COASTAL_KM, coastKm: km };
}

/** Cities are under 100 km across: a boundary can only reach the coast if its point is that near. */
const BOUNDARY_REACH_KM = 100;

/** The nearest of the point and the boundary's vertices decides. */
export function cityProximity(coast: Coastline, x: number, y: number, boundary: number[][]): Proximity {
  const point = proximityOf(coast, x, y);
  if (point.ocean || boundary.length === 0 || !Number.isFinite(coast.distanceKm(x, y, BOUNDARY_REACH_KM))) return point;
  let km = point.coastKm;
  for (const [vx, vy] of boundary) {
    km = Math.min(km, coast.distanceKm(vx!, vy!, COASTAL_KM));
    if (km <= OCEAN_KM) break;
  }
  return { ocean: km <= OCEAN_KM, coastal: km <= COASTAL_KM, coastKm: km };
}

export interface RegionRow {
  id: number;
  level1: number;
  level1_description: string;
  level2: number;
  level2_description: string;
  geometry: string;
  min_lon: number;
  min_lat: number;
  max_lon: number;
  max_lat: number;
  polygons: MultiPolygon;
  bbox: Bbox;
}

export function regionRows(regions: SourceRegion[]): RegionRow[] {
  return [...regions]
    .sort((a, b) => a.level1 - b.level1 || a.level2 - b.level2)
    .map((r, i) => {
      const bbox = bboxOf(r.geometry.coordinates);
      return {
        id: i + 1,
        level1: r.level1,
        level1_description: r.level1Description,
        level2: r.level2,
        level2_description: r.level2Description,
        geometry: JSON.stringify(r.geometry),
        min_lon: bbox[0],
        min_lat: bbox[1],
        max_lon: bbox[2],
        max_lat: bbox[3],
        polygons: r.geometry.coordinates,
        bbox,
      };
    });
}

/**
 * The ecoregion polygons are simplified (1e-4 degrees, from an already simplified Level III layer), so
 * some shore towns (San Diego, Staten Island, Galveston, Key West) fall just outside every polygon. A
 * point outside all of them gets the region whose boundary is nearest, if within this distance.
 * Hawaii and Puerto Rico, which the layer does not cover, stay without a region.
 */
export const REGION_SNAP_KM = 20;
const SNAP_DEGREES = REGION_SNAP_KM / 111.195 / Math.cos((70 * Math.PI) / 180);

/** The Level II region containing the point (bbox prefilter, then even-odd over all rings), or the nearest within REGION_SNAP_KM. */
export function regionOf(regions: RegionRow[], lon: number, lat: number): number | null {
  const inside = regions.find((r) => inBbox(r.bbox, lon, lat) && containsPoint(r.polygons, lon, lat));
  if (inside) return inside.id;
  let best: { id: number; km: number } | null = null;
  for (const r of regions) {
    const [x0, y0, x1, y1] = r.bbox;
    if (lon < x0 - SNAP_DEGREES || lon > x1 + SNAP_DEGREES || lat < y0 - SNAP_DEGREES || lat > y1 + SNAP_DEGREES) continue;
    const km = boundaryDistanceKm(r.polygons, lon, lat);
    if (km <= REGION_SNAP_KM && (!best || km < best.km)) best = { id: r.id, km };
  }
  return best?.id ?? null;
}

export interface CityRow extends SourceCity {
  region_id: number | null;
  ocean: boolean;
  coastal: boolean;
}

/** A city is measured from its boundary's vertices and its point, or its point alone. */
export function cityRows(cities: SourceCity[], boundaries: Map<number, SourceBoundary>, regions: RegionRow[], coast: Coastline): CityRow[] {
  return cities.map((c) => {
    const b = boundaries.get(c.id);
    const p = cityProximity(coast, c.lon, c.lat, b ? b.geometry.coordinates.flat(2) : []);
    return { ...c, region_id: regionOf(regions, c.lon, c.lat), ocean: p.ocean, coastal: p.coastal };
  });
}

export interface CityCellRow {
  city_id: number;
  dataset: string;
  cell_id: number;
}

/** The cell of each city per dataset grid; LOCA and LOCA2 cells only for the conterminous US. */
export function cityCellRows(cities: SourceCity[]): CityCellRow[] {
  const rows: CityCellRow[] = [];
  for (const c of cities) {
    for (const grid of Object.values(GRIDS)) {
      if (grid.dataset.startsWith('LOCA') && NON_CONUS.has(c.admin)) continue;
      const cell = cellAt(grid, c.lat, c.lon);
      if (cell !== undefined) rows.push({ city_id: c.id, dataset: grid.dataset, cell_id: cell });
    }
  }
  return rows;
}

export interface MapCellRow {
  dataset: string;
  cell_id: number;
  lat: number;
  lon: number;
  ocean: boolean;
  coastal: boolean;
  has_data: boolean;
  /** Distance of the centre to the coast (km, up to 2,000), for the synthetic climate. */
  coast_km: number;
}

/** The map cells of the cities, and `others` (cells of areas given data without a city of their own). */
export function mapCellRows(cityCells: CityCellRow[], coast: Coastline, withData: Set<string>, others: { dataset: string; cell_id: number }[] = []): MapCellRow[] {
  const seen = new Map<string, MapCellRow>();
  for (const cc of [...cityCells, ...others]) {
    const key = `${cc.dataset}:${cc.cell_id}`;
    if (seen.has(key)) continue;
    const { lat, lon } = cellCentre(GRIDS[cc.dataset]!, cc.cell_id);
    const p = proximityOf(coast, lon, lat);
    seen.set(key, {
      dataset: cc.dataset,
      cell_id: cc.cell_id,
      lat,
      lon,
      ocean: p.ocean,
      coastal: p.coastal,
      has_data: withData.has(key),
      coast_km: p.coastKm,
    });
  }
  return [...seen.values()].sort((a, b) => (a.dataset < b.dataset ? -1 : a.dataset > b.dataset ? 1 : a.cell_id - b.cell_id));
}
