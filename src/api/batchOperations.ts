import { z } from 'zod';
import { batchQueries, NDJSON } from '../batch/batchRoutes.js';
import { MEDIA_TYPES } from '../http/format.js';
import type { Catalog } from '../reference/catalog.js';
import type { Operation } from './operation.js';
import { indicatorDataFields, pointMapCell, rawDataFields } from './responseShapes.js';

/** The OpenAPI description of the batch operations; openapi.ts lists them with the others. */

const place = z
  .union([
    z.strictObject({ city: z.int().min(1).meta({ description: 'City id (GeoNames), e.g. 5128581.' }) }),
    z.strictObject({ lat: z.number().min(-90).max(90), lon: z.number().min(-180).max(180) }),
  ])
  .meta({ id: 'BatchLocation', description: 'A city, or a point in degrees (its cell, or with `distance` the nearest cell with data).' });

const requestBody = {
  content: {
    'application/json': {
      schema: z
        .strictObject({ locations: z.array(place).min(1).meta({ description: '1 to MAX_BATCH_LOCATIONS (default 1000) locations.' }) })
        .meta({ id: 'BatchRequest' }),
      example: { locations: [{ city: 5128581 }, { lat: 40.7, lon: -74.1 }, { city: 4887398 }] },
    },
  },
  required: true,
};

const placeError = z
  .strictObject({ status: z.int(), detail: z.string() })
  .meta({ description: 'Why the location has no data: the status and detail the single endpoint answers for it (404, or 503 while its cell is being built).' });

const results = (data: z.ZodType, after: z.ZodRawShape = {}) =>
  z
    .array(z.union([z.strictObject({ location: place, map_cell: pointMapCell, data, ...after }), z.strictObject({ location: place, error: placeError })]))
    .meta({ description: "One entry per location, in the request's order: `data` exactly as the single endpoint's, or `error`." });

const { data: rawData, ...rawHead } = rawDataFields;
const { data: indicatorData, models_without_fit, models_capped, fit, ...indicatorHead } = indicatorDataFields;
export const rawDataBatch = z.strictObject({ ...rawHead, results: results(rawData) }).meta({ id: 'ClimateDataBatch' });
// Return levels: each place's members after its data.
export const indicatorDataBatch = z.strictObject({ ...indicatorHead, results: results(indicatorData, { models_without_fit, models_capped, fit }) }).meta({ id: 'IndicatorDataBatch' });

const DESCRIPTION =
  'The single endpoint for many locations at once: the query string takes its parameters (with `distance` for the points), the body lists the locations. ' +
  'Locations on the same map cell are computed once. A location without data gets an `error` entry; bad parameters or a bad body fail the whole request (400). ' +
  `\`Accept: ${NDJSON}\` streams one result per line as each is computed; format=csv|arrow gives one table with the columns city, lat, lon first. ` +
  'Throttled per account as one request per BATCH_CELLS_PER_REQUEST (default 10) distinct map cells, rounded up; a batch over the remaining budget is refused whole (429).';

/** The two operations, given the path parameters' schemas of the single endpoints' operations. */
export function batchOperations(catalog: Catalog, p: { scenario: z.ZodType; indicator: z.ZodType }): Operation[] {
  const query = batchQueries(catalog);
  const content = (schema: z.ZodType) => ({
    [MEDIA_TYPES.json]: { schema },
    [NDJSON]: { schema: z.string().meta({ description: 'One results entry per line.' }) },
    [MEDIA_TYPES.csv]: { schema: z.string() },
    [MEDIA_TYPES.arrow]: { schema: z.string().meta({ format: 'binary' }) },
  });
  const common = {
    method: 'post' as const,
    auth: 'token' as const,
    throttled: true,
    requestBody,
    notFound: 'Unknown scenario or indicator (a location without data is an entry of `results`, not a 404).',
    extra: { '413': { description: 'The body is over 256 KB.', content: { 'application/json': { schema: z.object({ detail: z.string() }) } } } },
  };
  return [
    {
      ...common,
      path: '/api/climate-data/batch/{scenario}/',
      operationId: 'rawDataBatch',
      tag: 'Raw climate data',
      summary: 'Daily tasmax, tasmin and pr for many locations',
      description: DESCRIPTION,
      pathParams: { scenario: p.scenario },
      query: query.raw,
      ok: { description: 'Daily values per location.', content: content(rawDataBatch) },
    },
    {
      ...common,
      path: '/api/climate-data/batch/{scenario}/indicator/{indicator_name}/',
      operationId: 'indicatorDataBatch',
      tag: 'Indicators',
      summary: 'One indicator for many locations',
      description: DESCRIPTION,
      pathParams: { scenario: p.scenario, indicator_name: p.indicator },
      query: query.indicator,
      ok: { description: 'Indicator values per location.', content: content(indicatorDataBatch) },
    },
  ];
}
