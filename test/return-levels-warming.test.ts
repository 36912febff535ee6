import { tableFromIPC } from 'apache-arrow';
import request from 'supertest';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { z } from 'zod';
import { operations } from '../src/api/openapi.js';
import { DATASETS } from '../src/reference/fixtures.js';
import { testApp, type TestApp } from './helpers.js';
import { gevOf, quantile, recurrence, type Gev } from './support/independentGev.js';
import { WARMING_BUILD } from './support/warmingBuild.js';
import { tableWindow } from './support/warmingTable.js';

/**
 * Return levels at global warming levels against an independent computation: per member (a model
 * in a scenario with a window at the level in the published table, whose years the build holds),
 * its yearly extremes from the plain endpoint (models=<one>&agg=avg) over its window's years in the
 * scenario and, before the scenario, in the historical run; L-moments, the GEV and its quantile
 * computed in the test (test/support/independentGev.ts); then the statistics across the members.
 * On the build whose years hold the windows (test/support/warmingBuild.ts).
 */

const NYC = 5128581;
let t: TestApp;
const get = (url: string) => request(t.app).get(url).set('Authorization', `Token ${t.token}`);

beforeAll(async () => {
  t = await testApp({ THROTTLE_BURST_RATE: '1000000/min', THROTTLE_SUSTAINED_RATE: '100000000/day' }, inject('warmingDataDir'));
});

const yearsOf = (dataset: string, scenario: string): [number, number] => {
  const own = DATASETS.find((d) => d.name === dataset)!.years[scenario]!;
  const built = WARMING_BUILD.years[scenario];
  return built ? [Math.max(own[0], built[0]), Math.min(own[1], built[1])] : own;
};

/** The members at a level: each model of the build with a run of a scenario and a window there within the build's years. */
function members(dataset: string, scenarios: string[], level: string) {
  const d = DATASETS.find((x) => x.name === dataset)!;
  return scenarios.flatMap((scenario) =>
    WARMING_BUILD.models[dataset]!.filter((m) => d.runs.find((r) => r.model === m)!.scenarios.includes(scenario)).flatMap((model) => {
      const w = tableWindow(dataset, model, scenario, level);
      if (!w) return [];
      return w.start >= yearsOf(dataset, 'historical')[0] && w.end <= yearsOf(dataset, scenario)[1] ? [{ model, scenario, start: w.start, end: w.end }] : [];
    }),
  );
}

