import { Validator } from '@seriousme/openapi-schema-validator';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { operations } from '../src/api/openapi.js';
import type { Operation } from '../src/api/operation.js';
import { INDICATORS } from '../src/indicators/metadata.js';
import { testApp, type TestApp } from './helpers.js';

let t: TestApp;
/** The document as served: parsed JSON, read loosely here and checked by the validator. */
let doc: any;

/** An export of the account, done, for the export operations' samples. */
let exported: { id: string; file: string };

beforeAll(async () => {
  t = await testApp({ THROTTLE_BURST_RATE: '100000/min', THROTTLE_SUSTAINED_RATE: '1000000/day' });
  doc = (await request(t.app).get('/openapi.json').expect(200).expect('Content-Type', /json/)).body;
  const body = doc.paths['/api/export/'].post.requestBody.content['application/json'].schema;
  const example = doc.components.schemas.ExportRequest?.example ?? body.example;
  const { id } = (await request(t.app).post('/api/export/').set('Authorization', `Token ${t.token}`).send(example).expect(202)).body as { id: string };
  for (;;) {
    const job = (await request(t.app).get(`/api/export/${id}/`).set('Authorization', `Token ${t.token}`).expect(200)).body as { status: string; files: { name: string }[] };
    if (job.status !== 'queued' && job.status !== 'running') {
      expect(job.status).toBe('done');
      exported = { id, file: job.files[0]!.name };
      break;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
});

/** Express 5's route layers, through the routers mounted with app.use(router). */
interface RouteLayer {
  route?: { path: string | RegExp; methods: Record<string, boolean> };
  handle?: { stack?: RouteLayer[] };
  match(path: string): boolean;
}
function appRoutes(stack: RouteLayer[]): { method: string; path: string | RegExp; layer: RouteLayer }[] {
  return stack.flatMap((layer) => {
    if (layer.route) return Object.keys(layer.route.methods).filter((m) => m !== '_all').map((method) => ({ method, path: layer.route!.path, layer }));
    return layer.handle?.stack ? appRoutes(layer.handle.stack) : [];
  });
}

/** A concrete URL for a documented path, for the regex route and for requests. */
const EXAMPLES: Record<string, string> = {
  city: '5128581',
  lat: '40.3',
  lon: '-74.6',
  scenario: 'RCP85',
  indicator_name: 'frost_days',
  dataset: 'NEX-GDDP',
  name: 'RCP85',
  region: '1',
};
const concrete = (template: string) => template.replace(/\{(\w+)\}/g, (_, k: string) => EXAMPLES[k] ?? 'x');
const shape = (template: string) => template.replace(/\{\w+\}|:\w+/g, '{}');

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(doc.openapi).toMatch(/^3\.1\./);
  });

  it('has exactly the routes of the app, method by method', () => {
    const routes = appRoutes((t.app as unknown as { router: { stack: RouteLayer[] } }).router.stack);
    const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item!).map((method) => ({ method, path })),
    );
    const served = routes.map(({ method, path, layer }) => {
      if (typeof path === 'string') return `${method.toUpperCase()} ${shape(path)}`;
      // A regex route (region detail, with its .pbf form) stands for the documented path it serves.
      const hits = documented.filter((d) => d.method === method && layer.match(concrete(d.path)));
      expect(hits, `regex route ${path} matches one documented path`).toHaveLength(1);
      return `${method.toUpperCase()} ${shape(hits[0]!.path)}`;
    });
    const names = documented.map((d) => `${d.method.toUpperCase()} ${shape(d.path)}`);
    expect(new Set(served).size).toBe(served.length);
    expect([...names].sort()).toEqual([...served].sort());
    expect(served).toHaveLength(operations(t.catalog).length);
  });

  it('declares the Token scheme, required everywhere but on the public paths', () => {
    expect(doc.components.securitySchemes.Token).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' });
    expect(doc.security).toEqual([{ Token: [] }]);
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const op of Object.values(item!) as { security?: unknown[]; responses: Record<string, unknown> }[]) {
        const open = !path.startsWith('/api/');
        expect(op.security, path).toEqual(open ? [] : undefined);
        // /metrics answers 401 for a missing METRICS_TOKEN, not for an API token.
        expect('401' in op.responses, path).toBe(!open || path === '/metrics');
      }
    }
  });

  it('documents each parameter with its type, enum, bounds and default', () => {
    const params = (path: string): Record<string, Record<string, unknown>> =>
      Object.fromEntries(
        (doc.paths[path].get.parameters as { name: string; in: string; required?: boolean; schema: Record<string, unknown> }[]).map((p) => [
          `${p.in}:${p.name}`,
          { ...p.schema, required: p.required ?? false },
        ]),
      );
    const cities = params('/api/city/');
    expect(cities['query:page_size']).toMatchObject({ type: 'integer', minimum: 1, maximum: 1000, default: 20 });
    expect(cities['query:population_gte']).toMatchObject({ type: 'integer', minimum: 0 });
    expect(params('/api/city/nearest/')['query:lat']).toMatchObject({ type: 'number', minimum: -90, maximum: 90, required: true });
    expect(params('/api/region/')['query:ordering']).toMatchObject({ enum: ['id', '-id', 'level1', '-level1', 'level2', '-level2'] });

    const raw = params('/api/climate-data/{lat}/{lon}/{scenario}/');
    expect(raw['path:lat']).toMatchObject({ type: 'number', minimum: -90, maximum: 90, required: true });
    expect(raw['path:scenario']).toMatchObject({ enum: t.catalog.scenarios.map((s) => s.name), required: true });
    expect(raw['query:dataset']).toMatchObject({ enum: ['NEX-GDDP', 'LOCA', 'NEX-GDDP-CMIP6', 'LOCA2'], default: 'NEX-GDDP' });
    expect(raw['query:agg']).toMatchObject({ enum: ['avg', 'min', 'max'], default: 'avg' });
    expect(raw['query:variables']).toMatchObject({ type: 'string', default: 'tasmax,tasmin,pr' });
    expect(raw['query:distance']).toMatchObject({ type: 'number', minimum: 0, default: 0 });
    expect(raw['query:format']).toMatchObject({ enum: ['json', 'csv', 'arrow'], default: 'json' });

    const ind = params('/api/climate-data/{city}/{scenario}/indicator/{indicator_name}/');
    expect(ind['query:time_aggregation']).toMatchObject({ enum: ['yearly', 'quarterly', 'monthly', 'offset_yearly', 'custom', 'decadal', 'window'], default: 'yearly' });
    expect(ind['query:change']).toMatchObject({ enum: ['absolute', 'percent'] });
    // A default would be sent by the docs page's form, and change without relative_to is refused.
    expect(ind['query:change']).not.toHaveProperty('default');
    expect(String(ind['query:relative_to']!.description)).toMatch(/start year of a historic range/);
    expect(String(ind['query:windows']!.description)).toMatch(/at most 20/);
    expect(ind['query:agg']).toMatchObject({ default: 'min,max,avg' });
    expect(ind['query:percentile']).toMatchObject({ type: 'integer', minimum: 1, maximum: 99 });
    expect(ind['query:threshold_comparator']).toMatchObject({ enum: ['lt', 'lte', 'gt', 'gte'] });
    expect(ind['query:basetemp']).toMatchObject({ type: 'number', default: 65 });
    expect(ind['query:historic_range']).toMatchObject({ enum: ['1951', '1961', '1971', '1981'], default: '1971' });
    expect(String(ind['query:threshold']!.description)).toMatch(/Used by: max_temperature_threshold, min_temperature_threshold, precipitation_threshold, wet_bulb_temperature_threshold, heat_index_threshold;/);
    expect(ind['query:distance']).toBeUndefined();
    // Every parameter any indicator declares is documented on the indicator data operations.
    for (const p of new Set(INDICATORS.flatMap((m) => m.parameters.map((x) => x.name)))) expect(ind[`query:${p}`], p).toBeDefined();
  });

  it('documents 400, 401, 404 and 429 with Retry-After as JSON {detail}', () => {
    const op = doc.paths['/api/climate-data/{city}/{scenario}/']!.get!;
    for (const status of ['400', '401', '404', '429']) {
      expect((op.responses as Record<string, { content: Record<string, { schema: unknown }> }>)[status]!.content['application/json']!.schema).toEqual({
        $ref: '#/components/schemas/Error',
      });
    }
    expect((op.responses['429'] as { headers: Record<string, { schema: unknown }> }).headers['Retry-After']!.schema).toMatchObject({ type: 'integer' });
    expect(Object.keys((op.responses['200'] as { content: object }).content)).toEqual(['application/json', 'text/csv', 'application/vnd.apache.arrow.stream']);
  });
});

