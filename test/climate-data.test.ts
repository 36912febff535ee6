import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { readRows } from '../src/db/duckdb.js';
import { hashPassword } from '../src/auth/passwords.js';
import { testApp, type TestApp } from './helpers.js';

const NYC = 5128581;
let t: TestApp;
const get = (url: string, app = t) => request(app.app).get(url).set('Authorization', `Token ${app.token}`);

beforeAll(async () => {
  t = await testApp({ THROTTLE_BURST_RATE: '100000/min', THROTTLE_SUSTAINED_RATE: '1000000/day' });
});

type Variable = 'tasmax' | 'tasmin' | 'pr';

/**
 * The expected daily values, computed in TypeScript from the cell's rows as stored (a plain read of
 * the Parquet file, no SQL arithmetic): per year and 0-based day-of-year slot, the avg, min or max
 * over the chosen models that have a value, as the float32 the service stores and prints.
 */
async function expected(dataset: string, scenario: string, agg: 'avg' | 'min' | 'max', variable: Variable, models: string[]) {
  const cell = t.catalog.cityCells.get(NYC)!.get(dataset)!;
  const file = `${t.catalog.dataDir}/climate/${dataset}/${scenario}/${cell}.parquet`;
  const rows = await t.queries.run((conn) =>
    readRows<{ model: string; date: string; tasmax: number | null; tasmin: number | null; pr: number | null }>(conn, `SELECT model, date::VARCHAR AS date, tasmax, tasmin, pr FROM read_parquet($file)`, { file }),
  );
  const values = new Map<string, number[]>();
  for (const r of rows) {
    const v = r[variable];
    if (!models.includes(r.model) || v === null) continue;
    const [y, m, d] = r.date.split('-').map(Number) as [number, number, number];
    const slot = (Date.UTC(y, m - 1, d) - Date.UTC(y, 0, 1)) / 86_400_000;
    const key = `${y}:${slot}`;
    values.set(key, [...(values.get(key) ?? []), v]);
  }
  const reduce = (vs: number[]) => (agg === 'avg' ? vs.reduce((a, b) => a + b, 0) / vs.length : agg === 'min' ? Math.min(...vs) : Math.max(...vs));
  return new Map([...values].map(([key, vs]) => [key, Math.fround(reduce(vs))]));
}

/** The shortest decimal that reads back as the same float32: what the service prints. */
function shortestFloat32(x: number): number {
  for (let digits = 1; digits < 9; digits++) {
    const v = Number(x.toPrecision(digits));
    if (Math.fround(v) === x) return v;
  }
  return Number(x.toPrecision(9));
}

