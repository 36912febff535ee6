import { randomBytes } from 'node:crypto';
import http from 'node:http';
import zlib from 'node:zlib';
import express from 'express';
import type { AddressInfo } from 'node:net';
import { tableFromIPC, type Table } from 'apache-arrow';
import request from 'supertest';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../src/app.js';
import { openBodyStream } from '../src/batch/bodyStream.js';
import { BuildProgress } from '../src/climate/buildProgress.js';
import { NotReadyError } from '../src/errors.js';
import { INDICATORS } from '../src/indicators/metadata.js';
import { datasetLacks } from '../src/reference/datasetVariables.js';
import { testApp, type TestApp } from './helpers.js';

/**
 * POST /api/climate-data/batch/...: each result's `data` is the single endpoint's, byte for byte;
 * the table formats carry the same rows; bodies and parameters are checked before any work; shared
 * cells are computed once; the throttle charges per distinct cell.
 */

const NYC = 5128581;
const RATES = { THROTTLE_BURST_RATE: '1000000/min', THROTTLE_SUSTAINED_RATE: '100000000/day' };
let t: TestApp;
const auth = (r: request.Test, app = t) => r.set('Authorization', `Token ${app.token}`);
const get = (url: string) => auth(request(t.app).get(url));
const post = (url: string, body: unknown, app = t) => auth(request(app.app).post(url), app).send(body as object);

type Place = { city: number } | { lat: number; lon: number };
/** One city per cell with data in the test build, NYC first, and a few places on and off its cells. */
let withData: number[];
let sharingNyc: number | undefined;
let nycCell: { lat: number; lon: number };
const NO_DATA_POINT = { lat: -45.1, lon: 170.2 };