/** Sample requests: every operation has one, and its 200 body parses with the documented shape. */
const SAMPLES: Record<string, string> = {
  healthz: '/healthz',
  readyz: '/readyz',
  metrics: '/metrics',
  listCities: '/api/city/?page_size=3&ordering=-population',
  nearestCities: '/api/city/nearest/?lat=40.7&lon=-74&limit=2',
  getCity: '/api/city/5128581/',
  getCityBoundary: '/api/city/5128581/boundary/',
  listCityMapCells: '/api/city/5128581/map-cell/',
  getCityMapCell: '/api/city/5128581/map-cell/LOCA/',
  mapCellsAtPoint: '/api/map-cell/40.7/-74/?distance=100000',
  listDatasets: '/api/dataset/',
  getDataset: '/api/dataset/LOCA/',
  listClimateModels: '/api/climate-model/',
  getClimateModel: '/api/climate-model/CCSM4/',
  listScenarios: '/api/scenario/',
  getScenario: '/api/scenario/RCP85/',
  listHistoricRanges: '/api/historic-range/',
  listWarmingLevels: '/api/warming-level/',
  listRegions: '/api/region/?limit=3',
  getRegion: '/api/region/{region}/',
  listIndicators: '/api/indicator/',
  getIndicator: '/api/indicator/heating_degree_days/',
  rawDataForCity: '/api/climate-data/5128581/RCP85/?years=2052&variables=tasmax,pr',
  rawDataAtPoint: '/api/climate-data/40.3/-74.6/RCP85/?years=2050&distance=100000',
  indicatorDataForCity: '/api/climate-data/5128581/RCP45/indicator/percentile_precipitation/?time_aggregation=monthly&agg=avg,95th',
  indicatorDataAtPoint: '/api/climate-data/40.3/-74.6/historical/indicator/frost_days/?distance=100000&dataset=LOCA',
  rawDataBatch: '/api/climate-data/batch/RCP85/?years=2052&variables=tasmax,pr',
  indicatorDataBatch: '/api/climate-data/batch/RCP45/indicator/percentile_precipitation/?time_aggregation=monthly&agg=avg,95th',
  rawDataForArea: '/api/climate-data/area/RCP85/?city=5128581&years=2050&variables=tasmax',
  indicatorDataForArea: '/api/climate-data/area/RCP85/indicator/frost_days/?bbox=-74.1,40.6,-73.8,40.8&area_agg=max',
  rawDataForPostedArea: '/api/climate-data/area/RCP45/?years=2051&variables=pr',
  indicatorDataForPostedArea: '/api/climate-data/area/historical/indicator/dry_spells/?agg=median',
  indicatorMap: '/api/climate-data/map/RCP85/indicator/frost_days/?years=2050:2052&city=5128581',
  openApiDocument: '/openapi.json',
  docsPage: '/docs/',
  explorerPage: '/explore/',
  createExport: '/api/export/',
  listExports: '/api/export/',
  getExport: '/api/export/{export}/',
  deleteExport: '/api/export/{export}/',
  getExportFile: '/api/export/{export}/files/{file}/',
  getToken: '/api-token-auth/',
  refreshToken: '/api-token-auth/refresh/',
};

