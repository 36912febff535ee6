import { tableFromIPC } from 'apache-arrow';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { operations } from '../src/api/openapi.js';
import { testApp, type TestApp } from './helpers.js';
import { gevOf, quantile, recurrence, type Gev } from './support/independentGev.js';
import { LONG_BUILD, longDataset } from './support/longBuild.js';

/**
 * Return levels against an independent computation: each model's yearly extremes from the plain
 * indicator endpoint (models=<one>&agg=avg), L-moments from their definition over all pairs and
 * triples of order statistics, the GEV shape by bisection, the gamma function by Stirling's series
 * and the GEV quantile and distribution function as printed in Hosking and Wallis (1997, A.5), in
 * test/support/independentGev.ts; none of it shares code with the service. On a build of 30 years
 * per scenario (test/support/longBuild.ts).
 */

const NYC = 5128581;
let t: TestApp;
const get = (url: string) => request(t.app).get(url).set('Authorization', `Token ${t.token}`);

beforeAll(async () => {
  t = await testApp({ THROTTLE_BURST_RATE: '1000000/min', THROTTLE_SUSTAINED_RATE: '100000000/day' }, await longDataset());
}, 300_000);

// ---- what the endpoint answers, and helpers ----

const DATASETS: [string, string][] = [
  ['NEX-GDDP', 'RCP85'],
  ['LOCA', 'RCP85'],
  ['NEX-GDDP-CMIP6', 'ssp585'],
  ['LOCA2', 'ssp245'],
];

/** One model's yearly (or offset-yearly) values of an indicator, from the plain endpoint, by year. */
async function yearly(dataset: string, scenario: string, name: string, model: string, qs: string): Promise<Record<string, number>> {
  const res = await get(`/api/climate-data/${NYC}/${scenario}/indicator/${name}/?dataset=${dataset}&models=${model}&agg=avg&${qs}`).expect(200);
  return Object.fromEntries(Object.entries(res.body.data as Record<string, { avg: number }>).map(([k, v]) => [k, v.avg]));
}

/** The model's fit to those values, as maxima (minima negated). */
const fitTo = (values: number[], sign: number) => gevOf(values.map((v) => sign * v));
const level = (f: Gev, years: number, sign: number) => sign * quantile(f, years);

function expectNear(actual: number, expected: number, what: string, rel = 1e-9) {
  expect(Math.abs(actual - expected), `${what}: ${actual} vs ${expected}`).toBeLessThanOrEqual(rel * Math.max(1, Math.abs(expected)));
}

/** min, max, avg and the median across models, as the API takes them (numpy's linear median). */
function acrossModels(values: number[]) {
  const s = [...values].sort((a, b) => a - b);
  const mid = (s.length - 1) / 2;
  return { min: s[0]!, max: s.at(-1)!, avg: s.reduce((a, b) => a + b, 0) / s.length, median: (s[Math.floor(mid)]! + s[Math.ceil(mid)]!) / 2 };
}

function expectStats(actual: Record<string, number>, values: number[], what: string) {
  const expected = acrossModels(values);
  for (const [name, v] of Object.entries(expected)) expectNear(actual[name]!, v, `${what} ${name}`);
}

const SIGNS = new Set<string>();