beforeAll(async () => {
  t = await testApp(RATES);
  const cellOf = (id: number) => t.catalog.cityCells.get(id)?.get('NEX-GDDP');
  const onData = [...t.catalog.cityCells.keys()].filter((id) => {
    const c = cellOf(id);
    return c !== undefined && t.catalog.mapCells.has('NEX-GDDP', c);
  });
  const byCell = new Map<number, number>([[cellOf(NYC)!, NYC]]);
  for (const id of onData) if (!byCell.has(cellOf(id)!)) byCell.set(cellOf(id)!, id);
  withData = [...byCell.values()];
  const cell = t.catalog.mapCells.get('NEX-GDDP', cellOf(NYC)!)!;
  nycCell = { lat: cell.lat, lon: cell.lon };
  sharingNyc = onData.find((id) => id !== NYC && cellOf(id) === cellOf(NYC));
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** The single endpoint's path for a place. */
const singlePath = (p: Place, scenario: string, suffix: string) => ('city' in p ? `/api/climate-data/${p.city}/${scenario}/${suffix}` : `/api/climate-data/${p.lat}/${p.lon}/${scenario}/${suffix}`);

/** The map cell as GET /api/map-cell/ shows it for the place (a city: its coordinates). */
async function mapCellText(p: Place, dataset: string): Promise<string> {
  const at = 'city' in p ? t.catalog.cityById.get(p.city)! : p;
  const res = await get(`/api/map-cell/${at.lat}/${at.lon}/?distance=0`).expect(200);
  return JSON.stringify((res.body as unknown[]).find((f) => (f as { properties: { datasets: string[] } }).properties.datasets.includes(dataset)));
}

/** The single endpoint's answer split into what precedes `data` (without the place) and `data` itself, as text. */
async function single(p: Place, scenario: string, suffix: string, qs: string) {
  const res = await get(`${singlePath(p, scenario, suffix)}?${qs}`);
  if (res.status !== 200) return { status: res.status, detail: res.body.detail as string };
  const text = res.text;
  const placeEnd = text.indexOf(',"dataset":');
  const dataAt = text.indexOf(',"data":');
  return { status: 200, head: text.slice(placeEnd + 1, dataAt + 1), data: text.slice(dataAt + ',"data":'.length, -1) };
}

/** The batch answer the single endpoints imply, as text. */
async function expectedBatch(places: Place[], scenario: string, suffix: string, qs: string) {
  let head = '';
  const entries: string[] = [];
  for (const p of places) {
    const s = await single(p, scenario, suffix, qs);
    const location = JSON.stringify(p);
    if (s.status !== 200) {
      entries.push(`{"location":${location},"error":${JSON.stringify({ status: s.status, detail: s.detail })}}`);
      continue;
    }
    head = s.head!;
    const dataset = new URLSearchParams(qs).get('dataset') ?? 'NEX-GDDP';
    entries.push(`{"location":${location},"map_cell":${await mapCellText(p, dataset)},"data":${s.data}}`);
  }
  return { head, entries };
}

describe('batch results equal the single endpoints', () => {
  const cases = [
    { name: 'frost_days yearly', suffix: 'indicator/frost_days/', qs: '' },
    { name: 'max_high_temperature monthly, two models, median and 90th', suffix: 'indicator/max_high_temperature/', qs: 'time_aggregation=monthly&models=CCSM4,MIROC5&agg=median,90th&units=F' },
    { name: 'heat_wave_incidents quarterly', suffix: 'indicator/heat_wave_incidents/', qs: 'time_aggregation=quarterly' },
    { name: 'total_precipitation custom spans', suffix: 'indicator/total_precipitation/', qs: 'time_aggregation=custom&custom_time_agg=3-1:5-31,6-1:8-31' },
    { name: 'frost_days over multi-year windows', suffix: 'indicator/frost_days/', qs: 'time_aggregation=window&windows=2050:2051,2051:2052', scenario: 'RCP45' },
    { name: 'percentile_precipitation offset_yearly', suffix: 'indicator/percentile_precipitation/', qs: 'time_aggregation=offset_yearly&percentile=95' },
    { name: 'raw data, all models', suffix: '', qs: 'years=2051:2052' },
    { name: 'raw data, one model, agg max, two variables', suffix: '', qs: 'models=CCSM4&agg=max&variables=pr,tasmin' },
    // CMIP6 (the suite's build has it for New York City only: the other places answer their 404s).
    { name: 'frost_days on NEX-GDDP-CMIP6 ssp585', suffix: 'indicator/frost_days/', qs: 'dataset=NEX-GDDP-CMIP6&agg=median,90th', scenario: 'ssp585' },
    { name: 'raw data on LOCA2 ssp245', suffix: '', qs: 'dataset=LOCA2&years=2051', scenario: 'ssp245' },
  ];
  for (const c of cases) {
    it(`JSON, byte for byte: ${c.name}`, async () => {
      const scenario = c.scenario ?? 'RCP85';
      const places: Place[] = [{ city: withData[1]! }, { city: NYC }, nycCell, { city: 999999999 }, NO_DATA_POINT, { city: withData[2]! }, { city: NYC }];
      const { head, entries } = await expectedBatch(places, scenario, c.suffix, c.qs);
      const res = await post(`/api/climate-data/batch/${scenario}/${c.suffix}?${c.qs}`, { locations: places }).expect(200).expect('Content-Type', /application\/json/);
      expect(res.text).toBe(`{${head}"results":[${entries.join(',')}]}`);
      // The place errors are the single endpoints' 404s.
      expect(res.body.results[3].error).toEqual({ status: 404, detail: `City 999999999 does not exist.` });
      expect(res.body.results[4].error.status).toBe(404);
    });
  }

  it('NDJSON: one result per line, the JSON answer\'s entries', async () => {
    const places: Place[] = [{ city: NYC }, { city: 1 }, { city: withData[1]! }];
    const qs = 'time_aggregation=monthly';
    const { entries } = await expectedBatch(places, 'RCP85', 'indicator/frost_days/', qs);
    const res = await post(`/api/climate-data/batch/RCP85/indicator/frost_days/?${qs}`, { locations: places }).set('Accept', 'application/x-ndjson').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
    expect(res.text).toBe(entries.map((e) => e + '\n').join(''));
  });

  it('NDJSON, compressed: sends the first line before the last location is computed', async () => {
    const server = http.createServer(t.app).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const port = (server.address() as AddressInfo).port;
    // Every query after the first waits until the first line has arrived.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const run = t.queries.run.bind(t.queries);
    let calls = 0;
    vi.spyOn(t.queries, 'run').mockImplementation(async (work) => {
      if (calls++ > 0) await gate;
      return run(work);
    });
    try {
      const places = withData.slice(0, 3).map((city) => ({ city }));
      const res = await fetch(`http://127.0.0.1:${port}/api/climate-data/batch/RCP85/indicator/frost_days/`, {
        method: 'POST',
        headers: { Authorization: `Token ${t.token}`, 'Content-Type': 'application/json', Accept: 'application/x-ndjson', 'Accept-Encoding': 'gzip' },
        body: JSON.stringify({ locations: places }),
      });
      expect(res.headers.get('content-encoding')).toBe('gzip');
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      const timeout = setTimeout(() => release(), 10_000);
      while (!text.includes('\n')) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      const firstLineEarly = calls <= 3 && !text.slice(text.indexOf('\n') + 1).includes('\n');
      clearTimeout(timeout);
      release();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      expect(firstLineEarly).toBe(true);
      const lines = text.trim().split('\n').map((l) => JSON.parse(l) as { location: Place; data: unknown });
      expect(lines.map((l) => l.location)).toEqual(places);
    } finally {
      release();
      server.close();
    }
  });
});

describe('a batch body streamed to a slow client', () => {
  it('waits for the client without piling listeners on the response', async () => {
    // Each wait for 'drain' used to leave a 'close' listener on the response until it ended.
    let leftover = -1;
    const app = express();
    app.get('/', async (_req, res) => {
      res.type('text/plain');
      const body = openBodyStream(res);
      const piece = randomBytes(48 * 1024).toString('base64'); // 64 KB that gzip cannot shrink much
      for (let i = 0; i < 80; i++) await body.write(piece);
      leftover = res.listenerCount('close');
      await body.end();
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const received = await new Promise<number>((resolve, reject) => {
        http.get(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { headers: { 'Accept-Encoding': 'gzip' } }, (res) => {
          expect(res.headers['content-encoding']).toBe('gzip');
          // Not read for a while: the socket and the compressor fill, and every write waits.
          res.pause();
          setTimeout(() => res.resume(), 300);
          const unzip = res.pipe(zlib.createGunzip());
          let n = 0;
          unzip.on('data', (c: Buffer) => (n += c.length));
          unzip.on('end', () => resolve(n));
          unzip.on('error', reject);
        }).on('error', reject);
      });
      expect(received).toBe(80 * 64 * 1024);
      expect(leftover).toBeGreaterThanOrEqual(0);
      expect(leftover).toBeLessThan(5);
    } finally {
      server.close();
    }
  });
});

/** Arrow rows as plain objects. */
const arrowRows = (table: Table) => table.toArray().map((r) => r.toJSON() as Record<string, unknown>);
const bytes = (req: request.Test) =>
  req.buffer(true).parse((res, done) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => done(null, Buffer.concat(chunks)));
  });

describe('batch tables', () => {
  const tablePlaces = (): Place[] => [{ city: NYC }, NO_DATA_POINT, nycCell, { city: withData[1]! }];
  const lead = (p: Place) => ('city' in p ? `${p.city},,` : `,${p.lat},${p.lon}`);

  for (const c of [
    { name: 'indicator', suffix: 'indicator/frost_days/', qs: 'time_aggregation=quarterly&agg=avg,95th' },
    { name: 'raw data', suffix: '', qs: 'years=2052&variables=tasmax,pr&models=CCSM4' },
  ]) {
    it(`CSV: the single CSVs' rows after the place columns (${c.name})`, async () => {
      const places = tablePlaces();
      let header = '';
      let want = '';
      for (const p of places) {
        const res = await get(`${singlePath(p, 'RCP85', c.suffix)}?${c.qs}&format=csv`);
        if (res.status !== 200) continue;
        const lines = res.text.split(/(?<=\n)/);
        header = `city,lat,lon,${lines[0]}`;
        want += lines.slice(1).map((l) => `${lead(p)},${l}`).join('');
      }
      const res = await post(`/api/climate-data/batch/RCP85/${c.suffix}?${c.qs}&format=csv`, { locations: places }).expect(200).expect('Content-Type', /text\/csv/);
      expect(res.headers['content-disposition']).toMatch(/^attachment; filename="climate-data_batch_RCP85_NEX-GDDP.*\.csv"$/);
      expect(res.text).toBe(header + want);
    });

    it(`Arrow: the single tables' rows after the place columns (${c.name})`, async () => {
      const places = tablePlaces();
      const want: Record<string, unknown>[] = [];
      for (const p of places) {
        const res = await bytes(get(`${singlePath(p, 'RCP85', c.suffix)}?${c.qs}&format=arrow`));
        if (res.status !== 200) continue;
        const table = tableFromIPC(res.body as Buffer);
        const location = table.schema.metadata.get('location');
        for (const r of arrowRows(table)) want.push({ city: 'city' in p ? p.city : null, lat: 'lat' in p ? p.lat : null, lon: 'lon' in p ? p.lon : null, location, ...r });
      }
      const res = await bytes(post(`/api/climate-data/batch/RCP85/${c.suffix}?${c.qs}`, { locations: places }).set('Accept', 'application/vnd.apache.arrow.stream')).expect(200);
      const table = tableFromIPC(res.body as Buffer);
      expect(table.schema.fields.slice(0, 4).map((f) => f.name)).toEqual(['city', 'lat', 'lon', 'location']);
      expect(table.schema.metadata.get('scenario')).toBe('RCP85');
      expect(want.length).toBeGreaterThan(0);
      expect(arrowRows(table)).toEqual(want);
    });
  }
});

describe('bad requests fail the whole batch', () => {
  const URL = '/api/climate-data/batch/RCP85/indicator/frost_days/';
  const bad = async (body: unknown, detail: RegExp, url = URL, status = 400) => {
    const res = await post(url, body);
    expect(res.status, JSON.stringify(body)).toBe(status);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.body.detail).toMatch(detail);
  };

  it('a body that is not JSON, not an object, or has no or bad locations', async () => {
    const res = await auth(request(t.app).post(URL)).set('Content-Type', 'application/json').send('{"locations": [');
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe('Malformed request body: it is not valid JSON.');
    const plain = await auth(request(t.app).post(URL)).set('Content-Type', 'text/plain').send('{"locations": []}');
    expect(plain.status).toBe(400);
    expect(plain.body.detail).toMatch(/Content-Type: application\/json/);
    await bad([{ city: NYC }], /must be a JSON object/);
    await bad({}, /^locations is required/);
    await bad({ locations: { city: NYC } }, /^locations must be a list/);
    await bad({ locations: [] }, /^locations must hold 1 to 1000 locations; it is empty/);
    await bad({ locations: [{ city: NYC }], extra: 1 }, /takes only the field locations; got "extra"/);
    await bad({ locations: [{ city: NYC }, { city: NYC, lat: 40.7, lon: -74 }] }, /^locations\[1\] gives both a city and lat\/lon/);
    await bad({ locations: [{ lat: '40.7', lon: -74 }] }, /^locations\[0\]\.lat must be a number between -90 and 90; got the string "40.7"/);
    await bad({ locations: [{ lat: 40.7, lon: 200 }] }, /^locations\[0\]\.lon must be a number between -180 and 180; got number 200/);
    await bad({ locations: [{ lat: 40.7 }] }, /^locations\[0\] needs both lat and lon/);
    await bad({ locations: [{ city: '5128581' }] }, /^locations\[0\]\.city must be a positive integer city id/);
    await bad({ locations: [{ city: 1.5 }] }, /^locations\[0\]\.city must be a positive integer/);
    await bad({ locations: [null] }, /^locations\[0\] must be an object/);
    await bad({ locations: [{ town: 'x' }] }, /^locations\[0\] has unknown field\(s\) "town"/);
  });

  it('more locations than MAX_BATCH_LOCATIONS, and a body over the size limit', async () => {
    const small = await testApp({ ...RATES, MAX_BATCH_LOCATIONS: '3' });
    const res = await post(URL, { locations: Array.from({ length: 4 }, () => ({ city: NYC })) }, small);
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe('locations must hold 1 to 3 locations; it has 4. Split the batch.');
    await bad({ locations: Array.from({ length: 1001 }, () => ({ city: NYC })) }, /it has 1001/);
    const huge = await post(URL, { locations: Array.from({ length: 20_000 }, () => ({ lat: 40.123456789, lon: -74.123456789 })) });
    expect(huge.status).toBe(413);
    expect(huge.body.detail).toMatch(/^The request body is over 256 KB/);
  });

  it('bad parameters: a 400 naming the parameter, unknown scenario or indicator a 404', async () => {
    const body = { locations: [{ city: NYC }] };
    await bad(body, /^years accepts/, `${URL}?years=20x0`);
    await bad(body, /^agg accepts/, `${URL}?agg=mean`);
    await bad(body, /^time_aggregation /, `${URL}?time_aggregation=weekly`);
    await bad(body, /^Dataset NOPE does not exist/, `${URL}?dataset=NOPE`);
    await bad(body, /^format must be one of json, csv, arrow/, `${URL}?format=xml`);
    await bad(body, /^distance must be a number >= 0/, `${URL}?distance=-1`);
    await bad(body, /^variables accepts/, '/api/climate-data/batch/RCP85/?variables=rh');
    await bad(body, /^Indicator nope does not exist\.$/, '/api/climate-data/batch/RCP85/indicator/nope/', 404);
    await bad(body, /^Scenario RCP99 does not exist\.$/, '/api/climate-data/batch/RCP99/', 404);
  });

  it('the model-years bound applies per cell', async () => {
    const small = await testApp({ ...RATES, MAX_MODEL_YEARS: '5' });
    const res = await post('/api/climate-data/batch/RCP85/indicator/frost_days/', { locations: [{ city: NYC }] }, small);
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/^This request covers 3 years x \d+ models = \d+ model-years; the limit is 5\./);
  });

  it('other methods on a batch path are 405 naming POST', async () => {
    const res = await auth(request(t.app).put(URL)).send({});
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST, OPTIONS');
  });
});