describe('responses match the documented shapes', () => {
  it('has a sample request for every operation', () => {
    expect(operations(t.catalog).map((o) => o.operationId).sort()).toEqual(Object.keys(SAMPLES).sort());
  });

  it('answers every GET sample with a body of the documented 200 schema', async () => {
    const ops = operations(t.catalog).filter((o) => o.method === 'get');
    for (const op of ops) {
      const url = SAMPLES[op.operationId]!.replace('{region}', String(t.catalog.regions[0]!.id)).replace('{export}', exported.id).replace('{file}', exported.file);
      const res = await request(t.app).get(url).set('Authorization', `Token ${t.token}`);
      expect(res.status, url).toBe(200);
      checkBody(op, res.headers['content-type'] as string, res.body, url);
    }
  });

  it('answers the batch operations with bodies of the documented 200 schema, for the documented example body', async () => {
    for (const id of ['rawDataBatch', 'indicatorDataBatch']) {
      const op = operations(t.catalog).find((o) => o.operationId === id)!;
      const media = doc.paths[op.path].post.requestBody.content['application/json'];
      expect(media.example.locations.length).toBeGreaterThan(1);
      const body = { locations: [...media.example.locations, { lat: -45, lon: 170 }] };
      const res = await request(t.app).post(SAMPLES[id]!).set('Authorization', `Token ${t.token}`).send(body).expect(200);
      checkBody(op, res.headers['content-type'] as string, res.body, id);
      expect(res.body.results.map((r: { data?: unknown }) => r.data !== undefined)).toEqual([true, true, true, false]);
      expect(Object.keys(doc.paths[op.path].post.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '404', '413', '429']));
      expect(Object.keys(doc.paths[op.path].post.responses['200'].content)).toEqual(['application/json', 'application/x-ndjson', 'text/csv', 'application/vnd.apache.arrow.stream']);
      }
    });

  it('answers the POST area operations with a body of the documented 200 schema', async () => {
    const body = { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [[[-74, 40.6], [-73.8, 40.6], [-73.9, 40.8], [-74, 40.6]]] } };
    for (const id of ['rawDataForPostedArea', 'indicatorDataForPostedArea']) {
      const op = operations(t.catalog).find((o) => o.operationId === id)!;
      expect(op.method).toBe('post');
      const res = await request(t.app).post(SAMPLES[id]!).set('Authorization', `Token ${t.token}`).send(body).expect(200);
      checkBody(op, res.headers['content-type'] as string, res.body, id);
    }
  });

  it('answers POST and DELETE of an export as documented (202 with Location, then 204)', async () => {
    const post = operations(t.catalog).find((o) => o.operationId === 'createExport')!;
    const example = doc.components.schemas.ExportRequest.example;
    const res = await request(t.app).post('/api/export/').set('Authorization', `Token ${t.token}`).send(example).expect(202);
    const accepted = (post.extra!['202'] as unknown as { content: Record<string, { schema: z.ZodType }> }).content['application/json']!.schema.safeParse(res.body);
    expect(accepted.success ? [] : accepted.error.issues).toEqual([]);
    expect(res.headers.location).toBe(res.body.url);
    expect(Object.keys(doc.paths['/api/export/'].post.responses)).toEqual(expect.arrayContaining(['202', '400', '401', '404', '409', '413', '429']));
    await request(t.app).delete(res.body.url).set('Authorization', `Token ${t.token}`).expect(204);
    await request(t.app).get(res.body.url).set('Authorization', `Token ${t.token}`).expect((r) => expect([200, 404]).toContain(r.status));
  });

  it('answers the token operations as documented (refresh last: it revokes the token)', async () => {
    for (const id of ['getToken', 'refreshToken']) {
      const op = operations(t.catalog).find((o) => o.operationId === id)!;
      const res = await request(t.app).post(SAMPLES[id]!).send({ email: 'tester@example.com', password: 'test-password' }).expect(200);
      checkBody(op, res.headers['content-type'] as string, res.body, id);
      const bad = await request(t.app).post(SAMPLES[id]!).send({}).expect(400);
      expect(Object.keys(bad.body)).toEqual(['email', 'password']);
    }
    t = await testApp({ THROTTLE_BURST_RATE: '100000/min', THROTTLE_SUSTAINED_RATE: '1000000/day' });
  });
});

