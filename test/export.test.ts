import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { listValue } from '@duckdb/node-api';
import h5wasm from 'h5wasm/node';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDuckDB } from '../src/db/duckdb.js';
import { hashPassword } from '../src/auth/passwords.js';
import { openExportEngine } from '../src/export/exportEngine.js';
import type { LocalExports } from '../src/export/exportJobs.js';
import { runExport } from '../src/export/exportRunner.js';
import { ExportStore, newExportId } from '../src/export/exportStore.js';
import { modelsLacking } from '../src/reference/datasetVariables.js';
import { tempExportDir, testApp, type TestApp } from './helpers.js';

/**
 * Export jobs in the server process: the request checks (400/404 before anything runs), the files
 * of each format read back with readers of their own (h5wasm's HDF5 reading for NetCDF-4, DuckDB
 * for Parquet, csv-parse for CSV) and compared, value by value, with what the raw and indicator
 * endpoints answer for the same cell, model and day or period; the file download (ETag, Range,
 * Content-Disposition); ownership; the limits; expiry.
 */

const THROTTLE = { THROTTLE_BURST_RATE: '100000/min', THROTTLE_SUSTAINED_RATE: '1000000/day' };
const DATASET = 'NEX-GDDP-CMIP6';
const MODELS = ['ACCESS-CM2', 'CanESM5', 'UKESM1-0-LL'];
/** Two of New York City's cells (0.25 degrees) and a bit of a third row. */
const BBOX = '-74.25,40.5,-73.75,40.75';
const NYC = 5128581;

let t: TestApp;
let dir: string;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'export-test-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

beforeAll(async () => {
  dir = tempExportDir();
  t = await testApp({ ...THROTTLE, EXPORT_DIR: dir });
  await h5wasm.ready;
});

const auth = (token = t.token) => ({ Authorization: `Token ${token}` });
/** For the tests that start apps of their own or compare thousands of values: a shared, loaded machine is slow. */
const LONG = 120_000;

type Job = { id: string; status: string; progress: number; files: { name: string; url: string; bytes: number; sha256: string; dataset: string; scenario: string | null }[]; error: string | null; expires_at: string; values: number };

async function finished(app: TestApp, id: string): Promise<Job> {
  for (;;) {
    const job = (await request(app.app).get(`/api/export/${id}/`).set(auth(app.token)).expect(200)).body as Job;
    if (job.status !== 'queued' && job.status !== 'running') return job;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function exported(body: object, app = t): Promise<Job> {
  const res = await request(app.app).post('/api/export/').set(auth(app.token)).send(body);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  expect(res.headers.location).toBe(`/api/export/${res.body.id}/`);
  expect(res.body).toEqual({ id: res.body.id, status: 'queued', url: `/api/export/${res.body.id}/` });
  const job = await finished(app, res.body.id);
  expect(job.status, job.error ?? '').toBe('done');
  return job;
}

async function download(url: string, app = t): Promise<{ file: string; bytes: Buffer; headers: Record<string, string> }> {
  const res = await request(app.app)
    .get(url)
    .set(auth(app.token))
    .buffer(true)
    .parse((r, cb) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => cb(null, Buffer.concat(chunks)));
    })
    .expect(200);
  const file = path.join(tmp, `${createHash('sha1').update(url).digest('hex')}-${path.basename(url)}`);
  fs.writeFileSync(file, res.body as Buffer);
  return { file, bytes: res.body as Buffer, headers: res.headers as Record<string, string> };
}

/** A model's raw daily values at a point, from the raw endpoint asked for that model alone: date -> value. */
async function rawByDate(lat: number, lon: number, scenario: string, model: string, variable: string, years: string): Promise<Map<string, number>> {
  const res = await request(t.app).get(`/api/climate-data/${lat}/${lon}/${scenario}/?dataset=${DATASET}&models=${model}&variables=${variable}&years=${years}`).set(auth()).expect(200);
  const out = new Map<string, number>();
  for (const [year, vars] of Object.entries(res.body.data as Record<string, Record<string, (number | null)[]>>)) {
    const base = Date.UTC(Number(year), 0, 1);
    vars[variable]!.forEach((v, slot) => {
      if (v !== null) out.set(new Date(base + slot * 86_400_000).toISOString().slice(0, 10), v);
    });
  }
  return out;
}

/** A model's indicator values at a point, from the indicator endpoint asked for that model alone: period -> value. */
async function indicatorByPeriod(lat: number, lon: number, scenario: string, model: string, name: string, params: string): Promise<Map<string, number | null>> {
  const res = await request(t.app).get(`/api/climate-data/${lat}/${lon}/${scenario}/indicator/${name}/?dataset=${DATASET}&models=${model}&agg=avg${params}`).set(auth()).expect(200);
  return new Map(Object.entries(res.body.data as Record<string, { avg: number | null }>).map(([p, s]) => [p, s.avg]));
}

const dateOf = (days: number) => new Date(Date.UTC(1950, 0, 1) + days * 86_400_000).toISOString().slice(0, 10);