describe('GET /api/climate-data/{city}/{scenario}/', () => {
  it('answers the spec shape with 366-slot arrays per year and variable', async () => {
    const res = await get(`/api/climate-data/${NYC}/RCP85/`).expect(200).expect('Content-Type', /json/);
    expect(Object.keys(res.body)).toEqual(['city', 'dataset', 'scenario', 'climate_models', 'variables', 'data']);
    expect(res.body.city.id).toBe(NYC);
    expect(res.body.dataset).toBe('NEX-GDDP');
    expect(res.body.scenario).toBe('RCP85');
    expect(res.body.climate_models).toEqual(t.catalog.datasetByName.get('NEX-GDDP')!.models);
    expect(res.body.variables).toEqual(['tasmax', 'tasmin', 'pr']);
    expect(Object.keys(res.body.data)).toEqual(['2050', '2051', '2052']);
    for (const year of Object.values(res.body.data) as Record<string, (number | null)[]>[]) {
      expect(Object.keys(year)).toEqual(['tasmax', 'tasmin', 'pr']);
      for (const arr of Object.values(year)) expect(arr).toHaveLength(366);
    }
  });

  it('puts null at index 365 in non-leap years and Feb 29 at index 59 in leap years', async () => {
    const res = await get(`/api/climate-data/${NYC}/RCP85/?models=ACCESS1-0,MIROC5`).expect(200);
    expect(res.body.data['2051'].tasmax[365]).toBeNull();
    expect(res.body.data['2051'].tasmax[364]).not.toBeNull();
    expect(res.body.data['2052'].tasmax[365]).not.toBeNull();
    expect(res.body.data['2052'].tasmax[59]).not.toBeNull();
    // CCSM4 has a 365-day calendar: no Feb 29, so its leap years show null there; Dec 31 is slot 365.
    const noleap = await get(`/api/climate-data/${NYC}/RCP85/?models=CCSM4`).expect(200);
    expect(noleap.body.data['2052'].tasmax[59]).toBeNull();
    expect(noleap.body.data['2052'].tasmax[60]).not.toBeNull();
    expect(noleap.body.data['2052'].tasmax[365]).not.toBeNull();
    expect(noleap.body.data['2051'].tasmax[59]).not.toBeNull();
    // Averaged with the others, Feb 29 is the mean of the models that have it.
    const all = await get(`/api/climate-data/${NYC}/RCP85/`).expect(200);
    const want = await expected('NEX-GDDP', 'RCP85', 'avg', 'tasmax', ['ACCESS1-0', 'MIROC5']);
    expect(Math.fround(all.body.data['2052'].tasmax[59])).toBe(want.get('2052:59'));
  });

  it('returns the stored values exactly (float32) for avg, min and max across models, as an independent computation has them', async () => {
    const cases: { scenario: string; models: string[]; aggs: ('avg' | 'min' | 'max')[]; variables: Variable[]; slots: number }[] = [
      // Every model (the ensemble summary), 2050-2052 with the leap year 2052 and a 365-day model.
      { scenario: 'RCP45', models: ['ACCESS1-0', 'CCSM4', 'MIROC5'], aggs: ['avg', 'min', 'max'], variables: ['tasmax', 'pr'], slots: 365 * 2 + 366 },
      // A subset (the days reduced per request); 1992 is a leap year.
      { scenario: 'historical', models: ['ACCESS1-0', 'MIROC5'], aggs: ['avg', 'max'], variables: ['tasmin', 'pr'], slots: 365 * 2 + 366 },
      // The 365-day model alone: no Feb 29, Dec 31 of 1992 in slot 365.
      { scenario: 'historical', models: ['CCSM4'], aggs: ['min'], variables: ['tasmax'], slots: 365 * 3 },
    ];
    for (const c of cases) {
      for (const agg of c.aggs) {
        const subset = c.models.length < 3 ? `&models=${c.models.join(',')}` : '';
        const res = await get(`/api/climate-data/${NYC}/${c.scenario}/?agg=${agg}${subset}`).expect(200);
        for (const variable of c.variables) {
          const want = await expected('NEX-GDDP', c.scenario, agg, variable, c.models);
          let checked = 0;
          for (const [year, vars] of Object.entries(res.body.data) as [string, Record<string, (number | null)[]>][]) {
            vars[variable]!.forEach((v, slot) => {
              const w = want.get(`${year}:${slot}`);
              if (w === undefined) expect(v, `${c.scenario} ${year} slot ${slot}`).toBeNull();
              else {
                expect(v, `${c.scenario} ${agg} ${variable} ${year} slot ${slot}`).toBe(shortestFloat32(w));
                checked++;
              }
            });
          }
          expect(checked, `${c.scenario} ${c.models.join(',')} ${agg} ${variable}`).toBe(c.slots);
        }
      }
    }
  });

  it('answers every-model requests from the ensemble summary with the values of a reduction of the days', async () => {
    // The suite's build has 3 of the dataset's models: naming them reduces the days per request,
    // omitting models reads the ensemble summaries (JSON text per year; numbers for CSV and Arrow).
    // Both must send the same text for every value.
    const dataText = (text: string) => text.slice(text.indexOf('"data":'));
    for (const agg of ['avg', 'min', 'max']) {
      const ensemble = await get(`/api/climate-data/${NYC}/RCP85/?agg=${agg}&years=2050,2052&variables=pr,tasmax`).expect(200);
      const days = await get(`/api/climate-data/${NYC}/RCP85/?agg=${agg}&years=2050,2052&variables=pr,tasmax&models=MIROC5,CCSM4,ACCESS1-0`).expect(200);
      expect(days.body.climate_models).toHaveLength(3);
      expect(ensemble.body.climate_models.length).toBeGreaterThan(3);
      expect(Object.keys(ensemble.body.data)).toEqual(['2050', '2052']);
      expect(dataText(ensemble.text)).toBe(dataText(days.text));
      const csv = await get(`/api/climate-data/${NYC}/RCP85/?agg=${agg}&years=2050:2052&format=csv`).expect(200);
      const csvDays = await get(`/api/climate-data/${NYC}/RCP85/?agg=${agg}&years=2050:2052&format=csv&models=MIROC5,CCSM4,ACCESS1-0`).expect(200);
      expect(csv.text.split('\n').length).toBeGreaterThan(3 * 3 * 365);
      expect(csv.text).toBe(csvDays.text);
      expect(ensemble.body.data['2052'].pr.filter((v: number | null) => v !== null)).toHaveLength(366);
    }
  });

  it('prints each value as the shortest decimal of its float32', async () => {
    const res = await get(`/api/climate-data/${NYC}/RCP85/?models=MIROC5&years=2050`).expect(200);
    const text: string = res.text;
    const values = [...res.body.data['2050'].tasmax, ...res.body.data['2050'].pr].filter((v: number | null) => v !== null) as number[];
    expect(values).toHaveLength(730);
    for (const v of values) {
      // Shortest: fewer significant digits do not read back as the same float32.
      const digits = Number(v).toPrecision(9).replace(/e.*$/, '').replace(/[-.]/g, '').replace(/^0+/, '').replace(/0+$/, '').length;
      if (digits > 1) expect(Math.fround(Number(v.toPrecision(digits - 1)))).not.toBe(Math.fround(v));
    }
    // Never the 17 digits of the float32 widened to double.
    for (const token of text.slice(text.indexOf('"data"')).match(/-?[\d.]+(e-?\d+)?/g)!) {
      expect(token.replace(/e.*$/, '').replace(/[-.]/g, '').replace(/^0+/, '').length, token).toBeLessThanOrEqual(9);
    }
  });

  it('keeps temperatures in K and precipitation in kg m-2 s-1', async () => {
    const res = await get(`/api/climate-data/${NYC}/historical/?years=1990&variables=tasmin,pr`).expect(200);
    expect(Object.keys(res.body.data)).toEqual(['1990']);
    expect(Object.keys(res.body.data['1990'])).toEqual(['tasmin', 'pr']);
    const tasmin = res.body.data['1990'].tasmin.slice(0, 365);
    for (const v of tasmin) expect(v).toBeGreaterThan(230);
    for (const v of res.body.data['1990'].pr.slice(0, 365)) {
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThan(0.01);
    }
  });

  it('filters years with start[:end] ranges', async () => {
    expect(Object.keys((await get(`/api/climate-data/${NYC}/RCP85/?years=2051`).expect(200)).body.data)).toEqual(['2051']);
    expect(Object.keys((await get(`/api/climate-data/${NYC}/RCP85/?years=2050,2052`).expect(200)).body.data)).toEqual(['2050', '2052']);
    expect(Object.keys((await get(`/api/climate-data/${NYC}/RCP85/?years=2051:2060`).expect(200)).body.data)).toEqual(['2051', '2052']);
    expect((await get(`/api/climate-data/${NYC}/RCP85/?years=1990`).expect(200)).body.data).toEqual({});
  });

  it('serves LOCA with dataset=LOCA', async () => {
    const res = await get(`/api/climate-data/${NYC}/RCP85/?dataset=LOCA&years=2050`).expect(200);
    expect(res.body.dataset).toBe('LOCA');
    expect(res.body.climate_models).toHaveLength(32);
    expect(res.body.data['2050'].tasmax).toHaveLength(366);
  });

  it('answers 400 naming the parameter for bad values', async () => {
    const cases: [string, RegExp][] = [
      ['agg=median', /^agg must be one of avg, min, max/],
      ['dataset=FOO', /^Dataset FOO does not exist\. Choose one of: NEX-GDDP, LOCA/],
      ['models=FOO,CCSM4', /^Dataset NEX-GDDP has no data for model\(s\): FOO/],
      ['models=HadGEM2-ES', /^Dataset NEX-GDDP has no data for model\(s\): HadGEM2-ES/],
      ['variables=rh', /^variables accepts a comma-separated list of tasmax, tasmin, pr, tas, hurs, huss; got 'rh'/],
      // NEX-GDDP-CMIP6's humidity, asked of a dataset without it
      ['variables=tasmax,tas', /^Dataset NEX-GDDP has no tas, which variables asks for; its variables are tasmax, tasmin, pr/],
      ['years=abc', /^years accepts/],
      ['years=2052:2050', /^years accepts/],
      ['years=2050:2051:2052', /^years accepts/],
      ['agg=avg&agg=min', /^agg must be given once/],
    ];
    for (const [qs, re] of cases) {
      const res = await get(`/api/climate-data/${NYC}/RCP85/?${qs}`).expect(400);
      expect(res.body.detail, qs).toMatch(re);
    }
  });

  it('answers 404 for unknown scenario or city, and for a city without data', async () => {
    expect((await get(`/api/climate-data/${NYC}/RCP26/`).expect(404)).body).toEqual({ detail: 'Scenario RCP26 does not exist.' });
    expect((await get('/api/climate-data/999999/RCP85/').expect(404)).body).toEqual({ detail: 'City 999999 does not exist.' });
    const small = t.catalog.cities.find((c) => c.datasets.length === 0)!;
    expect((await get(`/api/climate-data/${small.id}/RCP85/`).expect(404)).body.detail).toMatch(/^No NEX-GDDP data available for city/);
  });

  it('bounds the cost of a request', async () => {
    const small = await testApp({ MAX_MODEL_YEARS: '5' });
    const res = await get(`/api/climate-data/${NYC}/RCP85/`, small).expect(400);
    expect(res.body.detail).toMatch(/3 years x 21 models = 63 model-years; the limit is 5/);
    await get(`/api/climate-data/${NYC}/RCP85/?models=CCSM4&years=2050`, small).expect(200);
  });
});