function checkBody(op: Operation, contentType: string, body: unknown, label: string) {
  const media = contentType.split(';')[0]!;
  const documented = op.ok.content[media];
  expect(documented, `${label}: ${media} is documented`).toBeDefined();
  if (media !== 'application/json') return;
  const parsed = (documented!.schema as z.ZodType).safeParse(body);
  expect(parsed.success ? [] : parsed.error.issues.slice(0, 3), label).toEqual([]);
}

describe('serving the document and the page', () => {
  it('serves /openapi.json, /docs/ and its assets without a token; /api/ still needs one', async () => {
    await request(t.app).get('/openapi.json').expect(200);
    const page = await request(t.app).get('/docs/').expect(200).expect('Content-Type', /html/);
    for (const src of [...page.text.matchAll(/(?:src|href)="\.\/([^"]+)"/g)].map((m) => m[1]!)) {
      await request(t.app).get(`/docs/${src}`).expect(200);
    }
    expect((await request(t.app).get('/docs/init.js').expect(200)).text).toMatch(/openapi\.json/);
    await request(t.app).get('/docs').expect(301).expect('Location', '/docs/');
    // Only the files the page loads are served from swagger-ui-dist.
    await request(t.app).get('/docs/package.json').redirects(1).expect(404);
    await request(t.app).get('/api/scenario/').expect(401);
  });
});