describe.each(DATASETS)('return levels on %s %s against the independent computation', (dataset, scenario) => {
  const models = LONG_BUILD.models[dataset as keyof typeof LONG_BUILD.models];
  const cases: [string, number, string][] = [
    ['max_1day_precipitation', 1, 'units=mm'],
    ['min_low_temperature', -1, 'units=C'],
    ['max_high_temperature', 1, 'units=K'],
    ['max_nday_precipitation', 1, 'n=3&units=mm'],
  ];

  it.each(cases)('%s: each model fitted over the scenario\'s last 30 years, the 2-, 20- and 100-year levels across models', async (name, sign, qs) => {
    const res = await get(`/api/climate-data/${NYC}/${scenario}/indicator/${name}/?dataset=${dataset}&models=${models.join(',')}&return_period=100,2,20&include=fit&agg=min,max,avg,median&${qs}`).expect(200);
    const body = res.body;
    expect(body.return_levels.fitting_window).toEqual({ scenario, start_year: 2071, end_year: 2100, years: 30 });
    expect(body.return_levels.return_periods).toEqual([2, 20, 100]);
    expect(body.return_levels.extreme).toBe(sign > 0 ? 'yearly maximum' : 'yearly minimum');
    expect(body.return_levels.method).toMatch(/L-moments \(Hosking 1990\)/);
    expect(Object.keys(body.data)).toEqual(['2', '20', '100']);
    expect(body.models_without_fit).toEqual([]);
    const fits: Gev[] = [];
    for (const model of models) {
      const series = await yearly(dataset, scenario, name, model, `years=2071:2100&${qs}`);
      expect(Object.keys(series)).toHaveLength(30);
      const fit = fitTo(Object.values(series), sign);
      const served = body.fit.window[model];
      expectNear(served.shape, fit.shape, `${model} shape`, 1e-9);
      expectNear(served.scale, fit.scale, `${model} scale`);
      expectNear(served.location, fit.location, `${model} location`);
      SIGNS.add(`${Math.sign(fit.shape)}`);
      fits.push(fit);
    }
    for (const years of [2, 20, 100]) expectStats(body.data[String(years)], fits.map((f) => level(f, years, sign)), `${model4(name)} ${years}`);
    expect(body.fit.baseline).toBeUndefined();
  });

  it('relative_to: each model\'s change in return level against its fit over 1971-2000, absolute and percent', async () => {
    const name = 'max_1day_precipitation';
    const base = `/api/climate-data/${NYC}/${scenario}/indicator/${name}/?dataset=${dataset}&models=${models.join(',')}&return_period=20,50&relative_to=1971&units=mm&agg=min,max,avg,median`;
    const absolute = (await get(base).expect(200)).body;
    const percent = (await get(`${base}&change=percent`).expect(200)).body;
    expect(absolute.relative_to).toEqual({ start_year: 1971, end_year: 2000, change: 'absolute' });
    expect(absolute.return_levels.baseline_window).toEqual({ scenario: 'historical', start_year: 1971, end_year: 2000 });
    const changes: Record<string, { absolute: number[]; percent: number[] }> = { '20': { absolute: [], percent: [] }, '50': { absolute: [], percent: [] } };
    for (const model of models) {
      const window = fitTo(Object.values(await yearly(dataset, scenario, name, model, 'years=2071:2100&units=mm')), 1);
      const baseline = fitTo(Object.values(await yearly(dataset, 'historical', name, model, 'years=1971:2000&units=mm')), 1);
      for (const years of [20, 50]) {
        const [w, b] = [quantile(window, years), quantile(baseline, years)];
        changes[years]!.absolute.push(w - b);
        changes[years]!.percent.push((100 * (w - b)) / b);
      }
    }
    for (const years of ['20', '50']) {
      expectStats(absolute.data[years], changes[years]!.absolute, `absolute ${years}`);
      expectStats(percent.data[years], changes[years]!.percent, `percent ${years}`);
    }
  });

  it("baseline_return_period: how often each model's 1971-2000 N-year event recurs in 2071-2100, capped at 1,000 years", async () => {
    for (const [name, sign] of [['max_high_temperature', 1], ['min_low_temperature', -1]] as const) {
      const res = await get(`/api/climate-data/${NYC}/${scenario}/indicator/${name}/?dataset=${dataset}&models=${models.join(',')}&baseline_return_period=10,100&relative_to=1971&agg=min,max,avg,median&include=fit`).expect(200);
      const body = res.body;
      expect(body.units).toBe('years');
      expect(body.relative_to).toEqual({ start_year: 1971, end_year: 2000 });
      expect(body.return_levels).toMatchObject({ baseline_return_periods: [10, 100], return_period_cap: 1000, fit_units: 'F' });
      for (const years of [10, 100]) {
        const periods: number[] = [];
        const capped: string[] = [];
        for (const model of models) {
          const window = fitTo(Object.values(await yearly(dataset, scenario, name, model, 'years=2071:2100')), sign);
          const baseline = fitTo(Object.values(await yearly(dataset, 'historical', name, model, 'years=1971:2000')), sign);
          expectNear(body.fit.baseline[model].shape, baseline.shape, `${model} baseline shape`);
          const event = level(baseline, years, sign);
          const every = recurrence(window, sign * event);
          if (every > 1000) capped.push(model);
          periods.push(Math.min(every, 1000));
        }
        expectStats(body.data[String(years)], periods, `${name} ${years}`);
        expect(body.models_capped[String(years)], `${name} ${years}`).toEqual(capped);
        // A warmer future: the old hot extreme is more frequent, the old cold extreme rarer.
        const mean = periods.reduce((a, b) => a + b, 0) / periods.length;
        if (sign > 0) expect(mean).toBeLessThan(years);
        else expect(mean).toBeGreaterThan(years);
      }
    }
  });
});