describe('GET /api/climate-data/{lat}/{lon}/{scenario}/', () => {
  it('reads the cell containing the point and describes it as a feature', async () => {
    const nyc = t.catalog.cityById.get(NYC)!;
    const res = await get(`/api/climate-data/${nyc.lat}/${nyc.lon}/RCP85/?years=2050`).expect(200);
    expect(Object.keys(res.body)[0]).toBe('feature');
    expect(res.body.feature.properties.datasets).toEqual(['NEX-GDDP']);
    expect(res.body.feature.properties).toHaveProperty('distance_meters');
    expect(res.body.feature.properties).toHaveProperty('proximity');
    const byCity = await get(`/api/climate-data/${NYC}/RCP85/?years=2050`).expect(200);
    expect(res.body.data).toEqual(byCity.body.data);
  });

  it('uses distance to reach the nearest cell with data', async () => {
    await get('/api/climate-data/40.3/-74.6/RCP85/?years=2050').expect(404);
    const res = await get('/api/climate-data/40.3/-74.6/RCP85/?years=2050&distance=100000').expect(200);
    expect(res.body.feature.properties.distance_meters).toBeLessThanOrEqual(100000);
  });

  it('answers 404 without data at the point and 400 for bad coordinates', async () => {
    expect((await get('/api/climate-data/0/0/RCP85/').expect(404)).body).toEqual({ detail: 'No NEX-GDDP data available for point (0, 0)' });
    expect((await get('/api/climate-data/95/0/RCP85/').expect(400)).body.detail).toMatch(/^lat must be a number between -90 and 90/);
    expect((await get('/api/climate-data/40/-74/RCP85/?distance=-5').expect(400)).body.detail).toMatch(/^distance /);
    expect((await get('/api/climate-data/40/-74/RCP99/').expect(404)).body.detail).toBe('Scenario RCP99 does not exist.');
  });
});

