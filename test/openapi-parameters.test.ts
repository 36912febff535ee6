import { parse } from 'node:querystring';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../src/api/openapi.js';
import type { Operation } from '../src/api/operation.js';
import { INDICATORS, type IndicatorMeta } from '../src/indicators/metadata.js';
import { testApp, type TestApp } from './helpers.js';

/**
 * Every query parameter a climate data handler accepts is documented in its OpenAPI operation, and
 * every documented one is read. Unknown parameters are ignored, not refused (as the original API
 * does), so "accepted" is found by probing: the app's query parser hands out a proxy of the parsed
 * query that records each name the handler reads. A name read but not documented passes only if
 * the handler refuses it whatever its value (`region` on a POST area, whose area is the body).
 * Each probe must answer 200, so that no check after a failing one goes unread; indicators are
 * probed once per set of own parameters they take.
 */

let t: TestApp;
let doc: any;
const reads = new Set<string>();

beforeAll(async () => {
  t = await testApp({ THROTTLE_BURST_RATE: '100000/min', THROTTLE_SUSTAINED_RATE: '1000000/day' });
  doc = (await request(t.app).get('/openapi.json').expect(200)).body;
  // Express 5 parses the query string on each read of req.query, with this function.
  t.app.set('query parser', (text: string) => {
    const parsed = parse(text);
    return new Proxy(parsed, {
      get(target, key, receiver) {
        if (typeof key === 'string') reads.add(key);
        return Reflect.get(target, key, receiver);
      },
      has(target, key) {
        if (typeof key === 'string') reads.add(key);
        return Reflect.has(target, key);
      },
    });
  });
});

const NYC = 5128581;
const PATH_VALUES: Record<string, string> = { city: String(NYC), lat: '40.7', lon: '-74', scenario: 'RCP85' };
const polygon = { type: 'Polygon', coordinates: [[[-74, 40.6], [-73.8, 40.6], [-73.9, 40.8], [-74, 40.6]]] };

/** Names a handler reads only to refuse them: a POST area is its body, so naming one in the query is ambiguous. */
const REFUSED: Record<string, string[]> = {
  rawDataForPostedArea: ['bbox', 'city', 'region'],
  indicatorDataForPostedArea: ['bbox', 'city', 'region'],
};

/** The climate data operations: the single place (city, point), batch, area and map ones. */
const climateOperations = () => operations(t.catalog).filter((op) => op.path.startsWith('/api/climate-data/'));

/** One indicator per set of own parameters (threshold, basetemp, percentile, historic_range, ...). */
function indicatorsByParameters(): IndicatorMeta[] {
  const seen = new Map<string, IndicatorMeta>();
  for (const m of INDICATORS) {
    const key = m.parameters.map((p) => p.name).sort().join(',');
    if (!seen.has(key)) seen.set(key, m);
  }
  return [...seen.values()];
}

/** The query a valid request of the indicator needs: its required parameters, and few years. */
function requiredQuery(meta: IndicatorMeta | undefined): Record<string, string> {
  const q: Record<string, string> = { years: '2050' };
  for (const p of meta?.parameters.filter((x) => x.required) ?? []) {
    if (p.name === 'threshold') q.threshold = '1';
    else if (p.name === 'threshold_comparator') q.threshold_comparator = 'gt';
    else if (p.name === 'threshold_units') q.threshold_units = meta!.variables[0] === 'pr' ? 'mm/day' : 'F';
    else throw new Error(`no probe value for the required parameter ${p.name} of ${meta!.name}`);
  }
  return q;
}

function send(op: Operation, meta: IndicatorMeta | undefined, query: Record<string, string>) {
  const url = op.path.replace(/\{(\w+)\}/g, (_, k: string) => (k === 'indicator_name' ? meta!.name : PATH_VALUES[k]!));
  // A GET area is named in the query; a POST one is the body, a batch's places are the body.
  const extra: Record<string, string> = op.path.includes('/area/') && op.method === 'get' ? { city: String(NYC) } : {};
  const qs = new URLSearchParams({ ...extra, ...query }).toString();
  const req = op.method === 'get' ? request(t.app).get(`${url}?${qs}`) : request(t.app).post(`${url}?${qs}`);
  const body = op.path.includes('/batch/') ? { locations: [{ city: NYC }, { lat: 40.7, lon: -74 }] } : polygon;
  return (op.method === 'post' ? req.send(body) : req).set('Authorization', `Token ${t.token}`);
}

/** The names of the query parameters the handler read while answering. */
async function probe(op: Operation, meta: IndicatorMeta | undefined, query: Record<string, string>): Promise<Set<string>> {
  reads.clear();
  const res = await send(op, meta, query);
  expect(res.status, `${op.operationId} ${meta?.name ?? ''}: ${JSON.stringify(res.body)}`).toBe(200);
  return new Set(reads);
}

const documented = (op: Operation) =>
  new Set((doc.paths[op.path][op.method].parameters as { name: string; in: string }[]).filter((p) => p.in === 'query').map((p) => p.name));

describe('the climate data operations document exactly the query parameters their handlers accept', () => {
  it('covers the city, point, batch, area and map operations, raw and indicator', () => {
    const paths = new Set(climateOperations().map((op) => op.path.replace(/\{\w+\}/g, '{}')));
    expect([...paths].sort()).toEqual([
      '/api/climate-data/area/{}/',
      '/api/climate-data/area/{}/indicator/{}/',
      '/api/climate-data/batch/{}/',
      '/api/climate-data/batch/{}/indicator/{}/',
      '/api/climate-data/map/{}/indicator/{}/',
      '/api/climate-data/{}/{}/',
      '/api/climate-data/{}/{}/indicator/{}/',
      '/api/climate-data/{}/{}/{}/',
      '/api/climate-data/{}/{}/{}/indicator/{}/',
    ]);
  });

  it('every parameter a handler reads is documented, or refused with a 400 naming it', async () => {
    for (const op of climateOperations()) {
      const indicator = op.path.includes('{indicator_name}');
      const docs = documented(op);
      const read = new Set<string>();
      for (const meta of indicator ? indicatorsByParameters() : [undefined]) {
        for (const name of await probe(op, meta, requiredQuery(meta))) read.add(name);
      }
      const undocumented = [...read].filter((name) => !docs.has(name)).sort();
      expect(undocumented, `${op.operationId} reads parameters its operation does not document`).toEqual(REFUSED[op.operationId] ?? []);
      for (const name of undocumented) {
        const meta = indicator ? INDICATORS[0] : undefined;
        const res = await send(op, meta, { ...requiredQuery(meta), [name]: PATH_VALUES.city! }).expect(400);
        expect(res.body.detail, `${op.operationId}: the 400 for ${name}`).toMatch(new RegExp(`leave out ${name}\\.`));
      }
      // And the other way: nothing documented that the handler never looks at.
      expect([...docs].filter((name) => !read.has(name)), `${op.operationId} documents parameters it ignores`).toEqual([]);
    }
  });

  it('documents the change against a baseline wherever an indicator is served', () => {
    for (const op of climateOperations().filter((o) => o.path.includes('{indicator_name}'))) {
      // A map is one period, its years or warming level: the indicator endpoints' windows as one span.
      const period = op.operationId === 'indicatorMap' ? ['years', 'warming_level'] : ['windows', 'time_aggregation'];
      for (const name of ['relative_to', 'change', ...period]) expect(documented(op).has(name), `${op.operationId} ${name}`).toBe(true);
    }
  });
});