describe('POST /api/export/ checks the request before anything runs', () => {
  const base = { dataset: DATASET, scenarios: ['ssp245'], models: MODELS, years: '2050:2051', variables: ['tasmax'], area: { bbox: BBOX }, format: 'parquet' };
  const cases: [string, object, number, RegExp][] = [
    ['not an object', [1], 400, /must be a JSON object/],
    ['no scenarios', { ...base, scenarios: undefined }, 400, /^scenarios: /],
    ['variables and indicators', { ...base, indicators: [{ name: 'frost_days' }] }, 400, /exactly one of variables .* or indicators/],
    ['neither area nor locations', { ...base, area: undefined }, 400, /exactly one of area or locations/],
    ['a bad format', { ...base, format: 'zarr' }, 400, /format must be one of netcdf, parquet, csv/],
    ['an unknown field', { ...base, colour: 'red' }, 400, /unknown field\(s\) "colour"/],
    ['an unknown dataset', { ...base, dataset: 'CMIP9' }, 400, /dataset CMIP9 does not exist/],
    ['an unknown scenario', { ...base, scenarios: ['ssp999'] }, 404, /Scenario ssp999 does not exist/],
    ['a scenario of another dataset', { ...base, scenarios: ['RCP85'] }, 400, /has no scenario RCP85/],
    ['an unknown model', { ...base, models: ['NOPE'] }, 400, /no data for model\(s\): NOPE/],
    ['bad years', { ...base, years: '2050-2051' }, 400, /years accepts/],
    ['years outside the scenario', { ...base, scenarios: ['historical'], years: '2050:2051' }, 400, /^years 2050:2051 holds no year of historical \(1990-1992\) in NEX-GDDP-CMIP6/],
    ['years outside every scenario', { ...base, scenarios: ['historical', 'ssp245'], years: '2070:2071' }, 400, /^years 2070:2071 holds no year of historical \(1990-1992\), ssp245 \(2050-2052\) in NEX-GDDP-CMIP6\. .*\{"historical": "1985:2014", "ssp245": "2040:2069"\}/],
    ['years per scenario naming another', { ...base, years: { ssp245: '2050', ssp126: '2050' } }, 400, /^years has "ssp126", which is not one of scenarios \(ssp245\)/],
    ['a bad range of a scenario', { ...base, years: { ssp245: '2051:2050' } }, 400, /^years\.ssp245: years accepts .*got '2051:2050'/],
    ['years of a scenario outside it', { ...base, scenarios: ['historical', 'ssp245'], years: { historical: '2050', ssp245: '2050' } }, 400, /^years\.historical 2050 holds no year of historical in NEX-GDDP-CMIP6 \(1990-1992\)/],
    ['years neither text nor per scenario', { ...base, years: 2050 }, 400, /^years: /],
    ['a model named without data here', { ...base, models: ['ACCESS-CM2', 'MIROC6'] }, 400, /^models: MIROC6 has no ssp245 data for these places in this data build; models with data: ACCESS-CM2, CanESM5, UKESM1-0-LL\./],
    ['an unknown variable', { ...base, variables: ['snow'] }, 400, /variables accepts/],
    ['a variable the dataset lacks', { ...base, dataset: 'NEX-GDDP', scenarios: ['RCP85'], models: undefined, variables: ['tasmax', 'hurs'] }, 400, /^Dataset NEX-GDDP has no hurs, which variables asks for/],
    ['an unknown indicator', { ...base, variables: undefined, indicators: [{ name: 'snow_days' }] }, 404, /Indicator snow_days does not exist/],
    ['agg in an indicator', { ...base, variables: undefined, indicators: [{ name: 'frost_days', agg: 'max' }] }, 400, /indicators\[0\]\.agg: an export holds every model's value/],
    ['an unknown indicator parameter', { ...base, variables: undefined, indicators: [{ name: 'frost_days', colour: 1 }] }, 400, /indicators\[0\] has an unknown parameter "colour"/],
    ['a bad indicator parameter', { ...base, variables: undefined, indicators: [{ name: 'frost_days', time_aggregation: 'weekly' }] }, 400, /^indicators\[0\] \(frost_days, ssp245\): time_aggregation must be one of/],
    ['a missing threshold', { ...base, variables: undefined, indicators: [{ name: 'max_temperature_threshold' }] }, 400, /indicators\[0\] \(max_temperature_threshold, ssp245\): threshold is required/],
    ['a bad bbox', { ...base, area: { bbox: '1,2,3' } }, 400, /^area: /],
    ['two kinds of area', { ...base, area: { bbox: BBOX, city: NYC } }, 400, /area must be exactly one of/],
    ['a bad location', { ...base, area: undefined, locations: [{ lat: 100, lon: 0 }] }, 400, /^locations\[0\]\.lat must be a number between -90 and 90; got number 100/],
    ['a place without data', { ...base, area: undefined, locations: [{ city: NYC }, { lat: -45, lon: 170 }] }, 404, /^locations\[1\]: No NEX-GDDP-CMIP6 data available/],
    ['an area without data', { ...base, area: { bbox: '170,-46,171,-45' } }, 404, /No NEX-GDDP-CMIP6 data for this area/],
  ];
  it.each(cases)('%s: %i', async (_name, body, status, detail) => {
    const res = await request(t.app).post('/api/export/').set(auth()).send(body);
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body.detail).toMatch(detail);
  });

  it('refused requests leave no job; a request needs a token', async () => {
    // The cases above are this file's first requests: none of them left a job.
    expect((await request(t.app).get('/api/export/').set(auth()).expect(200)).body.results).toEqual([]);
    expect(fs.existsSync(path.join(dir, 'jobs')) ? fs.readdirSync(path.join(dir, 'jobs')) : []).toEqual([]);
    await request(t.app).post('/api/export/').send(base).expect(401);
    await request(t.app).get('/api/export/').expect(401);
  });
});

