import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiOverrideContext, type ZodOpenApiResponsesObject } from 'zod-openapi';
import { rawDataQueries } from '../climate/routes.js';
import { ROOT } from '../config.js';
import { wireType } from '../http/queryParams.js';
import { indicatorDataQueries } from '../indicators/routes.js';
import type { Catalog } from '../reference/catalog.js';
import { cityListQuery, nearestQuery } from '../reference/cityRoutes.js';
import { historicRangeQuery, namedListQuery } from '../reference/metadataRoutes.js';
import { distanceQuery, pointPath } from '../reference/pointParams.js';
import { regionDetailQuery, regionListQuery } from '../reference/regionRoutes.js';
import { areaOperations } from './areaOperations.js';
import { mapOperations } from './mapOperations.js';
import { batchOperations } from './batchOperations.js';
import { exportOperations } from './exportOperations.js';
import { dataContent, json, pathParams, type Operation, type Shape } from './operation.js';
import * as shapes from './responseShapes.js';

/**
 * The OpenAPI 3.1 document, generated from the zod schemas the routes validate with (query
 * parameters, lat/lon) and the response shapes (responseShapes.ts). An endpoint's query parameters
 * are the shape its route parses with (rawDataQueries, indicatorDataQueries, batchQueries,
 * areaQueries); test/openapi-parameters.test.ts probes the handlers for any they read besides. OPERATIONS is the one list of
 * what the app serves; test/openapi.test.ts walks the Express router and fails when a route is
 * missing here or an operation here has no route. A new endpoint is one entry.
 */

const credentials = z
  .object({ email: z.string(), password: z.string() })
  .meta({ description: 'The account’s email and password, as JSON or as an HTML form.' });
const fieldErrors = z
  .record(z.string(), z.array(z.string()))
  .meta({ id: 'FieldErrors', description: 'Messages by field, e.g. {"email": ["This field is required."]} or {"non_field_errors": [...]}.' });