/** Short names in messages. */
const model4 = (name: string) => name.replace('_precipitation', '').replace('_temperature', '');

describe('the fits the tests above checked', () => {
  it('include models with a negative and with a positive shape', () => {
    expect([...SIGNS].sort()).toEqual(['-1', '1']);
  });
});

describe('fitting windows', () => {
  const base = `/api/climate-data/${NYC}/RCP85/indicator/max_1day_precipitation/?models=ACCESS1-0,CCSM4&units=mm&agg=min,max,avg,median&return_period=20`;
  const modelLevels = async (scenario: string, qs: string, years: number, sign = 1, name = 'max_1day_precipitation') => {
    const out: number[] = [];
    for (const model of ['ACCESS1-0', 'CCSM4']) out.push(level(fitTo(Object.values(await yearly('NEX-GDDP', scenario, name, model, qs)), sign), years, sign));
    return out;
  };

  it('years: any 20 or more of the scenario\'s years; fewer is a 400 naming years', async () => {
    const body = (await get(`${base}&years=2076:2100`).expect(200)).body;
    expect(body.return_levels.fitting_window).toEqual({ scenario: 'RCP85', start_year: 2076, end_year: 2100, years: 25 });
    expectStats(body.data['20'], await modelLevels('RCP85', 'years=2076:2100&units=mm', 20), 'years=2076:2100');
    // Years outside the scenario are left out: 2060:2080 has 10 of its years.
    expect((await get(`${base}&years=2060:2080`).expect(400)).body.detail).toBe(
      'years: return levels are fitted over at least 20 years of RCP85 (2071-2100 in this data); got 10 of its years.',
    );
    expect((await get(`${base}&years=2071:2080,2091:2100`).expect(200)).body.return_levels.fitting_window).toEqual({ scenario: 'RCP85', start_year: 2071, end_year: 2100, years: 20 });
  });

  it('historic_range: the range of the historical run, from any scenario', async () => {
    const body = (await get(`${base}&historic_range=1971`).expect(200)).body;
    expect(body.scenario).toBe('RCP85');
    expect(body.return_levels.fitting_window).toEqual({ scenario: 'historical', historic_range: 1971, start_year: 1971, end_year: 2000, years: 30 });
    expectStats(body.data['20'], await modelLevels('historical', 'years=1971:2000&units=mm', 20), 'historic_range=1971');
    expect((await get(`${base}&historic_range=1971&years=2071:2100`).expect(400)).body.detail).toBe('years and historic_range each set the fitting window of return levels: give one of them.');
    // The build's historical years (1971-2000) hold 20 years of the 1961 range, 10 of the 1951 one.
    expect((await get(`${base}&historic_range=1961`).expect(200)).body.return_levels.fitting_window).toEqual({ scenario: 'historical', historic_range: 1961, start_year: 1971, end_year: 1990, years: 20 });
    expect((await get(`${base}&historic_range=1951`).expect(400)).body.detail).toBe(
      'historic_range: return levels are fitted over at least 20 years; this data has 10 of 1951-1980 (its NEX-GDDP historical years are 1971-2000).',
    );
  });

  it('offset years: the last 30 whole ones (29 here: 2100 has no next year), each model fitted to its July-June minima', async () => {
    const q = `/api/climate-data/${NYC}/RCP85/indicator/min_low_temperature/?models=ACCESS1-0,CCSM4&agg=min,max,avg,median&time_aggregation=offset_yearly&return_period=20`;
    const body = (await get(q).expect(200)).body;
    expect(body.time_aggregation).toBe('offset_yearly');
    expect(body.return_levels.fitting_window).toEqual({ scenario: 'RCP85', start_year: 2071, end_year: 2099, years: 29 });
    const levels = await modelLevels('RCP85', 'time_aggregation=offset_yearly', 20, -1, 'min_low_temperature');
    expectStats(body.data['20'], levels, 'offset years');
  });
});

