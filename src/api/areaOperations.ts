import { z } from 'zod';
import { AREA_AGGS } from '../areas/area.js';
import { areaQueries } from '../areas/routes.js';
import type { Catalog } from '../reference/catalog.js';
import { dataContent, pathParams, type Operation } from './operation.js';
import { indicatorDataFields, polygonal, rawDataFields } from './responseShapes.js';

const areaCell = z.strictObject({ id: z.int(), lat: z.number(), lon: z.number(), weight: z.number() });

/** The `area` member of an area answer: the area as asked, with the cells read and their weights. */
const areaFeature = z
  .strictObject({
    type: z.literal('Feature'),
    geometry: polygonal,
    properties: z.strictObject({
      region: z.int().optional().meta({ description: 'The region asked for (GET ?region=).' }),
      city: z.int().optional().meta({ description: 'The city whose boundary was asked for (GET ?city=).' }),
      bbox: z.tuple([z.number(), z.number(), z.number(), z.number()]).optional().meta({ description: 'The rectangle asked for (GET ?bbox=).' }),
      cells: z.array(areaCell).meta({ description: "The area's map cells with data, in id order, each with its centre and its weight: its share, by area on the sphere, of the area's part covered by cells with data (the weights sum to 1)." }),
      cells_in_area: z.int().meta({ description: 'Map cells of the dataset the area covers, with data or not.' }),
      cells_with_data: z.int(),
    }),
  })
  .meta({ id: 'Area' });

const areaFields = { area: areaFeature, area_agg: z.enum(AREA_AGGS) };
const areaRawData = z.strictObject({ ...areaFields, ...rawDataFields }).meta({ id: 'AreaClimateData' });
const areaIndicatorData = z.strictObject({ ...areaFields, ...indicatorDataFields }).meta({ id: 'AreaIndicatorData' });

const position = z.array(z.number()).min(2).meta({ description: '[longitude, latitude] in degrees, longitude within -180..180.' });
const polygonCoordinates = z.array(z.array(position));
const areaGeometry = z.union([
  z.object({ type: z.literal('Polygon'), coordinates: polygonCoordinates }),
  z.object({ type: z.literal('MultiPolygon'), coordinates: z.array(polygonCoordinates) }),
]);
const areaBody = z
  .union([areaGeometry, z.object({ type: z.literal('Feature'), geometry: areaGeometry, properties: z.unknown().optional() })])
  .meta({
    id: 'AreaGeometry',
    description: 'A GeoJSON Polygon, MultiPolygon or Feature of one: closed rings, not self-intersecting, at most MAX_AREA_VERTICES (default 10,000) vertices.',
  });

/** GET (region, city or bbox) and POST (a GeoJSON body) of the raw and indicator data over an area. */
export function areaOperations(catalog: Catalog): Operation[] {
  const p = pathParams(catalog);
  const queries = areaQueries(catalog);
  const ops: Operation[] = [];
  for (const kind of ['raw', 'indicator'] as const)
    for (const method of ['get', 'post'] as const) {
      const raw = kind === 'raw';
      const posted = method === 'post';
      ops.push({
        method,
        path: raw ? '/api/climate-data/area/{scenario}/' : '/api/climate-data/area/{scenario}/indicator/{indicator_name}/',
        operationId: `${raw ? 'rawData' : 'indicatorData'}For${posted ? 'PostedArea' : 'Area'}`,
        tag: raw ? 'Raw climate data' : 'Indicators',
        summary: `${raw ? 'Daily tasmax, tasmin and pr' : 'One indicator'} over ${posted ? 'a posted GeoJSON polygon' : 'an ecoregion, a city boundary or a bbox'}`,
        description:
          'The map cells of the dataset that the area covers, each weighted by the area on the sphere of its part of the area. ' +
          `For each model, ${raw ? "each day's value" : "each period's indicator value"} of the cells with data is combined over the cells by area_agg, ` +
          'then the agg statistics are taken across models, as for one cell. 400 past MAX_AREA_CELLS cells with data or MAX_MODEL_YEARS years x models. Rate-limited per account.',
        auth: 'token',
        throttled: true,
        pathParams: raw ? { scenario: p.scenario } : { scenario: p.scenario, indicator_name: p.indicator },
        query: queries[kind][method],
        ...(posted ? { requestBody: { required: true, content: { 'application/json': { schema: areaBody }, 'application/geo+json': { schema: areaBody } } } } : {}),
        ok: { description: raw ? 'Daily values over the area.' : 'Indicator values over the area.', content: dataContent(raw ? areaRawData : areaIndicatorData) },
        notFound: `Unknown scenario${raw ? '' : ' or indicator'}${posted ? '' : ', region or city (or a city without a boundary)'}, or no cell of the area has data of the dataset.`,
      });
    }
  return ops;
}