/** Every operation the app serves. */
export function operations(catalog: Catalog): Operation[] {
  const p = pathParams(catalog);
  const rawQueries = rawDataQueries(catalog);
  const indicatorQueries = indicatorDataQueries(catalog);
  const climate = (kind: 'raw' | 'indicator', where: 'city' | 'point'): Operation => {
    const point = where === 'point';
    const raw = kind === 'raw';
    const base = point ? '/api/climate-data/{lat}/{lon}/{scenario}/' : '/api/climate-data/{city}/{scenario}/';
    const place: Shape = point ? pointPath : { city: p.city };
    return {
      method: 'get',
      path: raw ? base : `${base}indicator/{indicator_name}/`,
      operationId: `${raw ? 'rawData' : 'indicatorData'}${point ? 'AtPoint' : 'ForCity'}`,
      tag: raw ? 'Raw climate data' : 'Indicators',
      summary: raw
        ? `Daily tasmax, tasmin and pr ${point ? 'at a point' : 'for a city'}, combined across models`
        : `One indicator ${point ? 'at a point' : 'for a city'}: per period, statistics across models`,
      description: raw
        ? 'Per year and variable, 366 daily values (index i is day-of-year i+1). Rate-limited per account.'
        : 'Indicator-specific parameters (threshold, basetemp, percentile, historic_range, ...) apply to the indicators named in their descriptions; ' +
          'each indicator lists its own at /api/indicator/{indicator_name}/. Rate-limited per account.',
      auth: 'token',
      throttled: true,
      pathParams: raw ? { ...place, scenario: p.scenario } : { ...place, scenario: p.scenario, indicator_name: p.indicator },
      query: (raw ? rawQueries : indicatorQueries)[where],
      ok: {
        description: raw ? 'Daily values.' : 'Indicator values.',
        content: dataContent(raw ? (point ? shapes.pointRawData : shapes.cityRawData) : point ? shapes.pointIndicatorData : shapes.cityIndicatorData),
      },
      notFound: point
        ? 'Unknown scenario or indicator, or no data of the dataset near the point.'
        : 'Unknown city, scenario or indicator, or no data of the dataset for the city.',
    };
  };
  return [
    {
      method: 'post',
      path: '/api-token-auth/',
      operationId: 'getToken',
      tag: 'Authentication',
      summary: "The account's API token",
      description: 'Send the account’s email and password; the answer is its current token. Throttled per client address.',
      auth: 'none',
      requestBody: { content: { 'application/json': { schema: credentials }, 'application/x-www-form-urlencoded': { schema: credentials } } },
      ok: { description: 'The token.', content: json(shapes.token) },
      extra: {
        '400': { description: 'Missing fields or wrong credentials.', content: json(fieldErrors) },
        '429': throttledResponse('Too many attempts from this address.'),
      },
    },
    {
      method: 'post',
      path: '/api-token-auth/refresh/',
      operationId: 'refreshToken',
      tag: 'Authentication',
      summary: 'A new API token; the previous one stops working at once',
      auth: 'none',
      requestBody: { content: { 'application/json': { schema: credentials }, 'application/x-www-form-urlencoded': { schema: credentials } } },
      ok: { description: 'The new token.', content: json(shapes.token) },
      extra: {
        '400': { description: 'Missing fields or wrong credentials.', content: json(fieldErrors) },
        '429': throttledResponse('Too many attempts from this address.'),
      },
    },
    {
      method: 'get',
      path: '/api/city/',
      operationId: 'listCities',
      tag: 'Cities',
      summary: 'Cities, filtered, ordered and paginated',
      auth: 'token',
      query: cityListQuery,
      ok: { description: 'A page of cities.', content: json(shapes.cityCollection) },
      notFound: 'A page past the last one ("Invalid page.").',
    },
    {
      method: 'get',
      path: '/api/city/nearest/',
      operationId: 'nearestCities',
      tag: 'Cities',
      summary: 'The cities nearest to a point',
      auth: 'token',
      query: nearestQuery,
      ok: { description: 'A page of cities, nearest first.', content: json(shapes.cityCollection) },
      notFound: 'A page past the last one.',
    },
    {
      method: 'get',
      path: '/api/city/{city}/',
      operationId: 'getCity',
      tag: 'Cities',
      summary: 'One city',
      auth: 'token',
      pathParams: { city: p.city },
      ok: { description: 'The city.', content: json(shapes.city) },
      notFound: 'No city with this id.',
    },
    {
      method: 'get',
      path: '/api/city/{city}/boundary/',
      operationId: 'getCityBoundary',
      tag: 'Cities',
      summary: "The city's boundary",
      auth: 'token',
      pathParams: { city: p.city },
      ok: { description: 'A MultiPolygon Feature.', content: json(shapes.cityBoundary) },
      notFound: 'No such city, or it has no boundary.',
    },
    {
      method: 'get',
      path: '/api/city/{city}/map-cell/',
      operationId: 'listCityMapCells',
      tag: 'Cities',
      summary: "The city's map cell in each dataset",
      auth: 'token',
      pathParams: { city: p.city },
      ok: { description: 'One Point Feature per dataset.', content: json(z.array(shapes.cityMapCell)) },
      notFound: 'No such city, or no map cell with data.',
    },
    {
      method: 'get',
      path: '/api/city/{city}/map-cell/{dataset}/',
      operationId: 'getCityMapCell',
      tag: 'Cities',
      summary: "The city's map cell in one dataset",
      auth: 'token',
      pathParams: { city: p.city, dataset: p.dataset },
      ok: { description: 'A Point Feature.', content: json(shapes.cityMapCell) },
      notFound: 'No such city, or no map cell of that dataset.',
    },
    {
      method: 'get',
      path: '/api/map-cell/{lat}/{lon}/',
      operationId: 'mapCellsAtPoint',
      tag: 'Map cells',
      summary: 'Map cells with data at or near a point, nearest first',
      auth: 'token',
      pathParams: pointPath,
      query: distanceQuery,
      ok: { description: 'Point Features, by increasing distance.', content: json(z.array(shapes.pointMapCell)) },
      notFound: 'No map cell with data within the distance.',
    },
    ...named('dataset', 'Datasets', shapes.dataset, p.dataset, 'listDatasets', 'getDataset'),
    ...named('climate-model', 'Climate models', shapes.climateModel, p.model, 'listClimateModels', 'getClimateModel'),
    ...named('scenario', 'Scenarios', shapes.scenario, p.scenario, 'listScenarios', 'getScenario'),
    {
      method: 'get',
      path: '/api/historic-range/',
      operationId: 'listHistoricRanges',
      tag: 'Historic ranges',
      summary: 'The 30-year baselines of the historic indicators',
      auth: 'token',
      query: historicRangeQuery,
      ok: { description: 'Historic ranges.', content: json(z.array(shapes.historicRange)) },
    },
    {
      method: 'get',
      path: '/api/warming-level/',
      operationId: 'listWarmingLevels',
      tag: 'Warming levels',
      summary: 'The global warming levels, where their windows come from, and how many models reach each',
      description: 'The levels of the indicators\' warming_level parameter; per dataset and scenario, how many models reach each level (the IPCC AR6 Atlas tables).',
      auth: 'token',
      ok: { description: 'Warming levels.', content: json(shapes.warmingLevelListing) },
    },
    {
      method: 'get',
      path: '/api/region/',
      operationId: 'listRegions',
      tag: 'Regions',
      summary: 'Ecoregions, limit/offset paginated',
      auth: 'token',
      query: regionListQuery,
      ok: { description: 'A page of regions.', content: json(shapes.regionCollection) },
    },
    {
      method: 'get',
      path: '/api/region/{region}/',
      operationId: 'getRegion',
      tag: 'Regions',
      summary: 'One ecoregion with its geometry',
      description: '`/api/region/{region}.pbf` is the same as `?format=pbf`.',
      auth: 'token',
      pathParams: { region: p.region },
      query: regionDetailQuery,
      ok: {
        description: 'GeoJSON Feature (json), Geobuf (pbf) or an HTML page (api).',
        content: {
          ...json(shapes.region),
          'application/octet-stream': { schema: z.string().meta({ format: 'binary' }) },
          'text/html': { schema: z.string() },
        },
      },
      notFound: 'No region with this id.',
    },
    climate('raw', 'city'),
    climate('raw', 'point'),
    {
      method: 'get',
      path: '/api/indicator/',
      operationId: 'listIndicators',
      tag: 'Indicators',
      summary: 'The indicators, with their parameters',
      auth: 'token',
      ok: { description: 'Indicators.', content: json(z.array(shapes.indicator)) },
    },
    {
      method: 'get',
      path: '/api/indicator/{indicator_name}/',
      operationId: 'getIndicator',
      tag: 'Indicators',
      summary: 'One indicator',
      auth: 'token',
      pathParams: { indicator_name: p.indicator },
      ok: { description: 'The indicator.', content: json(shapes.indicator) },
      notFound: 'No indicator with this name.',
    },
    climate('indicator', 'city'),
    climate('indicator', 'point'),
    ...batchOperations(catalog, p),
    ...areaOperations(catalog),
    ...mapOperations(catalog),
    ...exportOperations(),
    {
      method: 'get',
      path: '/openapi.json',
      operationId: 'openApiDocument',
      tag: 'Documentation',
      summary: 'This document',
      auth: 'none',
      ok: { description: 'OpenAPI 3.1 document.', content: json(z.record(z.string(), z.unknown())) },
    },
    {
      method: 'get',
      path: '/docs/',
      operationId: 'docsPage',
      tag: 'Documentation',
      summary: 'Interactive documentation (Swagger UI)',
      auth: 'none',
      ok: { description: 'HTML page.', content: { 'text/html': { schema: z.string() } } },
    },
    {
      method: 'get',
      path: '/explore/',
      operationId: 'explorerPage',
      tag: 'Explorer',
      summary: 'The web explorer: sign in, pick a place and an indicator, see its chart and numbers',
      auth: 'none',
      ok: { description: 'HTML page.', content: { 'text/html': { schema: z.string() } } },
      extra: { '503': { description: 'The page was not built (make build).', content: json(z.object({ detail: z.string() })) } },
    },
    {
      method: 'get',
      path: '/healthz',
      operationId: 'healthz',
      tag: 'Operations',
      summary: 'Liveness: the process answers',
      auth: 'none',
      ok: { description: 'Alive.', content: json(z.object({ status: z.literal('ok') })) },
    },
    {
      method: 'get',
      path: '/readyz',
      operationId: 'readyz',
      tag: 'Operations',
      summary: 'Readiness: not shutting down, and the data store answers a query',
      auth: 'none',
      ok: { description: 'Ready.', content: json(z.object({ status: z.literal('ready') })) },
      extra: { '503': { description: 'Shutting down, the default data still being built (status building), or the data store did not answer.', content: json(z.object({ status: z.string(), detail: z.string() })) } },
    },
    {
      method: 'get',
      path: '/metrics',
      operationId: 'metrics',
      tag: 'Operations',
      summary: 'Prometheus metrics (with METRICS_TOKEN set: Authorization: Bearer <METRICS_TOKEN>)',
      auth: 'none',
      ok: { description: 'Prometheus text exposition format.', content: { 'text/plain': { schema: z.string() } } },
      extra: {
        '401': { description: 'METRICS_TOKEN is set and the request does not carry it.', content: json(z.object({ detail: z.string() })) },
        '404': { description: 'Metrics are turned off (METRICS=off).', content: json(z.object({ detail: z.string() })) },
      },
    },
  ];
}

