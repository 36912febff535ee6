import { z } from 'zod';
import { single } from '../climate/params.js';
import { badRequest, notFound, NotFoundError } from '../errors.js';
import type { QueryPool } from '../db/queryPool.js';
import { boundaryGeometry } from '../reference/boundaryGeometry.js';
import type { Catalog, Dataset } from '../reference/catalog.js';
import { cellCentre, GRIDS } from '../reference/grids.js';
import type { AreaCover } from './cells.js';
import type { CoverThread } from './coverThread.js';
import { bboxPolygon, catalogPolygons, parseAreaGeoJson, type AreaGeometry } from './geometry.js';

export const AREA_AGGS = ['mean', 'min', 'max'] as const;
export type AreaAgg = (typeof AREA_AGGS)[number];

/** The query parameters that name an area (GET) and say how its cells are combined (GET and POST). */
export const areaQuery = {
  region: z.string().optional().meta({ description: 'The area is this ecoregion (an id of /api/region/). Give exactly one of region, city, bbox (GET only).' }),
  city: z.string().optional().meta({ description: "The area is this city's boundary (a city id, e.g. 5128581). Give exactly one of region, city, bbox (GET only)." }),
  bbox: z.string().optional().meta({ description: 'The area is this rectangle: minlon,minlat,maxlon,maxlat in degrees. Give exactly one of region, city, bbox (GET only).' }),
  area_agg: z
    .enum(AREA_AGGS, { error: (iss) => `area_agg must be one of ${AREA_AGGS.join(', ')}; got '${String(iss.input)}'.` })
    .default('mean')
    .meta({ description: "How each model's values of the area's cells are combined: `mean` weighted by each cell's area within the area on the sphere, `min` or `max`." }),
};

/** Where an area came from, for the answer's Feature properties. */
export type Origin = { region: number } | { city: number } | { bbox: [number, number, number, number] } | Record<string, never>;

/**
 * The covers of the catalog's areas (regions, city boundaries) per data build and dataset: the
 * same for every request, and an ecoregion's takes seconds to clip (up to 4-7 s for the largest on
 * 2 busy cores), so only its first request pays.
 */
const catalogCovers = new WeakMap<Catalog, Map<string, AreaCover>>();


export interface AreaCell {
  cellId: number;
  lat: number;
  lon: number;
  /** Share of the area's cells with data, by area on the sphere; they sum to 1. */
  weight: number;
}

export interface Area {
  /** The answer's `area` member: the area as asked, with its cells. */
  featureJson: string;
  /** The cells with data, in cell id order. */
  cells: AreaCell[];
}

/** The area a GET names with exactly one of region, city and bbox. */
export async function areaOfQuery(catalog: Catalog, queries: QueryPool, query: Record<string, unknown>): Promise<{ shape: AreaGeometry; origin: Origin }> {
  const given = (['region', 'city', 'bbox'] as const).filter((name) => single(query, name) !== undefined);
  if (given.length !== 1) {
    throw badRequest(
      given.length === 0
        ? 'Name the area with exactly one of region (an ecoregion id), city (a city id, its boundary) or bbox (minlon,minlat,maxlon,maxlat), or POST a GeoJSON Polygon.'
        : `Name the area with exactly one of region, city or bbox; got ${given.join(' and ')}.`,
    );
  }
  const value = single(query, given[0]!)!;
  if (given[0] === 'bbox') {
    const { bbox, ...shape } = bboxPolygon(value);
    return { shape, origin: { bbox } };
  }
  if (!/^\d+$/.test(value)) throw badRequest(`${given[0]} must be an integer id; got '${value}'.`);
  const id = Number(value);
  if (given[0] === 'region') {
    const region = catalog.regionById.get(id);
    if (!region) throw new NotFoundError(`Region ${id} does not exist.`);
    return { shape: trusted(region.geometry), origin: { region: id } };
  }
  const city = catalog.cityById.get(id);
  if (!city) throw new NotFoundError(`City ${id} does not exist.`);
  const boundary = catalog.boundaries.get(id);
  if (!boundary) throw new NotFoundError(`City ${id} (${city.name}, ${city.admin}) has no boundary, so it cannot be an area; use its point form instead.`);
  return { shape: trusted(await boundaryGeometry(queries, catalog, id)), origin: { city: id } };
}

function trusted(geometryJson: string): AreaGeometry {
  return { geometry: JSON.parse(geometryJson) as AreaGeometry['geometry'], polygons: catalogPolygons(geometryJson) };
}

/** The area a POST sends as its body; naming one in the query as well is ambiguous. */
export function areaOfBody(body: unknown, query: Record<string, unknown>, maxVertices: number): { shape: AreaGeometry; origin: Origin } {
  const named = (['region', 'city', 'bbox'] as const).filter((name) => query[name] !== undefined);
  if (named.length > 0) throw badRequest(`A POST sends its area as the GeoJSON body; leave out ${named.join(' and ')}.`);
  return { shape: parseAreaGeoJson(body, maxVertices), origin: {} };
}

/**
 * The map cells of the dataset with data that the area covers, with their areas; a region's or a
 * city's is kept per catalog (catalogCovers). The area endpoints weight them, a map shows them.
 */
export async function areaCover(catalog: Catalog, dataset: Dataset, shape: AreaGeometry, origin: Origin, clipper: CoverThread): Promise<AreaCover> {
  const key = 'region' in origin ? `${dataset.name}|region|${origin.region}` : 'city' in origin ? `${dataset.name}|city|${origin.city}` : undefined;
  let covers = catalogCovers.get(catalog);
  if (!covers) catalogCovers.set(catalog, (covers = new Map()));
  let cover = key ? covers.get(key) : undefined;
  if (!cover) {
    cover = await clipper.cover(GRIDS[dataset.name]!, shape.polygons, catalog.mapCells.ids(dataset.name));
    if (key) covers.set(key, cover);
  }
  return cover;
}

/**
 * The area's cells of the dataset with data and their weights; 404 when none has data, 400 past
 * maxCells. `readable` says whether a cell with data in the catalog can be read for the request
 * (it may throw a 503 while the cell is being built).
 */
export async function areaCells(catalog: Catalog, dataset: Dataset, shape: AreaGeometry, origin: Origin, maxCells: number, readable: (cellId: number) => boolean, clipper: CoverThread): Promise<Area> {
  const grid = GRIDS[dataset.name]!;
  let cover = await areaCover(catalog, dataset, shape, origin, clipper);
  cover = { count: cover.count, cells: cover.cells.filter((c) => readable(c.cellId)) };
  if (cover.cells.length === 0) {
    throw notFound(`No ${dataset.name} data for this area: none of the ${cover.count} map cells it covers has data in this build.`);
  }
  if (cover.cells.length > maxCells) {
    throw badRequest(`This area covers ${cover.cells.length} map cells with data; the limit is ${maxCells} (MAX_AREA_CELLS). Ask for a smaller area.`);
  }
  const total = cover.cells.reduce((s, c) => s + c.area, 0);
  const cells = cover.cells.map(({ cellId, area }) => ({ cellId, ...cellCentre(grid, cellId), weight: area / total }));
  const properties = {
    ...origin,
    cells: cells.map((c) => ({ id: c.cellId, lat: c.lat, lon: c.lon, weight: c.weight })),
    cells_in_area: cover.count,
    cells_with_data: cells.length,
  };
  return { featureJson: JSON.stringify({ type: 'Feature', geometry: shape.geometry, properties }), cells };
}