describe('files equal the endpoints', { timeout: LONG }, () => {
  it('NetCDF of an area: tasmax(model, time, lat, lon), CF attributes, values of every cell, model and day as the raw endpoint answers them', async () => {
    const job = await exported({ dataset: DATASET, scenarios: ['ssp245'], models: MODELS, years: '2052', variables: ['tasmax', 'pr'], area: { bbox: BBOX }, format: 'netcdf' });
    expect(job.files.map((f) => f.name)).toEqual(['NEX-GDDP-CMIP6_ssp245_tasmax-pr.nc']);
    const { file, bytes } = await download(job.files[0]!.url);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(job.files[0]!.sha256);
    expect(bytes.length).toBe(job.files[0]!.bytes);

    // Read with the HDF5 library's own reading: names, attributes, dimension scales, values.
    const f = new h5wasm.File(file, 'r');
    try {
      const attr = (o: { attrs: Record<string, { value: unknown }> }, name: string) => o.attrs[name]?.value;
      expect(attr(f, 'Conventions')).toBe('CF-1.8');
      expect(String(attr(f, 'source'))).toContain('NEX-GDDP-CMIP6');
      expect(String(attr(f, 'history'))).toContain('"variables":["tasmax","pr"]');
      expect(String(attr(f, 'comment'))).toMatch(/synthetic/);
      expect(attr(f, 'license')).toBeTruthy();
      const ds = (name: string) => f.get(name) as InstanceType<typeof h5wasm.Dataset>;
      const models = ds('model').value as string[];
      const lats = Array.from(ds('lat').value as Float64Array);
      const lons = Array.from(ds('lon').value as Float64Array);
      const time = Array.from(ds('time').value as Float64Array);
      expect(models).toEqual(MODELS);
      expect(time).toHaveLength(366);
      expect(dateOf(time[0]!)).toBe('2052-01-01');
      expect(attr(ds('time'), 'units')).toBe('days since 1950-01-01');
      expect(attr(ds('time'), 'calendar')).toBe('proleptic_gregorian');
      expect(attr(ds('lat'), 'units')).toBe('degrees_north');
      const tasmax = ds('tasmax');
      expect(tasmax.shape).toEqual([3, 366, lats.length, lons.length]);
      expect(tasmax.get_attached_scales(0)).toEqual(['/model']);
      expect(tasmax.get_attached_scales(1)).toEqual(['/time']);
      expect(attr(tasmax, 'units')).toBe('K');
      expect(attr(tasmax, 'standard_name')).toBe('air_temperature');
      expect(attr(tasmax, 'long_name')).toBeTruthy();
      const fill = (attr(tasmax, '_FillValue') as Float32Array | number[])[0] ?? attr(tasmax, '_FillValue');
      expect(Number(fill)).toBe(1e20 === Math.fround(1e20) ? 1e20 : Math.fround(1e20));
      expect(attr(ds('pr'), 'units')).toBe('kg m-2 s-1');
      const values = tasmax.value as Float32Array;
      let compared = 0;
      let missing = 0;
      for (let y = 0; y < lats.length; y++) {
        for (let x = 0; x < lons.length; x++) {
          for (const [m, model] of models.entries()) {
            const want = await rawByDate(lats[y]!, lons[x]!, 'ssp245', model, 'tasmax', '2052');
            for (let k = 0; k < time.length; k++) {
              const got = values[((m * time.length + k) * lats.length + y) * lons.length + x]!;
              const expected = want.get(dateOf(time[k]!));
              if (expected === undefined) {
                expect(got).toBe(Math.fround(1e20));
                missing++;
              } else {
                expect(got).toBe(Math.fround(expected));
                compared++;
              }
            }
          }
        }
      }
      // In each cell with data: ACCESS-CM2 every day of 2052, CanESM5 (noleap) all but Feb 29,
      // UKESM1-0-LL (360_day) all but 6 dates of a leap year.
      expect(compared % (366 + 365 + 360)).toBe(0);
      expect(compared).toBeGreaterThanOrEqual(2 * (366 + 365 + 360));
      expect(missing).toBeGreaterThanOrEqual(7 * lats.length * lons.length);
    } finally {
      f.close();
    }
  });

  it('NetCDF of places: tasmax(model, location, time) with lat, lon, city_id and name; one file per scenario', async () => {
    const locations = [{ city: NYC }, { lat: 40.7, lon: -74.1 }];
    const job = await exported({ dataset: DATASET, scenarios: ['historical', 'ssp245'], models: ['CanESM5'], years: '1990,1992,2050', variables: ['tasmax'], locations, format: 'netcdf' });
    expect(job.files.map((f) => f.name)).toEqual(['NEX-GDDP-CMIP6_historical_tasmax.nc', 'NEX-GDDP-CMIP6_ssp245_tasmax.nc']);
    for (const [i, scenario] of ['historical', 'ssp245'].entries()) {
      const { file } = await download(job.files[i]!.url);
      const f = new h5wasm.File(file, 'r');
      try {
        const ds = (name: string) => f.get(name) as InstanceType<typeof h5wasm.Dataset>;
        expect(ds('location').value).toEqual(['city/5128581', 'point/40.7,-74.1']);
        expect(Array.from(ds('city_id').value as Int32Array)).toEqual([NYC, -1]);
        expect((ds('name').value as string[])[0]).toMatch(/^New York City/);
        const lats = Array.from(ds('lat').value as Float64Array);
        const lons = Array.from(ds('lon').value as Float64Array);
        const time = Array.from(ds('time').value as Float64Array);
        const tasmax = ds('tasmax');
        expect(tasmax.shape).toEqual([1, 2, time.length]);
        expect(String(tasmax.attrs.coordinates?.value)).toBe('lat lon city_id cell_id name');
        const values = tasmax.value as Float32Array;
        for (let p = 0; p < 2; p++) {
          // Historical's years have a gap: its file holds 1990 and 1992, not 1991.
          const want = await rawByDate(lats[p]!, lons[p]!, scenario, 'CanESM5', 'tasmax', scenario === 'historical' ? '1990,1992' : '2050');
          time.forEach((d, k) => {
            const expected = want.get(dateOf(d));
            expect(values[p * time.length + k]).toBe(expected === undefined ? Math.fround(1e20) : Math.fround(expected));
          });
          expect(want.size).toBe(scenario === 'historical' ? 2 * 365 : 365);
        }
        expect(time).toHaveLength(scenario === 'historical' ? 366 + 365 : 365);
      } finally {
        f.close();
      }
    }
  });

  it('Parquet of an area: long form, typed, zstd; every value as the raw endpoint answers it', async () => {
    const job = await exported({ dataset: DATASET, scenarios: ['ssp245'], models: MODELS, years: '2050,2052', variables: ['tasmax', 'pr'], area: { bbox: BBOX }, format: 'parquet' });
    const { file } = await download(job.files[0]!.url);
    const db = await openDuckDB({ threads: 1, memoryLimit: '256MB' });
    const conn = await db.connect();
    try {
      const schema = (await conn.runAndReadAll(`SELECT name, type FROM parquet_schema($file) WHERE name <> 'duckdb_schema'`, { file })).getRowsJS();
      expect(schema).toEqual([['dataset', 'BYTE_ARRAY'], ['scenario', 'BYTE_ARRAY'], ['model', 'BYTE_ARRAY'], ['cell_id', 'INT32'], ['lat', 'DOUBLE'], ['lon', 'DOUBLE'], ['date', 'INT32'], ['variable', 'BYTE_ARRAY'], ['value', 'FLOAT']]);
      const codecs = (await conn.runAndReadAll(`SELECT DISTINCT compression FROM parquet_metadata($file)`, { file })).getRowsJS().flat();
      expect(codecs).toEqual(['ZSTD']);
      const rows = (await conn.runAndReadAll(`SELECT dataset, scenario, model, cell_id, lat, lon, strftime(date, '%Y-%m-%d'), variable, value FROM read_parquet($file)`, { file })).getRowsJS() as [string, string, string, number, number, number, string, string, number][];
      const cells = new Set(rows.map((r) => r[3]));
      expect(cells.size).toBeGreaterThanOrEqual(2);
      const byKey = new Map(rows.map((r) => [`${r[2]}|${r[3]}|${r[6]}|${r[7]}`, r]));
      expect(byKey.size).toBe(rows.length);
      let expected = 0;
      for (const cell of cells) {
        const [, , , , lat, lon] = rows.find((r) => r[3] === cell)!;
        for (const model of MODELS) {
          for (const variable of ['tasmax', 'pr']) {
            // Years with a gap: 2051 has no row.
            const want = await rawByDate(lat, lon, 'ssp245', model, variable, '2050,2052');
            for (const [date, v] of want) {
              const row = byKey.get(`${model}|${cell}|${date}|${variable}`);
              expect(row, `${model} ${cell} ${date} ${variable}`).toBeDefined();
              expect(row![0]).toBe(DATASET);
              expect(row![1]).toBe('ssp245');
              expect(row![8]).toBe(Math.fround(v));
              expected++;
            }
          }
        }
      }
      // A row for every value the endpoints have, and no other.
      expect(rows.length).toBe(expected);
    } finally {
      conn.closeSync();
      await db.close();
    }
  });

  it('CSV of places: the columns with location, but dataset and scenario, which the file entry says; values as the raw endpoint prints them', async () => {
    const locations = [{ city: NYC }, { lat: 40.7, lon: -73.9 }];
    const job = await exported({ dataset: DATASET, scenarios: ['ssp245'], models: ['ACCESS-CM2'], years: '2051', variables: ['tasmin'], locations, format: 'csv' });
    expect(job.files[0]).toMatchObject({ name: 'NEX-GDDP-CMIP6_ssp245_tasmin.csv', dataset: DATASET, scenario: 'ssp245' });
    const { bytes, headers } = await download(job.files[0]!.url);
    expect(headers['content-type']).toMatch(/^text\/csv/);
    const rows = parseCsv(bytes.toString('utf8'), { columns: true }) as Record<string, string>[];
    expect(Object.keys(rows[0]!)).toEqual(['model', 'cell_id', 'lat', 'lon', 'location', 'date', 'variable', 'value']);
    for (const label of ['city/5128581', 'point/40.7,-73.9']) {
      const mine = rows.filter((r) => r.location === label);
      expect(mine).toHaveLength(365);
      const want = await rawByDate(Number(mine[0]!.lat), Number(mine[0]!.lon), 'ssp245', 'ACCESS-CM2', 'tasmin', '2051');
      for (const r of mine) expect(Number(r.value), `${label} ${r.date}`).toBe(want.get(r.date!));
    }
  });

  it('indicators: NetCDF frost_days(model, period, lat, lon) and CSV rows equal the indicator endpoint asked for each model', async () => {
    const indicators = [{ name: 'frost_days', time_aggregation: 'monthly' }, { name: 'max_temperature_threshold', threshold: 80, threshold_comparator: 'gt', threshold_units: 'F' }];
    const nc = await exported({ dataset: DATASET, scenarios: ['ssp245'], models: MODELS, years: '2050:2051', indicators, area: { bbox: BBOX }, format: 'netcdf' });
    const { file } = await download(nc.files[0]!.url);
    const f = new h5wasm.File(file, 'r');
    try {
      const ds = (name: string) => f.get(name) as InstanceType<typeof h5wasm.Dataset>;
      const lats = Array.from(ds('lat').value as Float64Array);
      const lons = Array.from(ds('lon').value as Float64Array);
      const frost = ds('frost_days');
      expect(frost.get_attached_scales(1)).toEqual(['/period_frost_days']);
      expect(frost.attrs.units?.value).toBe('days');
      const periods = ds('period_frost_days').value as string[];
      expect(periods).toHaveLength(24);
      expect(frost.value).toBeInstanceOf(Float64Array);
      const values = frost.value as Float64Array;
      let compared = 0;
      for (let y = 0; y < lats.length; y++) {
        for (let x = 0; x < lons.length; x++) {
          for (const [m, model] of MODELS.entries()) {
            const want = await indicatorByPeriod(lats[y]!, lons[x]!, 'ssp245', model, 'frost_days', '&time_aggregation=monthly&years=2050:2051');
            if (want.size === 0) continue;
            periods.forEach((p, k) => {
              const got = values[((m * periods.length + k) * lats.length + y) * lons.length + x]!;
              expect(got, `${model} ${p}`).toBe(want.get(p) ?? 1e20);
              compared++;
            });
          }
        }
      }
      expect(compared).toBeGreaterThanOrEqual(2 * 3 * 24);
    } finally {
      f.close();
    }

    const csv = await exported({ dataset: DATASET, scenarios: ['ssp245'], models: MODELS, years: '2050:2051', indicators: [indicators[1]!], locations: [{ city: NYC }], format: 'csv' });
    const rows = parseCsv((await download(csv.files[0]!.url)).bytes.toString('utf8'), { columns: true }) as Record<string, string>[];
    expect(Object.keys(rows[0]!)).toEqual(['model', 'cell_id', 'lat', 'lon', 'location', 'period', 'indicator', 'units', 'value']);
    for (const model of MODELS) {
      const want = await indicatorByPeriod(Number(rows[0]!.lat), Number(rows[0]!.lon), 'ssp245', model, 'max_temperature_threshold', '&threshold=80&threshold_comparator=gt&threshold_units=F&years=2050:2051');
      const mine = rows.filter((r) => r.model === model);
      expect(mine.map((r) => r.period)).toEqual([...want.keys()]);
      for (const r of mine) expect(Number(r.value)).toBe(want.get(r.period!));
    }

    // The same values in Parquet, typed: DOUBLE as the endpoint's numbers.
    const pq = await exported({ dataset: DATASET, scenarios: ['ssp245'], models: MODELS, years: '2050:2051', indicators: [indicators[1]!], locations: [{ city: NYC }], format: 'parquet' });
    const parquetFile = (await download(pq.files[0]!.url)).file;
    const db = await openDuckDB({ threads: 1, memoryLimit: '256MB' });
    const conn = await db.connect();
    try {
      const types = (await conn.runAndReadAll(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet($file))`, { file: parquetFile })).getRowsJS();
      expect(types).toContainEqual(['value', 'DOUBLE']);
      const fromParquet = (await conn.runAndReadAll(`SELECT model, period, value FROM read_parquet($file) ORDER BY model, period`, { file: parquetFile })).getRowsJS() as [string, string, number][];
      const fromCsv = rows.map((r) => [r.model, r.period, Number(r.value)]).sort((a, b) => String(a[0]).localeCompare(String(b[0])) || String(a[1]).localeCompare(String(b[1])));
      expect(fromParquet).toEqual(fromCsv);
    } finally {
      conn.closeSync();
      await db.close();
    }
  });
});

describe('years and models per scenario', { timeout: LONG }, () => {
  it("the issue's example: a range within one scenario's years skips the other, named in `skipped`; omitted models are those with data, the others named in models_left_out", async () => {
    const job = await exported({ dataset: DATASET, scenarios: ['historical', 'ssp245'], years: '2050:2051', variables: ['tasmax'], locations: [{ city: NYC }], format: 'netcdf' });
    const shown = (await request(t.app).get(`/api/export/${job.id}/`).set(auth()).expect(200)).body;
    expect(shown.skipped).toEqual([{ scenario: 'historical', years: '2050:2051', available: [1990, 1992], reason: 'years 2050:2051 holds no year of historical in NEX-GDDP-CMIP6 (1990-1992): no file.' }]);
    const catalogModels = t.catalog.datasetByName.get(DATASET)!.models;
    expect(shown.models_left_out).toEqual([{ scenario: 'ssp245', models: catalogModels.filter((m) => !MODELS.includes(m)), reason: 'no data for these places in this data build' }]);
    expect(shown.models_left_out[0].models.length).toBeGreaterThan(0);
    expect(job.files.map((f) => f.name)).toEqual(['NEX-GDDP-CMIP6_ssp245_tasmax.nc']);
    // 3 models x 730 days, not the catalog's models x 730.
    expect(job.values).toBe(3 * 730);
    const { file } = await download(job.files[0]!.url);
    const f = new h5wasm.File(file, 'r');
    try {
      const ds = (name: string) => f.get(name) as InstanceType<typeof h5wasm.Dataset>;
      expect(ds('model').value).toEqual(catalogModels.filter((m) => MODELS.includes(m)));
      const time = ds('time').value as Float64Array;
      expect(dateOf(time[0]!)).toBe('2050-01-01');
      expect(dateOf(time[time.length - 1]!)).toBe('2051-12-31');
      // No model's slab is all missing.
      const values = ds('tasmax').value as Float32Array;
      for (let m = 0; m < MODELS.length; m++) expect(values.subarray(m * time.length, (m + 1) * time.length).some((v) => v !== Math.fround(1e20))).toBe(true);
    } finally {
      f.close();
    }
  });

  it('humid heat: models published without an input are left out and named with what they lack, as the endpoints do; only such models is a 400 naming them', async () => {
    const lacking = (variable: string) => modelsLacking(DATASET, t.catalog.datasetByName.get(DATASET)!.models, [variable]).map((x) => x.model);
    expect(lacking('huss').length).toBeGreaterThan(0);
    const job = await exported({ dataset: DATASET, scenarios: ['ssp245'], years: '2051', indicators: [{ name: 'max_heat_index' }], locations: [{ city: NYC }], format: 'csv' });
    const shown = (await request(t.app).get(`/api/export/${job.id}/`).set(auth()).expect(200)).body;
    const byReason = Object.fromEntries((shown.models_left_out as { reason: string; models: string[] }[]).map((x) => [x.reason, x.models]));
    // max_heat_index reads tasmax and huss: the models without huss are named for it, not for a lack of data.
    expect(byReason['published without huss, which the export needs']).toEqual(lacking('huss'));
    expect(Object.values(byReason).flat().sort()).toEqual(t.catalog.datasetByName.get(DATASET)!.models.filter((m) => !MODELS.includes(m)).sort());
    const rows = parseCsv((await download(job.files[0]!.url)).bytes.toString('utf8'), { columns: true }) as Record<string, string>[];
    expect([...new Set(rows.map((r) => r.model))].sort()).toEqual([...MODELS].sort());
    // Raw hurs: the models without hurs, named explicitly beside one with it, are left out; alone they are a 400 naming them.
    const raw = (await request(t.app).post('/api/export/').set(auth()).send({ dataset: DATASET, scenarios: ['ssp245'], years: '2051', models: ['CanESM5', ...lacking('hurs')], variables: ['hurs'], locations: [{ city: NYC }], format: 'csv' }).expect(202)).body;
    const rawJob = await finished(t, raw.id);
    expect(rawJob.status).toBe('done');
    const rawShown = (await request(t.app).get(`/api/export/${raw.id}/`).set(auth()).expect(200)).body;
    expect(rawShown.models_left_out).toEqual([{ scenario: 'ssp245', models: lacking('hurs'), reason: 'published without hurs, which the export needs' }]);
    const only = await request(t.app).post('/api/export/').set(auth()).send({ dataset: DATASET, scenarios: ['ssp245'], models: lacking('huss'), indicators: [{ name: 'heat_index_threshold' }], locations: [{ city: NYC }], format: 'csv' }).expect(400);
    for (const m of lacking('huss')) expect(only.body.detail ?? JSON.stringify(only.body)).toContain(m);
    expect(JSON.stringify(only.body)).toContain('huss');
  });

  it('years per scenario: each file holds its own scenario\'s years (raw values and indicators)', async () => {
    const years = { historical: '1991', ssp245: '2051:2052' };
    const raw = await exported({ dataset: DATASET, scenarios: ['historical', 'ssp245'], models: ['CanESM5'], years, variables: ['pr'], locations: [{ city: NYC }], format: 'csv' });
    expect(raw.files.map((f) => f.name)).toEqual(['NEX-GDDP-CMIP6_historical_pr.csv', 'NEX-GDDP-CMIP6_ssp245_pr.csv']);
    expect(raw.files.map((f) => [f.dataset, f.scenario])).toEqual([[DATASET, 'historical'], [DATASET, 'ssp245']]);
    const shown = (await request(t.app).get(`/api/export/${raw.id}/`).set(auth()).expect(200)).body;
    expect(shown.skipped).toBeUndefined();
    expect(shown.models_left_out).toBeUndefined();
    const yearsOf = async (url: string, column: string) => {
      const rows = parseCsv((await download(url)).bytes.toString('utf8'), { columns: true }) as Record<string, string>[];
      return [...new Set(rows.map((r) => r[column]!.slice(0, 4)))];
    };
    expect(await yearsOf(raw.files[0]!.url, 'date')).toEqual(['1991']);
    expect(await yearsOf(raw.files[1]!.url, 'date')).toEqual(['2051', '2052']);
    const ind = await exported({ dataset: DATASET, scenarios: ['historical', 'ssp245'], models: ['CanESM5'], years, indicators: [{ name: 'frost_days' }], locations: [{ city: NYC }], format: 'csv' });
    expect(await yearsOf(ind.files[0]!.url, 'period')).toEqual(['1991']);
    expect(await yearsOf(ind.files[1]!.url, 'period')).toEqual(['2051', '2052']);
  });
});

describe('DELETE of a running export', { timeout: LONG }, () => {
  it('stops it at its next chunk, removes its files and partial files, writes nothing after, and frees its running place', async () => {
    const cancelDir = tempExportDir();
    const one = await testApp({ ...THROTTLE, EXPORT_DIR: cancelDir, EXPORT_MAX_RUNNING: '1' });
    const body = { dataset: DATASET, scenarios: ['historical', 'ssp126', 'ssp245', 'ssp370', 'ssp585'], variables: ['tasmax', 'tasmin', 'pr'], area: { city: NYC }, format: 'netcdf' };
    const { id } = (await request(one.app).post('/api/export/').set(auth(one.token)).send(body).expect(202)).body as { id: string };
    const recordFile = path.join(cancelDir, 'jobs', `${id}.json`);
    // Cancelled once a file is whole and the next is under way.
    for (;;) {
      const seen = JSON.parse(fs.readFileSync(recordFile, 'utf8')) as Job;
      if (seen.status === 'running' && seen.files.length >= 1) break;
      expect(seen.status, seen.error ?? '').not.toMatch(/done|failed/);
      await new Promise((r) => setTimeout(r, 2));
    }
    await request(one.app).delete(`/api/export/${id}/`).set(auth(one.token)).expect(204);
    const atCancel = fs.readFileSync(recordFile, 'utf8');
    await (one.exports.scheduler as LocalExports).idle();
    // The runner stopped: the record is as the DELETE left it, and no file, whole or partial, is left.
    expect(fs.readFileSync(recordFile, 'utf8')).toBe(atCancel);
    const shown = (await request(one.app).get(`/api/export/${id}/`).set(auth(one.token)).expect(200)).body as Job;
    expect(shown.status).toBe('cancelled');
    expect(shown.files).toEqual([]);
    expect(shown.progress).toBeLessThan(1);
    expect(fs.existsSync(path.join(cancelDir, 'files', id))).toBe(false);
    expect(fs.readdirSync(path.join(cancelDir, 'files'))).toEqual([]);
    // Its place is free: the next export of the account runs to the end.
    const next = await exported({ dataset: DATASET, scenarios: ['ssp245'], models: ['ACCESS-CM2'], years: '2050', variables: ['pr'], locations: [{ city: NYC }], format: 'csv' }, one);
    expect(next.files).toHaveLength(1);
    expect(fs.existsSync(path.join(cancelDir, 'files', id))).toBe(false);
  });

  it('EXPORT_MAX_RUNNING holds for requests of one account at once: one 202, the other 429', async () => {
    const one = await testApp({ ...THROTTLE, EXPORT_MAX_RUNNING: '1' });
    const body = { dataset: DATASET, scenarios: ['ssp245'], models: ['ACCESS-CM2'], years: '2050', variables: ['pr'], locations: [{ city: NYC }], format: 'csv' };
    const answers = await Promise.all([0, 1, 2].map(() => request(one.app).post('/api/export/').set(auth(one.token)).send(body)));
    expect(answers.map((r) => r.status).sort()).toEqual([202, 429, 429]);
    for (const r of answers.filter((a) => a.status === 429)) expect(r.headers['retry-after']).toBe('30');
    await (one.exports.scheduler as LocalExports).idle();
  });
});

describe('the runner is a process of its own', { timeout: LONG }, () => {
  const body = { dataset: DATASET, scenarios: ['historical', 'ssp126', 'ssp245', 'ssp370', 'ssp585'], variables: ['tasmax', 'tasmin', 'pr'], area: { city: NYC }, format: 'netcdf' };
  const recordOf = (dir: string, id: string) => JSON.parse(fs.readFileSync(path.join(dir, 'jobs', `${id}.json`), 'utf8')) as Job & { runs?: number; stopped?: string };
  async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
    for (const end = Date.now() + 60_000; Date.now() < end; ) {
      const v = await probe();
      if (v !== undefined) return v;
      await new Promise((r) => setTimeout(r, 2));
    }
    throw new Error(`waited 60 s for ${what}`);
  }
  /** The values of `body`, as the 400 of a server whose limit is 1 says them. */
  async function valuesOf(request_: object): Promise<number> {
    const tiny = await testApp({ ...THROTTLE, EXPORT_MAX_VALUES: '1' });
    const res = await request(tiny.app).post('/api/export/').set(auth(tiny.token)).send(request_).expect(400);
    return Number(/holds up to ([\d,]+) values/.exec(res.body.detail as string)![1]!.replaceAll(',', ''));
  }

  it('killed on each of its two runs: the export fails saying why, the server answers, and a restart does not run it again', async () => {
    const dir = tempExportDir();
    const k = await testApp({ ...THROTTLE, EXPORT_DIR: dir, EXPORT_MAX_RUNNING: '1' });
    const scheduler = k.exports.scheduler as LocalExports;
    const { id } = (await request(k.app).post('/api/export/').set(auth(k.token)).send(body).expect(202)).body as { id: string };
    const pids: number[] = [];
    for (const run of [1, 2]) {
      // Killed as soon as its run is counted and its runner started, before it can end.
      await until(`run ${run}`, () => (recordOf(dir, id).runs === run ? true : undefined));
      const pid = await until(`runner ${run}`, async () => {
        const p = await scheduler.runnerPid();
        return p !== undefined && !pids.includes(p) ? p : undefined;
      });
      pids.push(pid);
      process.kill(pid, 'SIGKILL');
    }
    await scheduler.idle();
    const failed = recordOf(dir, id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/^The export's runner stopped before it was done, on each of its 2 attempts \(the last time it was stopped by SIGKILL\); nothing was kept\. Ask again for fewer/);
    expect(fs.readdirSync(path.join(dir, 'files', id))).toEqual([]);
    // The server was never the runner: it answers, and runs the next export to the end.
    const next = await exported({ dataset: DATASET, scenarios: ['ssp245'], models: ['ACCESS-CM2'], years: '2050', variables: ['pr'], locations: [{ city: NYC }], format: 'csv' }, k);
    expect(next.files).toHaveLength(1);
    // A restart on the same EXPORT_DIR leaves the failed export as it is.
    const restarted = await testApp({ ...THROTTLE, EXPORT_DIR: dir });
    (restarted.exports.scheduler as LocalExports).resume();
    await (restarted.exports.scheduler as LocalExports).idle();
    expect(recordOf(dir, id)).toEqual(failed);
  });

  it('a job left running by a server that stopped during its second run fails at the restart, and is not run a third time', async () => {
    const dir = tempExportDir();
    const first = await testApp({ ...THROTTLE, EXPORT_DIR: dir });
    const { id } = (await request(first.app).post('/api/export/').set(auth(first.token)).send({ ...body, scenarios: ['ssp245'] }).expect(202)).body as { id: string };
    await (first.exports.scheduler as LocalExports).idle();
    // What a server killed (with its runner) in the middle of the export's second run leaves.
    const record = path.join(dir, 'jobs', `${id}.json`);
    fs.writeFileSync(record, JSON.stringify({ ...recordOf(dir, id), status: 'running', progress: 0.4, files: [], runs: 2 }));
    const restarted = await testApp({ ...THROTTLE, EXPORT_DIR: dir });
    const scheduler = restarted.exports.scheduler as LocalExports;
    scheduler.resume();
    await scheduler.idle();
    const after = recordOf(dir, id);
    expect(after.status).toBe('failed');
    expect(after.runs).toBe(2);
    expect(after.error).toMatch(/on each of its 2 attempts \(the last time with the server\)/);
    expect(await scheduler.runnerPid()).toBeUndefined();
  });

  it('an export of EXPORT_MAX_VALUES values runs to the end in a runner with a 64 MB heap, its values as the raw endpoint answers them', async () => {
    const request_ = { dataset: DATASET, scenarios: ['ssp245'], variables: ['tasmax', 'tasmin', 'pr'], area: { city: NYC }, format: 'netcdf' };
    const values = await valuesOf(request_);
    const limited = await testApp({ ...THROTTLE, EXPORT_MAX_VALUES: String(values), EXPORT_RUNNER_HEAP_MB: '64' });
    await request(limited.app).post('/api/export/').set(auth(limited.token)).send({ ...request_, scenarios: ['ssp245', 'ssp585'] }).expect(400);
    const job = await exported(request_, limited);
    expect(job.values).toBe(values);
    const { file } = await download(job.files[0]!.url, limited);
    const f = new h5wasm.File(file, 'r');
    try {
      const ds = (name: string) => f.get(name) as InstanceType<typeof h5wasm.Dataset>;
      const models = ds('model').value as string[];
      const lats = Array.from(ds('lat').value as Float64Array);
      const lons = Array.from(ds('lon').value as Float64Array);
      const time = Array.from(ds('time').value as Float64Array);
      const pr = ds('pr');
      // Chunks along time: one model's whole series at one cell, deflated.
      expect(pr.metadata.chunks).toEqual([1, time.length, 1, 1]);
      expect(pr.filters.map((x) => x.name)).toEqual(['deflate']);
      const all = pr.value as Float32Array;
      let compared = 0;
      for (let y = 0; y < lats.length; y++) {
        for (let x = 0; x < lons.length; x++) {
          const model = models.length - 1;
          // A cell of the rectangle outside the boundary has no data (404): FILL on every day.
          const withData = (await request(t.app).get(`/api/climate-data/${lats[y]}/${lons[x]}/ssp245/?dataset=${DATASET}&years=2050`).set(auth())).status === 200;
          const want = withData ? await rawByDate(lats[y]!, lons[x]!, 'ssp245', models[model]!, 'pr', '2050:2052') : new Map<string, number>();
          time.forEach((d, k) => {
            const expected = want.get(dateOf(d));
            expect(all[((model * time.length + k) * lats.length + y) * lons.length + x]).toBe(expected === undefined ? Math.fround(1e20) : Math.fround(expected));
            compared++;
          });
        }
      }
      expect(compared).toBe(lats.length * lons.length * time.length);
    } finally {
      f.close();
    }
  });

  it("the runner's DuckDB keeps no copy of the files it reads (its external file cache is off)", async () => {
    const engine = await openExportEngine('256MB');
    try {
      const dir = path.join(t.catalog.dataDir, 'climate', DATASET, 'ssp245');
      const files = fs.readdirSync(dir).map((f) => path.join(dir, f));
      const cached = await engine.queries.run(async (conn) => {
        await conn.run('SELECT count(*), sum(tasmax) FROM read_parquet($files)', { files: listValue(files) });
        const rows = (await conn.runAndReadAll(`SELECT coalesce(sum(memory_usage_bytes), 0)::DOUBLE FROM duckdb_memory() WHERE tag = 'EXTERNAL_FILE_CACHE'`)).getRowsJS();
        return Number(rows[0]![0]);
      });
      // With the cache on, the bytes read stay in DuckDB's memory (up to its limit) until it closes.
      expect(cached).toBe(0);
    } finally {
      await engine.db.close();
    }
  });

  it("counts a NetCDF area's whole rectangle against EXPORT_MAX_VALUES, and says that Parquet holds only the cells with data", async () => {
    const area = { dataset: DATASET, scenarios: ['ssp245'], years: '2050', variables: ['tasmax'], area: { city: NYC } };
    const inParquet = await valuesOf({ ...area, format: 'parquet' });
    const inNetcdf = await valuesOf({ ...area, format: 'netcdf' });
    expect(inNetcdf).toBeGreaterThan(inParquet);
    const limited = await testApp({ ...THROTTLE, EXPORT_MAX_VALUES: String(inParquet) });
    const res = await request(limited.app).post('/api/export/').set(auth(limited.token)).send({ ...area, format: 'netcdf' }).expect(400);
    const m = /As NetCDF the area is its rectangle of ([\d,]+) grid cells, ([\d,]+) of them with data; Parquet or CSV hold only those \(within the limit\)\./.exec(res.body.detail as string);
    expect(m, res.body.detail).not.toBeNull();
    const count = (text: string) => Number(text.replaceAll(',', ''));
    const rectangle = count(m![1]!);
    const cells = count(m![2]!);
    expect(inNetcdf * cells).toBe(inParquet * rectangle);
    const job = await exported({ ...area, format: 'parquet' }, limited);
    expect(job.values).toBe(inParquet);
  });
});

describe('the file download', { timeout: LONG }, () => {
  it('has Content-Disposition, its SHA-256 as ETag (304 on If-None-Match) and answers a Range with 206', async () => {
    const job = await exported({ dataset: DATASET, scenarios: ['ssp245'], models: ['ACCESS-CM2'], years: '2050', variables: ['pr'], locations: [{ city: NYC }], format: 'csv' });
    const [f] = job.files;
    const { bytes, headers } = await download(f!.url);
    expect(headers['content-disposition']).toBe(`attachment; filename="${f!.name}"`);
    expect(headers.etag).toBe(`"${f!.sha256}"`);
    expect(headers['accept-ranges']).toBe('bytes');
    await request(t.app).get(f!.url).set(auth()).set('If-None-Match', `"${f!.sha256}"`).expect(304);
    const part = await request(t.app).get(f!.url).set(auth()).set('Range', 'bytes=10-29').buffer(true).parse((r, cb) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => cb(null, Buffer.concat(chunks)));
    });
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 10-29/${bytes.length}`);
    expect((part.body as Buffer).equals(bytes.subarray(10, 30))).toBe(true);
    await request(t.app).get(f!.url.replace(/files\/.*/, 'files/other.csv/')).set(auth()).expect(404);
  });
});

describe('an export belongs to its account', { timeout: LONG }, () => {
  it('another token gets 404 for it and its files, cannot delete it, and does not list it', async () => {
    const job = await exported({ dataset: DATASET, scenarios: ['ssp245'], models: ['ACCESS-CM2'], years: '2050', variables: ['pr'], locations: [{ city: NYC }], format: 'parquet' });
    const other = await t.auth.accounts.create('other@example.com', await hashPassword('other-password'));
    const token = await t.auth.tokens.issue(other.id, other.tokenVersion);
    for (const url of [`/api/export/${job.id}/`, job.files[0]!.url]) {
      const res = await request(t.app).get(url).set(auth(token)).expect(404);
      expect(res.body.detail).toBe(`Export ${job.id} does not exist.`);
    }
    await request(t.app).delete(`/api/export/${job.id}/`).set(auth(token)).expect(404);
    expect((await request(t.app).get('/api/export/').set(auth(token)).expect(200)).body.results).toEqual([]);
    const mine = (await request(t.app).get('/api/export/').set(auth()).expect(200)).body.results as Job[];
    expect(mine.map((j) => j.id)).toContain(job.id);
    // Its owner still has it; a delete removes it and its files.
    await request(t.app).get(job.files[0]!.url).set(auth()).expect(200);
    await request(t.app).delete(`/api/export/${job.id}/`).set(auth()).expect(204);
    await request(t.app).get(`/api/export/${job.id}/`).set(auth()).expect(404);
    expect(fs.existsSync(path.join(dir, 'files', job.id))).toBe(false);
  });
});

describe('limits and expiry', () => {
  it('EXPORT_MAX_VALUES: a larger export is a 400 that says the limit', async () => {
    const small = await testApp({ ...THROTTLE, EXPORT_MAX_VALUES: '1000' });
    const res = await request(small.app).post('/api/export/').set(auth(small.token)).send({ dataset: DATASET, scenarios: ['ssp245'], models: MODELS, years: '2050', variables: ['tasmax'], locations: [{ city: NYC }], format: 'csv' }).expect(400);
    expect(res.body.detail).toMatch(/holds up to 1,095 values; the limit is 1,000 \(EXPORT_MAX_VALUES\)/);
    expect((await request(small.app).get('/api/export/').set(auth(small.token))).body.results).toEqual([]);
  }, LONG);

  it('EXPORT_MAX_BYTES: an account at its limit gets 409; an export that would pass it fails saying so', async () => {
    const shared = tempExportDir();
    const first = await testApp({ ...THROTTLE, EXPORT_DIR: shared });
    const body = { dataset: DATASET, scenarios: ['ssp245'], models: ['ACCESS-CM2'], years: '2050', variables: ['pr'], locations: [{ city: NYC }], format: 'csv' };
    const done = await exported(body, first);
    const kept = done.files[0]!.bytes;
    // The same accounts file, so the same account, under a limit of what it keeps already.
    const full = await testApp({ ...THROTTLE, EXPORT_DIR: shared, ACCOUNTS_DB: first.config.ACCOUNTS_DB, EXPORT_MAX_BYTES: String(kept) });
    const res = await request(full.app).post('/api/export/').set(auth(full.token)).send(body).expect(409);
    expect(res.body.detail).toMatch(new RegExp(`keeps ${kept.toLocaleString('en-US')} bytes of exports; the limit is ${kept.toLocaleString('en-US')} \\(EXPORT_MAX_BYTES\\)`));
    const roomy = await testApp({ ...THROTTLE, EXPORT_DIR: shared, ACCOUNTS_DB: first.config.ACCOUNTS_DB, EXPORT_MAX_BYTES: String(kept + 10) });
    const { id } = (await request(roomy.app).post('/api/export/').set(auth(roomy.token)).send(body).expect(202)).body as { id: string };
    const failed = await finished(roomy, id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/past the limit of .* \(EXPORT_MAX_BYTES\)/);
    expect(failed.files).toEqual([]);
    expect(fs.readdirSync(path.join(shared, 'files', id))).toEqual([]);
  }, LONG);

  it('EXPORT_TTL: an expired export is gone, with its files', async () => {
    const ttlDir = tempExportDir();
    const short = await testApp({ ...THROTTLE, EXPORT_DIR: ttlDir, EXPORT_TTL: '1h' });
    const job = await exported({ dataset: DATASET, scenarios: ['ssp245'], models: ['ACCESS-CM2'], years: '2050', variables: ['pr'], locations: [{ city: NYC }], format: 'csv' }, short);
    const recordFile = path.join(ttlDir, 'jobs', `${job.id}.json`);
    const kept = JSON.parse(fs.readFileSync(recordFile, 'utf8')) as { created_at: string; expires_at: string };
    expect(Date.parse(kept.expires_at) - Date.parse(kept.created_at)).toBe(3_600_000);
    // An hour on: what the record says is all that expiry reads (a job runs in another process,
    // whose start no short TTL could wait for).
    fs.writeFileSync(recordFile, JSON.stringify({ ...kept, expires_at: new Date(Date.now() - 1).toISOString() }));
    await request(short.app).get(`/api/export/${job.id}/`).set(auth(short.token)).expect(404);
    await request(short.app).get(job.files[0]!.url).set(auth(short.token)).expect(404);
    expect((await request(short.app).get('/api/export/').set(auth(short.token)).expect(200)).body.results).toEqual([]);
    expect(fs.existsSync(path.join(ttlDir, 'files', job.id))).toBe(false);
    expect(fs.existsSync(path.join(ttlDir, 'jobs', `${job.id}.json`))).toBe(false);
  }, LONG);
});

describe('a runner whose parent is gone (a worker killed mid-export)', () => {
  it('stops at its next look: the next runner finds only the whole files the record lists, and no record written after', async () => {
    const body = { dataset: DATASET, scenarios: ['historical', 'ssp245', 'ssp585'], models: MODELS, variables: ['tasmax'], area: { bbox: BBOX }, format: 'csv' };
    const done = await exported(body);
    expect(done.files).toHaveLength(3);
    // The same job again, queued, run by a runner whose parent "dies" once its first file is whole.
    const store = new ExportStore(dir);
    const job = store.get(done.id)!;
    const id = newExportId();
    store.create({ ...job, id, status: 'queued', progress: 0, files: [], error: null });
    const engine = await openExportEngine('256MB');
    let seenAt: string | undefined;
    try {
      const outcome = await runExport(
        {
          catalog: t.catalog,
          queries: engine.queries,
          store,
          maxBytes: Number.MAX_SAFE_INTEGER,
          orphaned: () => {
            const now = store.get(id)!;
            if (now.files.length === 0) return false;
            seenAt ??= JSON.stringify(now);
            return true;
          },
        },
        id,
      );
      expect(outcome).toBe('not run');
    } finally {
      engine.queries.close();
      await engine.db.close();
    }
    // The record as it was when the parent went: running, one whole file; nothing after.
    const left = store.get(id)!;
    expect(JSON.stringify(left)).toBe(seenAt);
    expect(left.status).toBe('running');
    expect(left.files.map((f) => f.name)).toEqual([done.files[0]!.name]);
    // Its folder: that file, whole, and no partial file.
    const folder = store.filesDir(id);
    expect(fs.readdirSync(folder)).toEqual([left.files[0]!.name]);
    expect(createHash('sha256').update(fs.readFileSync(path.join(folder, left.files[0]!.name))).digest('hex')).toBe(left.files[0]!.sha256);
  }, LONG);
});