/** One model's yearly values from the plain endpoint, by year. */
async function yearly(dataset: string, scenario: string, name: string, model: string, years: string, qs: string): Promise<Record<string, number>> {
  const res = await get(`/api/climate-data/${NYC}/${scenario}/indicator/${name}/?dataset=${dataset}&models=${model}&agg=avg&years=${years}&${qs}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return Object.fromEntries(Object.entries(res.body.data as Record<string, { avg: number }>).map(([k, v]) => [k, v.avg]));
}

/** A member's yearly extremes over its window: the scenario's years, and the historical run's before them. */
async function windowSeries(dataset: string, name: string, m: { model: string; scenario: string; start: number; end: number }, qs: string): Promise<number[]> {
  const [first] = yearsOf(dataset, m.scenario);
  const values: Record<string, number> = {};
  if (m.end >= first) Object.assign(values, await yearly(dataset, m.scenario, name, m.model, `${Math.max(m.start, first)}:${m.end}`, qs));
  if (m.start < first) Object.assign(values, await yearly(dataset, 'historical', name, m.model, `${m.start}:${Math.min(m.end, first - 1)}`, qs));
  expect(Object.keys(values), `${m.model} ${m.scenario} ${m.start}-${m.end}`).toHaveLength(m.end - m.start + 1);
  return Object.values(values);
}

const fitTo = (values: number[], sign: number) => gevOf(values.map((v) => sign * v));
const level = (f: Gev, years: number, sign: number) => sign * quantile(f, years);

function expectNear(actual: number, expected: number, what: string, rel = 1e-9) {
  expect(Math.abs(actual - expected), `${what}: ${actual} vs ${expected}`).toBeLessThanOrEqual(rel * Math.max(1, Math.abs(expected)));
}

function expectStats(actual: Record<string, number>, values: number[], what: string) {
  const s = [...values].sort((a, b) => a - b);
  const mid = (s.length - 1) / 2;
  const expected = { min: s[0]!, max: s.at(-1)!, avg: s.reduce((a, b) => a + b, 0) / s.length, median: (s[Math.floor(mid)]! + s[Math.ceil(mid)]!) / 2 };
  for (const [name, v] of Object.entries(expected)) expectNear(actual[name]!, v, `${what} ${name}`);
  expect(actual.model_count, `${what} model_count`).toBe(values.length);
}

const STATS = 'agg=min,max,avg,median';
/** What the fits the cases checked covered: the shapes' signs, and windows that start in the historical run. */
const SIGNS = new Set<number>();
let historicalStarts = 0;
const modelsOf = (dataset: string) => WARMING_BUILD.models[dataset]!.join(',');

interface Case {
  dataset: string;
  scenario: string;
  name: string;
  sign: number;
  qs: string;
  levels: string[];
  /** relative_to's years, and its span. */
  baseline?: [string, number, number];
  pooled?: string[];
}

const cases: Case[] = [
  // CCSM4's 1.0 °C window starts in the historical run; MIROC-ESM is in no table.
  { dataset: 'NEX-GDDP', scenario: 'RCP85', name: 'max_1day_precipitation', sign: 1, qs: 'units=mm', levels: ['1.0', '2.0', '4.0'] },
  { dataset: 'NEX-GDDP', scenario: 'RCP85', name: 'min_low_temperature', sign: -1, qs: 'units=C', levels: ['1.5', '3.0'], baseline: ['1971', 1971, 2000] },
  // Pooled: each model once per scenario that reaches the level (RCP4.5 ends in 2050 in this build).
  { dataset: 'NEX-GDDP', scenario: 'RCP85', name: 'max_high_temperature', sign: 1, qs: 'units=F', levels: ['1.5', '2.0'], pooled: ['RCP45', 'RCP85'] },
  // CanESM5's 1.0 °C window (1990-2009) is nearly all historical.
  { dataset: 'NEX-GDDP-CMIP6', scenario: 'ssp585', name: 'max_nday_precipitation', sign: 1, qs: 'n=5&units=mm', levels: ['1.0', '2.0'], baseline: ['1981', 1981, 2010] },
  { dataset: 'NEX-GDDP-CMIP6', scenario: 'ssp245', name: 'min_low_temperature', sign: -1, qs: 'units=K', levels: ['1.5', '2.0'] },
  { dataset: 'LOCA', scenario: 'RCP85', name: 'max_1day_precipitation', sign: 1, qs: 'units=in', levels: ['2.0'], baseline: ['1961:1990', 1961, 1990] },
];

describe('return levels at warming levels, against the per-model answers and the table', () => {
  it.each(cases.map((c) => [`${c.dataset} ${c.scenario} ${c.name} at ${c.levels.join(',')}${c.baseline ? ` relative_to=${c.baseline[0]}` : ''}${c.pooled ? ' pooled' : ''}`, c] as const))('%s', async (_, c) => {
    const change = c.baseline ? `&relative_to=${c.baseline[0]}&change=percent` : '';
    const res = await get(
      `/api/climate-data/${NYC}/${c.scenario}/indicator/${c.name}/?dataset=${c.dataset}&models=${modelsOf(c.dataset)}&warming_level=${c.levels.join(',')}&return_period=100,20&include=fit&${STATS}&${c.qs}${change}${c.pooled ? '&pool_scenarios=true' : ''}`,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const body = res.body;
    const scenarios = c.pooled ?? [c.scenario];
    expect(body.return_levels.fitting_window).toEqual({ warming_levels: c.levels, scenarios, years: 20 });
    expect(body.return_levels.return_periods).toEqual([20, 100]);
    expect(Object.keys(body.data)).toEqual(c.levels);
    const baselines = new Map<string, Gev>();
    for (const l of c.levels) {
      const used = members(c.dataset, scenarios, l);
      expect(used.length, `${l}: the case needs models at the level`).toBeGreaterThan(0);
      // The models used are the warming_levels member's, with their windows.
      expect(body.warming_levels.levels[l].models.map((m: { model: string; scenario: string; start_year: number; end_year: number }) => [m.model, m.scenario, m.start_year, m.end_year])).toEqual(
        used.map((m) => [m.model, m.scenario, m.start, m.end]),
      );
      expect(Object.keys(body.data[l])).toEqual(['20', '100']);
      expect(body.models_without_fit[l]).toEqual([]);
      const levels: Record<string, number[]> = { '20': [], '100': [] };
      for (const [k, m] of used.entries()) {
        const fit = fitTo(await windowSeries(c.dataset, c.name, m, c.qs), c.sign);
        const served = body.fit[l].window[k];
        expect([served.model, served.scenario]).toEqual([m.model, m.scenario]);
        expectNear(served.shape, fit.shape, `${l} ${m.model} shape`);
        expectNear(served.scale, fit.scale, `${l} ${m.model} scale`);
        expectNear(served.location, fit.location, `${l} ${m.model} location`);
        SIGNS.add(Math.sign(fit.shape));
        if (m.start < yearsOf(c.dataset, m.scenario)[0]) historicalStarts++;
        let base: Gev | undefined;
        if (c.baseline) {
          const [, s, e] = c.baseline;
          if (!baselines.has(m.model)) baselines.set(m.model, fitTo(Object.values(await yearly(c.dataset, 'historical', c.name, m.model, `${s}:${e}`, c.qs)), c.sign));
          base = baselines.get(m.model)!;
          expectNear(body.fit[l].baseline[k].shape, base.shape, `${l} ${m.model} baseline shape`);
        }
        for (const years of [20, 100]) {
          const w = level(fit, years, c.sign);
          if (!base) levels[years]!.push(w);
          else {
            const b = level(base, years, c.sign);
            levels[years]!.push((100 * (w - b)) / b);
          }
        }
      }
      for (const years of ['20', '100']) expectStats(body.data[l][years], levels[years]!, `${c.dataset} ${l} ${years}`);
    }
    if (c.baseline) expect(body.relative_to).toEqual({ start_year: c.baseline[1], end_year: c.baseline[2], change: 'percent' });
  });
});

describe('the fits the cases above checked', () => {
  it('include shapes of both signs, and windows that start before their scenario', () => {
    expect([...SIGNS].sort()).toEqual([-1, 1]);
    expect(historicalStarts).toBeGreaterThan(0);
  });
});

describe('how often the baseline event recurs at a warming level (baseline_return_period)', () => {
  it.each([
    ['NEX-GDDP', 'RCP85', '1971', 1971, 2000, ['2.0', '4.0']],
    ['NEX-GDDP-CMIP6', 'ssp585', '1981', 1981, 2010, ['1.5', '3.0']],
  ] as const)('%s %s against %s', async (dataset, scenario, param, s, e, levels) => {
    for (const [name, sign] of [['max_high_temperature', 1], ['min_low_temperature', -1]] as const) {
      const res = await get(`/api/climate-data/${NYC}/${scenario}/indicator/${name}/?dataset=${dataset}&models=${modelsOf(dataset)}&warming_level=${levels.join(',')}&baseline_return_period=10,100&relative_to=${param}&${STATS}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const body = res.body;
      expect(body.units).toBe('years');
      expect(body.relative_to).toEqual({ start_year: s, end_year: e });
      expect(body.return_levels).toMatchObject({ baseline_return_periods: [10, 100], return_period_cap: 1000, baseline_window: { scenario: 'historical', start_year: s, end_year: e } });
      for (const l of levels) {
        const used = members(dataset, [scenario], l);
        expect(used.length).toBeGreaterThan(0);
        for (const years of [10, 100]) {
          const periods: number[] = [];
          const capped: { model: string; scenario: string }[] = [];
          for (const m of used) {
            const window = fitTo(await windowSeries(dataset, name, m, ''), sign);
            const baseline = fitTo(Object.values(await yearly(dataset, 'historical', name, m.model, `${s}:${e}`, '')), sign);
            const every = recurrence(window, sign * level(baseline, years, sign));
            if (every > 1000) capped.push({ model: m.model, scenario: m.scenario });
            periods.push(Math.min(every, 1000));
          }
          expectStats(body.data[l][String(years)], periods, `${name} ${l} ${years}`);
          expect(body.models_capped[l][String(years)], `${name} ${l} ${years}`).toEqual(capped);
        }
      }
    }
  });
});