describe('areas and batches', () => {
  it('an area: each model\'s yearly series combined over the cells (area_agg), then fitted', async () => {
    const q = 'return_period=20,100&include=fit&models=ACCESS1-0,CCSM4&units=mm&agg=min,max,avg,median';
    const area = (await get(`/api/climate-data/area/RCP85/indicator/max_1day_precipitation/?city=${NYC}&area_agg=max&${q}`).expect(200)).body;
    expect(area.area_agg).toBe('max');
    expect(area.return_levels.fitting_window).toEqual({ scenario: 'RCP85', start_year: 2071, end_year: 2100, years: 30 });
    // The per-model series the area fits are the plain area answer's yearly values.
    const fits: Gev[] = [];
    for (const model of ['ACCESS1-0', 'CCSM4']) {
      const plain = (await get(`/api/climate-data/area/RCP85/indicator/max_1day_precipitation/?city=${NYC}&area_agg=max&models=${model}&agg=avg&units=mm&years=2071:2100`).expect(200)).body;
      const fit = fitTo(Object.values(plain.data as Record<string, { avg: number }>).map((v) => v.avg), 1);
      expectNear(area.fit.window[model].shape, fit.shape, `${model} area shape`);
      fits.push(fit);
    }
    for (const years of [20, 100]) expectStats(area.data[String(years)], fits.map((f) => quantile(f, years)), `area ${years}`);
    // More than one cell, and the maximum over them is not the city's cell alone.
    const city = (await get(`/api/climate-data/${NYC}/RCP85/indicator/max_1day_precipitation/?${q}`).expect(200)).body;
    expect(area.data).not.toEqual(city.data);
    // Its CSV and Arrow: the same values, the area as the location.
    const csv = (await get(`/api/climate-data/area/RCP85/indicator/max_1day_precipitation/?city=${NYC}&area_agg=max&${q}&format=csv`).expect(200)).text.split('\n');
    expect(csv[1]).toBe(`area/city/${NYC},NEX-GDDP,RCP85,max_1day_precipitation,mm,RCP85 2071-2100,20,min,${area.data['20'].min},`);
    const table = tableFromIPC((await bytes(get(`/api/climate-data/area/RCP85/indicator/max_1day_precipitation/?city=${NYC}&area_agg=max&${q}&format=arrow`)).expect(200)).body as Buffer);
    expect(table.schema.metadata.get('area_agg')).toBe('max');
    expect(table.getChild('value')!.get(0)).toBe(area.data['20'].min);
  });

  it('a batch: each place answers as its single request, in JSON, CSV and Arrow', async () => {
    const q = 'return_period=20&relative_to=1971&models=ACCESS1-0,CCSM4&units=mm&include=fit';
    const places = [{ city: NYC }, { lat: 40.85, lon: -73.7 }];
    const batch = (await request(t.app).post(`/api/climate-data/batch/RCP85/indicator/max_1day_precipitation/?${q}`).set('Authorization', `Token ${t.token}`).send({ locations: places }).expect(200)).body;
    expect(batch.return_levels.return_periods).toEqual([20]);
    expect(batch.results).toHaveLength(2);
    const city = (await get(`/api/climate-data/${NYC}/RCP85/indicator/max_1day_precipitation/?${q}`).expect(200)).body;
    const point = (await get(`/api/climate-data/40.85/-73.7/RCP85/indicator/max_1day_precipitation/?${q}`).expect(200)).body;
    for (const [i, single] of [city, point].entries()) {
      expect(batch.results[i].data).toEqual(single.data);
      expect(batch.results[i].fit).toEqual(single.fit);
      expect(batch.results[i].models_without_fit).toEqual([]);
    }
    expect(city.data).not.toEqual(point.data);

    const csv = (await request(t.app).post(`/api/climate-data/batch/RCP85/indicator/max_1day_precipitation/?${q}&format=csv`).set('Authorization', `Token ${t.token}`).send({ locations: places }).expect(200)).text;
    const singleCsv = (await get(`/api/climate-data/${NYC}/RCP85/indicator/max_1day_precipitation/?${q}&format=csv`).expect(200)).text;
    const [header, ...rows] = csv.trim().split('\n');
    const [singleHeader, ...singleRows] = singleCsv.trim().split('\n');
    expect(header).toBe(`city,lat,lon,${singleHeader}`);
    expect(rows.filter((r) => r.startsWith(`${NYC},,,`)).map((r) => r.slice(`${NYC},,,`.length))).toEqual(singleRows);
    expect(rows.length).toBe(2 * singleRows.length);

    const arrow = await bytes(request(t.app).post(`/api/climate-data/batch/RCP85/indicator/max_1day_precipitation/?${q}&format=arrow`).set('Authorization', `Token ${t.token}`).send({ locations: places })).expect(200);
    const table = tableFromIPC(arrow.body as Buffer);
    expect(table.schema.fields.map((f) => f.name)).toEqual(['city', 'lat', 'lon', 'location', 'return_period', 'statistic', 'value', 'model', 'units']);
    expect(table.numRows).toBe(rows.length);
    expect(JSON.parse(table.schema.metadata.get('return_levels')!)).toEqual(batch.return_levels);
  });
});