/** `/api/<noun>/` and `/api/<noun>/{name}/` of the named reference lists. */
function named(noun: string, tag: string, item: z.ZodType, name: z.ZodType, listId: string, getId: string): Operation[] {
  return [
    {
      method: 'get',
      path: `/api/${noun}/`,
      operationId: listId,
      tag,
      summary: `All ${tag.toLowerCase()}`,
      auth: 'token',
      query: namedListQuery,
      ok: { description: `${tag}.`, content: json(z.array(item)) },
    },
    {
      method: 'get',
      path: `/api/${noun}/{name}/`,
      operationId: getId,
      tag,
      summary: `One of the ${tag.toLowerCase()}, by name`,
      auth: 'token',
      pathParams: { name },
      ok: { description: `The ${tag.toLowerCase().replace(/s$/, '')}.`, content: json(item) },
      notFound: 'No item with this name.',
    },
  ];
}

function throttledResponse(description: string) {
  return {
    description,
    headers: z.object({
      'Retry-After': z.string().meta({ description: 'Seconds to wait before retrying.', override: wireType('integer', 1) }),
    }),
    content: json(shapes.errorBody),
  };
}

function responses(op: Operation): ZodOpenApiResponsesObject {
  const error = (description: string) => ({ description, content: json(shapes.errorBody) });
  const out: ZodOpenApiResponsesObject = { '200': op.ok };
  // Path segments other than lat/lon are looked up: a bad one is a 404, not a 400.
  if (op.query || op.pathParams?.lat) out['400'] = error('A parameter is malformed or unsupported; the detail names it and what it accepts.');
  if (op.auth === 'token') {
    out['401'] = {
      ...error('Missing or invalid token.'),
      headers: z.object({ 'WWW-Authenticate': z.literal('Token') }),
    };
  }
  if (op.notFound) out['404'] = error(op.notFound);
  if (op.throttled) out['429'] = throttledResponse('Over the account’s burst or sustained rate.');
  return { ...out, ...op.extra };
}