describe('shared cells are computed once', () => {
  it('each distinct cell once, however many places share it', async () => {
    expect(sharingNyc, 'the test build has two cities on one cell').toBeDefined();
    const spy = vi.spyOn(t.queries, 'run');
    const groups = vi.spyOn(t.queries, 'groups');
    const places: Place[] = [{ city: NYC }, nycCell, { city: sharingNyc! }, { city: NYC }, { city: withData[1]! }, { lat: nycCell.lat + 0.01, lon: nycCell.lon - 0.01 }];
    const res = await post('/api/climate-data/batch/RCP85/indicator/frost_days/', { locations: places }).expect(200);
    const cellOf = (id: number) => t.catalog.cityCells.get(id)!.get('NEX-GDDP')!;
    expect(groups).toHaveBeenCalledTimes(1);
    expect(groups.mock.calls[0]![0]).toEqual([cellOf(NYC), cellOf(withData[1]!)]);
    // A statement per group of cells.
    expect(spy).toHaveBeenCalledTimes((groups.mock.results[0]!.value as number[][]).length);
    const data = (res.body.results as { data: unknown }[]).map((r) => JSON.stringify(r.data));
    expect(new Set([data[0], data[1], data[2], data[3], data[5]]).size).toBe(1);
    expect(data[4]).not.toBe(data[0]);
  });
});