/** The body as bytes whatever its type (supertest buffers only text and JSON by itself). */
const bytes = (req: request.Test) =>
  req.buffer(true).parse((res, done) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => done(null, Buffer.concat(chunks)));
  });

describe('CSV and Arrow of one place', () => {
  it('carry the JSON answer\'s values, the fitting window, and with include=fit each model\'s parameters', async () => {
    const q = `/api/climate-data/${NYC}/RCP85/indicator/min_low_temperature/?models=ACCESS1-0,CCSM4&return_period=20,100&relative_to=1971&change=percent&include=fit`;
    const json = (await get(q).expect(200)).body;
    const csv = (await get(`${q}&format=csv`).expect(200)).text.trim().split('\n');
    expect(csv[0]).toBe('location,dataset,scenario,indicator,units,fitting_window,relative_to,change,return_period,statistic,value,model');
    expect(csv[1]).toBe(`city/${NYC},NEX-GDDP,RCP85,min_low_temperature,F,RCP85 2071-2100,1971-2000,percent,20,min,${json.data['20'].min},`);
    expect(csv).toContain(`city/${NYC},NEX-GDDP,RCP85,min_low_temperature,,RCP85 2071-2100,1971-2000,percent,,shape,${json.fit.window.CCSM4.shape},CCSM4`);
    expect(csv).toContain(`city/${NYC},NEX-GDDP,RCP85,min_low_temperature,F,RCP85 2071-2100,1971-2000,percent,,baseline_location,${json.fit.baseline['ACCESS1-0'].location},ACCESS1-0`);
    // 2 periods x 3 statistics, then 2 models x 3 parameters x (window, baseline).
    expect(csv).toHaveLength(1 + 6 + 12);

    const arrow = await bytes(get(`${q}&format=arrow`)).expect(200);
    const table = tableFromIPC(arrow.body as Buffer);
    expect(table.schema.fields.map((f) => f.name)).toEqual(['return_period', 'statistic', 'value', 'model', 'units']);
    const rows = table.toArray().map((r) => r.toJSON() as Record<string, unknown>);
    expect(rows[0]).toEqual({ return_period: '20', statistic: 'min', value: json.data['20'].min, model: '', units: 'F' });
    expect(JSON.parse(table.schema.metadata.get('models_without_fit')!)).toEqual([]);
    expect(JSON.parse(table.schema.metadata.get('relative_to')!)).toEqual(json.relative_to);

    const inverse = (await get(`/api/climate-data/${NYC}/RCP85/indicator/min_low_temperature/?models=ACCESS1-0,CCSM4&baseline_return_period=20&relative_to=1971&format=csv`).expect(200)).text.split('\n');
    expect(inverse[0]).toBe('location,dataset,scenario,indicator,units,fitting_window,relative_to,baseline_return_period,statistic,value');
    expect(inverse[1]).toMatch(new RegExp(`^city/${NYC},NEX-GDDP,RCP85,min_low_temperature,years,RCP85 2071-2100,1971-2000,20,min,`));
  });
});