function packageVersion(): string {
  return (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The document for this data build (enums of datasets, models, scenarios and historic ranges come from it). */
export function openApiDocument(catalog: Catalog) {
  const ops = operations(catalog);
  const paths: Record<string, Record<string, ZodOpenApiOperationObject>> = {};
  for (const op of ops) {
    paths[op.path] ??= {};
    paths[op.path]![op.method] = {
      operationId: op.operationId,
      tags: [op.tag],
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      ...(op.auth === 'none' ? { security: [] } : {}),
      requestParams: {
        ...(op.pathParams ? { path: z.object(op.pathParams) } : {}),
        ...(op.query ? { query: z.object(op.query) } : {}),
      },
      ...(op.requestBody ? { requestBody: op.requestBody } : {}),
      responses: responses(op),
    };
  }
  return createDocument(
    {
      openapi: '3.1.0',
      info: {
        title: 'Climate projection service',
        version: packageVersion(),
        description:
          'Downscaled daily climate projections (NEX-GDDP, LOCA) and derived indicators for US cities and any lat/lon. ' +
          `Data build ${catalog.manifest.build_id}. Every /api/ path needs \`Authorization: Token <key>\`; get a key with POST /api-token-auth/.`,
      },
      security: [{ Token: [] }],
      components: {
        securitySchemes: {
          Token: {
            type: 'apiKey',
            in: 'header',
            name: 'Authorization',
            description: 'The header value is the word Token, a space, then the key: `Token <key>`. In Swagger UI\'s "Authorize", enter that whole value.',
          },
        },
      },
      tags: [...new Set(ops.map((o) => o.tag))].map((name) => ({ name })),
      paths,
    },
    { override: renderDefaults },
  );
}

/**
 * zod leaves `default` out of the JSON Schema of a value that is transformed after parsing (an
 * integer read from a string); show it in its query-string form.
 */
function renderDefaults({ jsonSchema, zodSchema, io }: ZodOpenApiOverrideContext) {
  const def = zodSchema._zod.def as { type: string; defaultValue?: unknown };
  if (io !== 'input' || def.type !== 'default' || jsonSchema.default !== undefined) return;
  const v = def.defaultValue;
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') jsonSchema.default = v;
  else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) jsonSchema.default = v.join(',');
}
