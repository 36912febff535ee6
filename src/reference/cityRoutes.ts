import { Router, type Request } from 'express';
import { z } from 'zod';
import { badRequest, notFound, NotFoundError } from '../errors.js';
import { pageWindow } from '../http/pagination.js';
import { integer, number, queryParser, text } from '../http/queryParams.js';
import type { QueryPool } from '../db/queryPool.js';
import { boundaryGeometry } from './boundaryGeometry.js';
import type { Catalog, City } from './catalog.js';
import { CityIndex, ORDERING_FIELDS, type OrderKey, type OrderingField } from './cityQuery.js';
import { cityCellFeature, cityFeatureJson, featureCollectionJson } from './features.js';
import { normalizeLon } from './grids.js';

const DEFAULT_ORDERING: OrderKey[] = [
  { field: 'name', descending: false },
  { field: 'admin', descending: false },
];
const MAX_PAGE_SIZE = 1000;

const pageParams = {
  page: z
    .union([z.literal('last'), integer({ min: 1 })], { error: "must be an integer >= 1 or 'last'" })
    .default(1)
    .meta({ description: "1-based page number, or 'last'." }),
  page_size: integer({ min: 1, max: MAX_PAGE_SIZE }).default(20).meta({ description: 'Cities per page.' }),
};

export const cityListQuery = {
  ...pageParams,
  ordering: text()
    .optional()
    .meta({ description: `Comma-separated fields of ${ORDERING_FIELDS.join(', ')}, each optionally prefixed with - for descending; default name,admin.` }),
  name: text().optional().meta({ description: 'Name contains this (case-insensitive).' }),
  admin: text().optional().meta({ description: 'Admin (state) contains this (case-insensitive).' }),
  search: text().optional().meta({ description: 'Free-text match on name and admin.' }),
  population_gte: integer({ min: 0 }).optional().meta({ description: 'Population at least this.' }),
  population_lte: integer({ min: 0 }).optional().meta({ description: 'Population at most this.' }),
  region: integer({ min: 1 }).optional().meta({ description: 'Ecoregion id.' }),
  in_bbox: text().optional().meta({ description: 'minlon,minlat,maxlon,maxlat', examples: ['-75,40,-73,41'] }),
};
const listParams = queryParser(cityListQuery);

export const nearestQuery = {
  ...pageParams,
  lat: number({ min: -90, max: 90 }).meta({ description: 'Latitude of the point.' }),
  // Longitudes past 180 (0..360 form) are accepted and folded.
  lon: number({ min: -180, max: 360 }).meta({ description: 'Longitude of the point; 180..360 is folded to -180..0.' }),
  limit: integer({ min: 1 }).default(1).meta({ description: 'Maximum number of cities.' }),
};
const nearestParams = queryParser(nearestQuery);

function parseOrdering(value: string | undefined): OrderKey[] {
  if (value === undefined) return DEFAULT_ORDERING;
  const keys = value.split(',').map((raw) => {
    const term = raw.trim();
    const descending = term.startsWith('-');
    const field = descending ? term.slice(1) : term;
    if (!(ORDERING_FIELDS as readonly string[]).includes(field)) {
      throw badRequest(
        `ordering accepts a comma-separated list of ${ORDERING_FIELDS.join(', ')}, each optionally prefixed with '-' for descending order; got '${term}'.`,
      );
    }
    return { field: field as OrderingField, descending };
  });
  return keys;
}

function parseBbox(value: string | undefined): [number, number, number, number] | undefined {
  if (value === undefined) return undefined;
  const parts = value.split(',').map((p) => p.trim());
  const nums = parts.map(Number);
  const [minLon, minLat, maxLon, maxLat] = nums as [number, number, number, number];
  const ok =
    parts.length === 4 &&
    parts.every((p) => p !== '') &&
    nums.every(Number.isFinite) &&
    minLat >= -90 && maxLat <= 90 && minLat <= maxLat && minLon <= maxLon;
  if (!ok) {
    throw badRequest(
      `Invalid bbox string supplied for parameter in_bbox: expected minlon,minlat,maxlon,maxlat with min <= max and latitudes in [-90, 90]; got '${value}'.`,
    );
  }
  return [minLon, minLat, maxLon, maxLat];
}

function page(req: Request, cities: City[], p: number | 'last', size: number): string {
  const w = pageWindow(req, cities.length, p, size);
  const features: string[] = [];
  for (let i = w.start; i < w.end; i++) features.push(cityFeatureJson(cities[i]!));
  return featureCollectionJson(cities.length, w.next, w.previous, features);
}

function cityOr404(catalog: Catalog, pk: string | undefined): City {
  const city = /^\d+$/.test(pk ?? '') ? catalog.cityById.get(Number(pk)) : undefined;
  if (!city) throw notFound();
  return city;
}

export function cityRoutes(catalog: Catalog, queries: QueryPool): Router {
  const index = new CityIndex(catalog.cities);
  const router = Router();

  router.get('/api/city/', (req, res) => {
    const q = listParams(req.query);
    const cities = index.filter(parseOrdering(q.ordering), {
      name: q.name,
      admin: q.admin,
      search: q.search,
      populationGte: q.population_gte,
      populationLte: q.population_lte,
      region: q.region,
      bbox: parseBbox(q.in_bbox),
    });
    res.type('application/json').send(page(req, cities, q.page, q.page_size));
  });

  router.get('/api/city/nearest/', (req, res) => {
    const q = nearestParams(req.query);
    const cities = index.nearest(q.lat, normalizeLon(q.lon), q.limit);
    res.type('application/json').send(page(req, cities, q.page, q.page_size));
  });

  router.get('/api/city/:pk/', (req, res) => {
    res.type('application/json').send(cityFeatureJson(cityOr404(catalog, req.params.pk)));
  });

  router.get('/api/city/:pk/boundary/', async (req, res) => {
    const city = cityOr404(catalog, req.params.pk);
    if (!catalog.boundaries.has(city.id)) throw new NotFoundError(`City ${city.id} has no boundary.`);
    const geometry = await boundaryGeometry(queries, catalog, city.id);
    res.type('application/json').send(`{"type":"Feature","geometry":${geometry},"properties":{}}`);
  });

  router.get('/api/city/:pk/map-cell/', (req, res) => {
    const city = cityOr404(catalog, req.params.pk);
    const cells = catalog.cityCells.get(city.id);
    if (!cells || cells.size === 0) throw notFound();
    res.json([...cells].map(([dataset, cellId]) => cityCellFeature(catalog.mapCells.get(dataset, cellId)!)));
  });

  router.get('/api/city/:pk/map-cell/:dataset/', (req, res) => {
    const city = cityOr404(catalog, req.params.pk);
    const cellId = catalog.cityCells.get(city.id)?.get(req.params.dataset);
    if (cellId === undefined) throw notFound();
    res.json(cityCellFeature(catalog.mapCells.get(req.params.dataset, cellId)!));
  });

  return router;
}