describe('return-level errors', () => {
  const url = (name: string, qs: string) => `/api/climate-data/${NYC}/RCP85/indicator/${name}/?${qs}`;
  const bad: [string, string, string | RegExp][] = [
    ['max_1day_precipitation', 'return_period=1', "return_period accepts comma-separated return periods in years, integers from 2 to 200 (e.g. 20,100); got '1'."],
    ['max_1day_precipitation', 'return_period=20,201', /^return_period accepts .*got '201'\.$/],
    ['max_1day_precipitation', 'return_period=20.5', /^return_period accepts .*got '20\.5'\.$/],
    ['max_1day_precipitation', 'baseline_return_period=0&relative_to=1971', /^baseline_return_period accepts .*got '0'\.$/],
    ['frost_days', 'return_period=20', 'return_period applies to the indicators of a yearly extreme, max_high_temperature, min_low_temperature, max_1day_precipitation, max_nday_precipitation, max_wet_bulb_temperature, max_heat_index; frost_days has no return levels.'],
    ['total_precipitation', 'baseline_return_period=20&relative_to=1971', /^baseline_return_period applies to the indicators of a yearly extreme/],
    ['max_1day_precipitation', 'return_period=20&baseline_return_period=20&relative_to=1971', /^return_period and baseline_return_period cannot be combined/],
    ['max_1day_precipitation', 'return_period=20&time_aggregation=monthly', "time_aggregation must be yearly or offset_yearly with return_period: a return level is fitted to one extreme per year; got 'monthly'."],
    ['max_1day_precipitation', 'return_period=20&time_aggregation=window&windows=2071:2100', /^time_aggregation must be yearly or offset_yearly with return_period/],
    ['max_1day_precipitation', 'return_period=20&windows=2071:2100', 'windows does not apply with return_period: the fitting window is years, historic_range or warming_level.'],
    ['max_1day_precipitation', 'return_period=20&include=fits', "include must be fit; got 'fits'."],
    ['max_1day_precipitation', 'include=fit', 'include=fit applies only with return_period or baseline_return_period.'],
    ['max_1day_precipitation', 'baseline_return_period=20', /^baseline_return_period needs relative_to/],
    ['max_1day_precipitation', 'baseline_return_period=20&relative_to=1971&change=percent', 'change does not apply with baseline_return_period: the answer is a return period in years, not a change.'],
    ['max_1day_precipitation', 'return_period=20&relative_to=1971:1985', 'relative_to: with return levels the baseline is fitted too, over at least 20 years; 1971-1985 has 15.'],
    ['max_1day_precipitation', 'return_period=20&years=2071:2089', /^years: return levels are fitted over at least 20 years of RCP85 \(2071-2100 in this data\); got 19 of its years\.$/],
  ];
  it.each(bad)('%s?%s: 400 naming the parameter', async (name, qs, detail) => {
    const res = await get(url(name, qs)).expect(400);
    if (typeof detail === 'string') expect(res.body.detail).toBe(detail);
    else expect(res.body.detail).toMatch(detail);
  });

  it('the suite\'s build of 3 years per scenario: the default window is too short, and the 400 says why', async () => {
    const small = await testApp();
    const res = await request(small.app).get(url('max_high_temperature', 'return_period=20')).set('Authorization', `Token ${small.token}`).expect(400);
    expect(res.body.detail).toBe('years: return levels are fitted over at least 20 years of RCP85 (2050-2052 in this data); by default the window is its last 30, and it has 3.');
  });
});