describe('the answer at warming levels in every form', () => {
  const qs = `dataset=NEX-GDDP&models=${modelsOf('NEX-GDDP')}&warming_level=1.5,2.0&return_period=20,50&relative_to=1971&include=fit&agg=median,90th`;
  const city = `/api/climate-data/${NYC}/RCP85/indicator/max_1day_precipitation/?${qs}`;

  it('CSV and Arrow carry the JSON values, with the level, the fits with their scenario', async () => {
    const json = (await get(city).expect(200)).body;
    const csv = (await get(`${city}&format=csv`).expect(200)).text.trim().split('\n');
    expect(csv[0]).toBe('location,dataset,scenario,indicator,units,fitting_window,relative_to,change,warming_level,return_period,statistic,value,model,model_scenario');
    const statRows = csv.slice(1).filter((l) => l.split(',')[9] !== '');
    expect(statRows).toHaveLength(2 * 2 * 2);
    for (const line of statRows) {
      const [, dataset, scenario, , units, window, relativeTo, change, lvl, period, stat, value] = line.split(',');
      expect([dataset, scenario, units, window, relativeTo, change]).toEqual(['NEX-GDDP', 'RCP85', 'in', "each model's 20 years at the warming level", '1971-2000', 'absolute']);
      expect(Number(value)).toBe(json.data[lvl!][period!][stat!]);
    }
    const fitRows = csv.slice(1).filter((l) => l.split(',')[9] === '');
    const shapes = fitRows.filter((l) => l.split(',')[10] === 'shape');
    expect(shapes.map((l) => l.split(',').slice(-2).join(' '))).toEqual(
      ['1.5', '2.0'].flatMap((l) => json.fit[l].window.map((m: { model: string; scenario: string }) => `${m.model} ${m.scenario}`)),
    );
    for (const line of shapes) {
      const cols = line.split(',');
      const fit = json.fit[cols[8]!].window.find((m: { model: string }) => m.model === cols[12]);
      expect(Number(cols[11])).toBe(fit.shape);
    }
    const table = tableFromIPC((await get(`${city}&format=arrow`).responseType('blob').expect(200)).body as Buffer);
    expect(table.schema.fields.map((f) => f.name)).toEqual(['warming_level', 'return_period', 'statistic', 'value', 'model', 'model_scenario', 'units']);
    expect(JSON.parse(table.schema.metadata.get('warming_levels')!)).toEqual(json.warming_levels);
    expect(JSON.parse(table.schema.metadata.get('models_without_fit')!)).toEqual(json.models_without_fit);
    const rows = table.toArray().map((r) => r.toJSON());
    for (const r of rows.filter((r) => r.return_period !== '')) expect(r.value).toBe(json.data[r.warming_level][r.return_period][r.statistic]);
  });

  it('a point, a batch and an area answer as the city does', async () => {
    const json = (await get(city).expect(200)).body;
    const point = (await get(`/api/climate-data/40.7/-74.1/RCP85/indicator/max_1day_precipitation/?${qs}`).expect(200)).body;
    expect(point.data).toEqual(json.data);
    const locations = [{ city: NYC }, { lat: 40.7, lon: -74.1 }, { lat: -45, lon: 170 }];
    const post = (format: string) => request(t.app).post(`/api/climate-data/batch/RCP85/indicator/max_1day_precipitation/?${qs}&format=${format}`).set('Authorization', `Token ${t.token}`).send({ locations });
    const batch = (await post('json').expect(200)).body;
    expect(batch.warming_levels).toEqual(json.warming_levels);
    expect(batch.return_levels).toEqual(json.return_levels);
    for (const k of [0, 1]) {
      expect(batch.results[k].data).toEqual(json.data);
      expect(batch.results[k].fit).toEqual(json.fit);
      expect(batch.results[k].models_without_fit).toEqual(json.models_without_fit);
    }
    expect(batch.results[2].error.status).toBe(404);
    const csv = (await post('csv').expect(200)).text.trim().split('\n');
    expect(csv[0]).toMatch(/,fitting_window,relative_to,change,warming_level,return_period,statistic,value,model,model_scenario$/);
    const arrow = tableFromIPC((await post('arrow').responseType('blob').expect(200)).body as Buffer);
    expect(arrow.schema.fields.map((f) => f.name)).toContain('warming_level');
    // An area whose only cell with data is New York City's: that cell's series, weighted by itself.
    const area = (await get(`/api/climate-data/area/RCP85/indicator/max_1day_precipitation/?bbox=-74.2,40.6,-74.05,40.7&${qs}`).expect(200)).body;
    expect(area.area.properties.cells_with_data).toBe(1);
    expect(area.warming_levels).toEqual(json.warming_levels);
    for (const l of ['1.5', '2.0']) {
      for (const years of ['20', '50']) for (const stat of ['median', '90th']) expectNear(area.data[l][years][stat], json.data[l][years][stat], `area ${l} ${years} ${stat}`, 1e-12);
    }
  });

  it('the OpenAPI document describes the answers', async () => {
    const schemaOf = (id: string) => operations(t.catalog).find((o) => o.operationId === id)!.ok.content['application/json']!.schema as z.ZodType;
    const check = (id: string, body: unknown) => {
      const parsed = schemaOf(id).safeParse(body);
      expect(parsed.success ? [] : parsed.error.issues.slice(0, 3), id).toEqual([]);
    };
    check('indicatorDataForCity', (await get(city).expect(200)).body);
    check('indicatorDataForCity', (await get(`/api/climate-data/${NYC}/RCP85/indicator/max_high_temperature/?${qs.replace('return_period', 'baseline_return_period')}&pool_scenarios=true`).expect(200)).body);
    check('indicatorDataForArea', (await get(`/api/climate-data/area/RCP85/indicator/max_1day_precipitation/?bbox=-74.2,40.6,-74.05,40.7&${qs}`).expect(200)).body);
    const batch = await request(t.app).post(`/api/climate-data/batch/RCP85/indicator/max_1day_precipitation/?${qs}`).set('Authorization', `Token ${t.token}`).send({ locations: [{ city: NYC }] }).expect(200);
    check('indicatorDataBatch', batch.body);
  });
});