describe('throttling of the data endpoints', () => {
  it('limits each account with a burst rate and answers 429 with Retry-After', async () => {
    const app = await testApp({ THROTTLE_BURST_RATE: '3/min' });
    for (let i = 0; i < 3; i++) await get(`/api/climate-data/${NYC}/RCP85/?years=2050&variables=pr`, app).expect(200);
    // Failed requests count too, like the original.
    const res = await get(`/api/climate-data/${NYC}/RCP26/`, app).expect(429);
    const wait = Number(res.headers['retry-after']);
    expect(Number.isInteger(wait) && wait >= 1 && wait <= 60).toBe(true);
    expect(res.body).toEqual({ detail: `Request was throttled. Expected available in ${wait} second${wait === 1 ? '' : 's'}.` });
    // Reference endpoints are not throttled.
    for (let i = 0; i < 5; i++) await get('/api/scenario/', app).expect(200);
    // Another account has its own counter.
    const other = await app.auth.accounts.create('other@example.com', await hashPassword('other-password'));
    const token = await app.auth.tokens.issue(other.id, other.tokenVersion);
    await request(app.app).get(`/api/climate-data/${NYC}/RCP85/?years=2050&variables=pr`).set('Authorization', `Token ${token}`).expect(200);
  });

  it('applies the sustained rate and per-account overrides', async () => {
    const app = await testApp({ THROTTLE_SUSTAINED_RATE: '2/day' });
    await get(`/api/climate-data/${NYC}/RCP85/?years=2050&variables=pr`, app).expect(200);
    await get(`/api/climate-data/${NYC}/RCP85/?years=2050&variables=pr`, app).expect(200);
    const res = await get(`/api/climate-data/${NYC}/RCP85/?years=2050&variables=pr`, app).expect(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(80_000);
    const vip = await app.auth.accounts.create('vip@example.com', await hashPassword('vip-password'));
    await app.auth.accounts.setRates(vip.id, '1/min', '100/day');
    const token = await app.auth.tokens.issue(vip.id, vip.tokenVersion);
    const call = () => request(app.app).get(`/api/climate-data/${NYC}/RCP85/?years=2050&variables=pr`).set('Authorization', `Token ${token}`);
    await call().expect(200);
    await call().expect(429);
  });
});