describe('the OpenAPI document', () => {
  const schemaOf = (id: string) => operations(t.catalog).find((o) => o.operationId === id)!.ok.content['application/json']!.schema as z.ZodType;
  const check = (id: string, body: unknown) => {
    const parsed = schemaOf(id).safeParse(body);
    expect(parsed.success ? [] : parsed.error.issues.slice(0, 3), id).toEqual([]);
  };

  it('documents the return-level answers of a city, an area and a batch, and their parameters', async () => {
    const q = 'models=ACCESS1-0,CCSM4&include=fit&relative_to=1971';
    check('indicatorDataForCity', (await get(`/api/climate-data/${NYC}/RCP85/indicator/max_high_temperature/?return_period=20,100&${q}`).expect(200)).body);
    check('indicatorDataForCity', (await get(`/api/climate-data/${NYC}/RCP85/indicator/max_high_temperature/?baseline_return_period=20&${q}`).expect(200)).body);
    check('indicatorDataAtPoint', (await get(`/api/climate-data/40.7/-74.1/RCP85/indicator/min_low_temperature/?return_period=20&historic_range=1971&include=fit`).expect(200)).body);
    check('indicatorDataForArea', (await get(`/api/climate-data/area/RCP85/indicator/max_1day_precipitation/?city=${NYC}&return_period=20&${q}`).expect(200)).body);
    const batch = await request(t.app).post(`/api/climate-data/batch/RCP85/indicator/max_1day_precipitation/?baseline_return_period=50&${q}`).set('Authorization', `Token ${t.token}`).send({ locations: [{ city: NYC }, { lat: -45, lon: 170 }] }).expect(200);
    expect(batch.body.results[0].models_capped).toBeDefined();
    check('indicatorDataBatch', batch.body);
    const doc = (await request(t.app).get('/openapi.json').expect(200)).body;
    const params = doc.paths['/api/climate-data/{city}/{scenario}/indicator/{indicator_name}/'].get.parameters as { name: string; description: string }[];
    for (const name of ['return_period', 'baseline_return_period', 'include', 'n']) expect(params.find((p) => p.name === name), name).toBeDefined();
    expect(params.find((p) => p.name === 'return_period')!.description).toMatch(/Used by: max_high_temperature, min_low_temperature, max_1day_precipitation, max_nday_precipitation, max_wet_bulb_temperature, max_heat_index; the other indicators answer 400\.$/);
    expect(params.find((p) => p.name === 'historic_range')!.description).toMatch(/With return_period or baseline_return_period, the fitting window instead/);
  });
});