describe('bad requests at warming levels', () => {
  const url = (qs: string) => `/api/climate-data/${NYC}/RCP85/indicator/max_1day_precipitation/?dataset=NEX-GDDP&warming_level=2.0&${qs}`;
  const bad: [string, string | RegExp][] = [
    ['return_period=20&historic_range=1971', "historic_range and warming_level each set the fitting window of return levels: give one of them (at a warming level, each model's window is its own 20 years at the level)."],
    ['return_period=20&years=2071:2100', /^warming_level replaces years/],
    ['return_period=20&time_aggregation=monthly', "time_aggregation must be yearly or offset_yearly with return_period: a return level is fitted to one extreme per year; got 'monthly'."],
    ['return_period=1', /^return_period accepts comma-separated return periods in years, integers from 2 to 200/],
    ['return_period=20&relative_to=1971:1985', 'relative_to: with return levels the baseline is fitted too, over at least 20 years; 1971-1985 has 15.'],
    ['baseline_return_period=20', /^baseline_return_period needs relative_to/],
  ];
  it.each(bad)('%s: 400 naming the parameter', async (qs, detail) => {
    const res = await get(url(qs)).expect(400);
    if (typeof detail === 'string') expect(res.body.detail).toBe(detail);
    else expect(res.body.detail).toMatch(detail);
  });

  it('an indicator without return levels is a 400 at warming levels too', async () => {
    const res = await get(`/api/climate-data/${NYC}/RCP85/indicator/frost_days/?dataset=NEX-GDDP&warming_level=2.0&return_period=20`).expect(400);
    expect(res.body.detail).toMatch(/^return_period applies to the indicators of a yearly extreme/);
  });
});