describe('throttle: one request per BATCH_CELLS_PER_REQUEST distinct cells', () => {
  const URL = '/api/climate-data/batch/RCP85/indicator/frost_days/';
  const single = (app: TestApp) => auth(request(app.app).get(`/api/climate-data/${NYC}/RCP85/indicator/frost_days/`), app);

  it('charges ceil(cells / BATCH_CELLS_PER_REQUEST), at least 1, against the same budget as single requests', async () => {
    const a = await testApp({ THROTTLE_BURST_RATE: '4/min', BATCH_CELLS_PER_REQUEST: '2' });
    // 3 distinct cells (NYC twice) -> 2 requests' worth.
    await post(URL, { locations: withData.slice(0, 3).map((city) => ({ city })).concat([{ city: NYC }]) }, a).expect(200);
    // No cell at all still counts once.
    await post(URL, { locations: [NO_DATA_POINT] }, a).expect(200);
    await single(a).expect(200);
    const refused = await single(a).expect(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('a batch over the remaining budget gets 429 with Retry-After and is charged nothing', async () => {
    const a = await testApp({ THROTTLE_BURST_RATE: '3/min', BATCH_CELLS_PER_REQUEST: '1' });
    await single(a).expect(200);
    const refused = await post(URL, { locations: withData.slice(0, 3).map((city) => ({ city })) }, a);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.body.detail).toMatch(/^Request was throttled\. Expected available in \d+ seconds?\.$/);
    // The refused batch took nothing: two more requests fit.
    await single(a).expect(200);
    await single(a).expect(200);
    await single(a).expect(429);
  });

  it('a batch larger than the whole rate says so', async () => {
    const a = await testApp({ THROTTLE_BURST_RATE: '2/min', BATCH_CELLS_PER_REQUEST: '1' });
    const refused = await post(URL, { locations: withData.slice(0, 3).map((city) => ({ city })) }, a);
    expect(refused.status).toBe(429);
    expect(refused.body.detail).toBe("This request counts as 3 requests, more than the account's rate of 2/min allows at all; send fewer distinct map cells per request.");
    await single(a).expect(200);
  });

  it('does not charge cells still being built; their locations get 503 entries', async () => {
    const a = await testApp({ THROTTLE_BURST_RATE: '2/min', BATCH_CELLS_PER_REQUEST: '1' });
    const building = a.catalog.cityCells.get(NYC)!.get('NEX-GDDP')!;
    /** A build whose NYC cell is not written yet. */
    class Partial extends BuildProgress {
      override cellReady(dataset: string, cellId: number) {
        return cellId !== building && super.cellReady(dataset, cellId);
      }
      override requireCell(dataset: string, cellId: number) {
        if (!this.cellReady(dataset, cellId)) throw new NotReadyError('building', 'This map cell is not built yet.', 5);
      }
    }
    const app = createApp({ config: a.config, catalog: a.catalog, queries: a.queries, auth: a.auth, throttleStores: a.throttleStores, progress: new Partial(a.catalog.dataDir) });
    const partial = { ...a, app };
    const res = await post(URL, { locations: [{ city: NYC }, { city: withData[1]! }] }, partial).expect(200);
    expect(res.body.results[0].error).toEqual({ status: 503, detail: 'This map cell is not built yet.' });
    expect(res.body.results[1].data).toBeDefined();
    // One cell charged of 2/min: one more request fits, then none.
    await single(partial).expect(503);
    await auth(request(app).get(`/api/climate-data/${withData[1]}/RCP85/indicator/frost_days/`), partial).expect(200);
    await auth(request(app).get(`/api/climate-data/${withData[1]}/RCP85/indicator/frost_days/`), partial).expect(429);
  });
});

/**
 * With one pooled connection, a batch's cells are one statement (QueryPool.groups): every step of
 * the templates keeps each cell's rows apart, its historic baseline included (relative_to, which
 * needs more historical years than this build has, is in indicator-change.test.ts).
 */
describe('many cells in one statement', () => {
  let one: TestApp;
  beforeAll(async () => {
    one = await testApp({ ...RATES, QUERY_CONCURRENCY: '1' });
  });
  const params = (meta: (typeof INDICATORS)[number]) => {
    const has = (p: string) => meta.parameters.some((x) => x.name === p);
    const q: string[] = [];
    const threshold = { pr: 'threshold=1&threshold_units=mm/day&threshold_comparator=gte', tasmax: 'threshold=85&threshold_units=F&threshold_comparator=gt', tasmin: 'threshold=28&threshold_units=F&threshold_comparator=lt' };
    if (has('threshold')) q.push(threshold[meta.variables[0] as keyof typeof threshold]);
    if (has('percentile')) q.push('percentile=90');
    return q.join('&');
  };
  const cases: [string, string][] = [
    // On NEX-GDDP: the humid-heat indicators, which need NEX-GDDP-CMIP6's humidity, have their batch test in humid-heat.test.ts.
    ...INDICATORS.filter((meta) => datasetLacks('NEX-GDDP', meta.variables).length === 0).map((meta): [string, string] => [meta.name, `years=2050:2060&${params(meta)}`]),
    ['heat_wave_incidents', 'time_aggregation=monthly&years=2051'],
    ['extreme_heat_events', 'time_aggregation=offset_yearly&historic_range=1961'],
    ['dry_spells', 'time_aggregation=custom&custom_time_agg=6-1:9-30'],
    ['heat_wave_duration_index', 'time_aggregation=custom&custom_time_agg=6-1:8-31'],
    ['accumulated_freezing_degree_days', 'time_aggregation=offset_yearly'],
    ['cooling_degree_days', 'time_aggregation=window&windows=2050:2051,2051:2052&basetemp=70&basetemp_units=F'],
    ['frost_days', 'time_aggregation=quarterly&models=CCSM4,MIROC5&agg=median,90th'],
  ];
  it.each(cases)('%s (%s): each cell gets its single answer', async (name, qs) => {
    const places: Place[] = withData.map((city) => ({ city }));
    expect(places.length, 'the test build has three cells with data at least').toBeGreaterThanOrEqual(3);
    const singles: string[] = [];
    for (const p of places) {
      const res = await auth(request(one.app).get(`${singlePath(p, 'RCP85', `indicator/${name}/`)}?${qs}`), one);
      expect(res.status, res.text).toBe(200);
      singles.push(res.text.slice(res.text.indexOf(',"data":') + ',"data":'.length, -1));
    }
    expect(new Set(singles).size, 'the cells answer differently').toBe(places.length);
    const runs = vi.spyOn(one.queries, 'run');
    const res = await post(`/api/climate-data/batch/RCP85/indicator/${name}/?${qs}`, { locations: places }, one).expect(200);
    expect(runs).toHaveBeenCalledTimes(1);
    expect(res.body.results).toHaveLength(places.length);
    // Each entry ends with its data, byte for byte the single answer's.
    const entries = res.text.split(',"data":').slice(1);
    places.forEach((_, i) => expect(entries[i]!.startsWith(`${singles[i]!}}`), `cell ${i}`).toBe(true));
  });
});

