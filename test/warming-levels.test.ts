import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import request from 'supertest';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { cityIndicatorData } from '../src/api/responseShapes.js';
import { DATASETS } from '../src/reference/fixtures.js';
import { testApp, type TestApp } from './helpers.js';
import { WARMING_BUILD } from './support/warmingBuild.js';
import { tableRows, tableWindow } from './support/warmingTable.js';
import { npPercentile } from './support/percentile.js';

/**
 * Indicators at global warming levels, checked against a computation here from the per-model
 * answers of the plain endpoints and the published tables: each model asked for alone
 * (models=<one>&agg=avg is its own value) over its window's years in the scenario and, for the
 * years before the scenario, in the historical run; its mean per slot of the year, its change
 * against its own baseline, then the statistics across the models that reach the level. The
 * build's years hold the windows (test/support/warmingBuild.ts).
 */

const NYC = 5128581;
const AGGS = ['min', 'max', 'avg', 'median', '10th', '90th', 'stddev'];

let t: TestApp;
const get = (url: string) => request(t.app).get(url).set('Authorization', `Token ${t.token}`);

beforeAll(async () => {
  t = await testApp({ THROTTLE_BURST_RATE: '1000000/min', THROTTLE_SUSTAINED_RATE: '100000000/day' }, inject('warmingDataDir'));
});

type Stats = Record<string, number | null>;

/** The indicator's own parameters, so that every indicator can be asked for. */
function ownParams(name: string, dataset: string): string {
  const cmip6 = dataset === 'NEX-GDDP-CMIP6' || dataset === 'LOCA2';
  if (name === 'extreme_heat_events' || name === 'heat_wave_incidents') return `historic_range=${cmip6 ? 1981 : 1971}`;
  if (name === 'max_temperature_threshold') return 'threshold=80&threshold_units=F&threshold_comparator=gte';
  return '';
}

/** Where a place is asked: a city's path, or an area's (with its query). */
interface Place {
  path: (scenario: string) => string;
  query: string;
}
const city = (id: number): Place => ({ path: (s) => `/api/climate-data/${id}/${s}/indicator/`, query: '' });
// A bbox over New York City and Los Angeles: their two NEX-GDDP cells, weighted by area.
const AREA: Place = { path: (s) => `/api/climate-data/area/${s}/indicator/`, query: 'bbox=-119,33,-73,41' };

async function ask(place: Place, dataset: string, scenario: string, name: string, qs: string) {
  const res = await get(`${place.path(scenario)}${name}/?dataset=${dataset}&${place.query}&${ownParams(name, dataset)}&${qs}`);
  expect(res.status, `${scenario} ${name} ${qs}: ${JSON.stringify(res.body)}`).toBe(200);
  return res.body;
}

/** One model's value per period over some years: asked for alone, its avg is its value. */
const asked = new Map<string, Promise<Map<string, number | null>>>();
function modelValues(place: Place, dataset: string, scenario: string, name: string, model: string, qs: string): Promise<Map<string, number | null>> {
  const key = [place.query, dataset, scenario, name, model, qs].join('|');
  if (!asked.has(key)) {
    asked.set(
      key,
      ask(place, dataset, scenario, name, `models=${model}&agg=avg&${qs}`).then((body: { data: Record<string, Stats> }) => new Map(Object.entries(body.data).map(([p, s]) => [p, s.avg!]))),
    );
  }
  return asked.get(key)!;
}

// ---- the independent computation ----

function statsAcross(values: number[]): Stats {
  const v = [...values].sort((a, b) => a - b);
  if (v.length === 0) return { ...Object.fromEntries(AGGS.map((a) => [a, null])), model_count: 0 };
  const mean = v.reduce((a, b) => a + b, 0) / v.length;
  return {
    min: v[0]!,
    max: v.at(-1)!,
    avg: mean,
    median: npPercentile(v, 50),
    '10th': npPercentile(v, 10),
    '90th': npPercentile(v, 90),
    stddev: Math.sqrt(v.reduce((a, x) => a + (x - mean) ** 2, 0) / v.length),
    model_count: v.length,
  };
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

/** The slot of the year a period key names: '03' of 2050-03, 'Q1' of 2050-Q1, '01' of a custom 2050-01; '' for years. */
function slot(agg: string, period: string): string {
  if (agg === 'monthly' || agg === 'custom') return period.slice(5);
  if (agg === 'quarterly') return period.slice(5);
  return '';
}

/** The mean of a model's values per slot. */
function slotMeans(values: Map<string, number | null>, agg: string): Map<string, number | null> {
  const bySlot = new Map<string, number[]>();
  for (const [period, v] of values) {
    if (v === null) continue;
    bySlot.set(slot(agg, period), [...(bySlot.get(slot(agg, period)) ?? []), v]);
  }
  return new Map([...bySlot].map(([k, vs]) => [k, mean(vs)]));
}

function change(value: number | null, base: number | null | undefined, kind: string | undefined): number | null {
  if (value === null || kind === undefined) return value;
  if (base === null || base === undefined) return null;
  if (kind === 'absolute') return value - base;
  return base === 0 ? null : (100 * (value - base)) / base;
}

const yearsOf = (dataset: string, scenario: string): [number, number] => {
  const own = DATASETS.find((d) => d.name === dataset)!.years[scenario]!;
  const built = WARMING_BUILD.years[scenario];
  return built ? [Math.max(own[0], built[0]), Math.min(own[1], built[1])] : own;
};

interface Case {
  dataset: string;
  scenario: string;
  name: string;
  agg: string;
  extra: string;
  levels: string[];
  relativeTo?: { param: string; span: [number, number]; change: 'absolute' | 'percent' };
  pooled?: boolean;
  place?: Place;
}

/** The members of a level: each model of the build with a run of a scenario and a window there whose years the build has. */
function members(c: Case, level: string) {
  const d = DATASETS.find((x) => x.name === c.dataset)!;
  const scenarios = c.pooled ? Object.keys(d.years).filter((s) => s !== 'historical' && Object.keys(d.years).includes(s)) : [c.scenario];
  return scenarios.flatMap((scenario) =>
    WARMING_BUILD.models[c.dataset]!.filter((m) => d.runs.find((r) => r.model === m)!.scenarios.includes(scenario)).flatMap((model) => {
      const w = tableWindow(c.dataset, model, scenario, level);
      if (!w) return [];
      const [, last] = yearsOf(c.dataset, scenario);
      const [hist0] = yearsOf(c.dataset, 'historical');
      return w.start >= hist0 && w.end <= last ? [{ model, scenario, start: w.start, end: w.end, member: w.member, reference: w.reference }] : [];
    }),
  );
}

/** The expected `data` of a case, level by level. */
async function expected(c: Case): Promise<Record<string, unknown>> {
  const place = c.place ?? city(NYC);
  const periods = `time_aggregation=${c.agg}&${c.extra}`;
  const out: Record<string, unknown> = {};
  for (const level of c.levels) {
    const bySlot = new Map<string, number[]>();
    for (const m of members(c, level)) {
      const [first] = yearsOf(c.dataset, m.scenario);
      const values = new Map<string, number | null>();
      if (m.end >= first) for (const [p, v] of await modelValues(place, c.dataset, m.scenario, c.name, m.model, `${periods}&years=${Math.max(m.start, first)}:${m.end}`)) values.set(p, v);
      if (m.start < first) for (const [p, v] of await modelValues(place, c.dataset, 'historical', c.name, m.model, `${periods}&years=${m.start}:${Math.min(m.end, first - 1)}`)) values.set(p, v);
      let base = new Map<string, number | null>();
      if (c.relativeTo) {
        const [s, e] = c.relativeTo.span;
        // Offset years of the baseline: those whose two calendar years are both in it.
        base = slotMeans(await modelValues(place, c.dataset, 'historical', c.name, m.model, `${periods}&years=${s}:${c.agg === 'offset_yearly' ? e - 1 : e}`), c.agg);
      }
      for (const [k, v] of slotMeans(values, c.agg)) {
        const changed = change(v, base.get(k), c.relativeTo?.change);
        if (changed !== null) bySlot.set(k, [...(bySlot.get(k) ?? []), changed]);
      }
    }
    if (c.agg === 'yearly' || c.agg === 'offset_yearly') out[level] = statsAcross(bySlot.get('') ?? []);
    else {
      const slots = c.agg === 'monthly' ? Array.from({ length: 12 }, (_, i) => String(i + 1).padStart(2, '0')) : c.agg === 'quarterly' ? ['Q1', 'Q2', 'Q3', 'Q4'] : c.extra.replace('custom_time_agg=', '').split(',').map((_, i) => String(i + 1).padStart(2, '0'));
      out[level] = Object.fromEntries(slots.map((k) => [k, statsAcross(bySlot.get(k) ?? [])]));
    }
  }
  return out;
}

function expectSame(actual: unknown, wanted: unknown, what: string) {
  if (wanted === null || typeof wanted !== 'object') {
    if (typeof wanted === 'number' && !Number.isInteger(wanted)) expect(actual as number, what).toBeCloseTo(wanted, 6);
    else expect(actual, what).toBe(wanted);
    return;
  }
  expect(Object.keys(actual as object), what).toEqual(Object.keys(wanted));
  for (const [k, v] of Object.entries(wanted)) expectSame((actual as Record<string, unknown>)[k], v, `${what} ${k}`);
}

/** The build's models, each used where it has a run (pooled), or those with a run of the scenario. */
function modelsParam(c: Case): string {
  const d = DATASETS.find((x) => x.name === c.dataset)!;
  return WARMING_BUILD.models[c.dataset]!.filter((m) => c.pooled || d.runs.find((r) => r.model === m)!.scenarios.includes(c.scenario)).join(',');
}

async function check(c: Case) {
  const qs = `models=${modelsParam(c)}&warming_level=${c.levels.join(',')}&time_aggregation=${c.agg}&${c.extra}&agg=${AGGS.join(',')}` +
    (c.relativeTo ? `&relative_to=${c.relativeTo.param}&change=${c.relativeTo.change}` : '') + (c.pooled ? '&pool_scenarios=true' : '');
  const body = await ask(c.place ?? city(NYC), c.dataset, c.scenario, c.name, qs);
  const wanted = await expected(c);
  expectSame(body.data, wanted, `${c.dataset} ${c.scenario} ${c.name} ${c.agg}`);
  for (const level of c.levels) {
    const used = members(c, level);
    expect(used.length, `${level}: the case needs models at the level`).toBeGreaterThan(0);
    expect(body.warming_levels.levels[level].models).toEqual(
      used.map((m) => ({ model: m.model, scenario: m.scenario, start_year: m.start, end_year: m.end, table_member: m.member, reference_period: m.reference })),
    );
  }
  // The models without a window, and why, from the table and the build's years.
  const d = DATASETS.find((x) => x.name === c.dataset)!;
  for (const level of c.levels) {
    const missing = { not_reached: [] as object[], not_in_table: [] as object[], outside_data: [] as object[] };
    const scenarios = c.pooled ? Object.keys(d.years).filter((s) => s !== 'historical') : [c.scenario];
    for (const scenario of scenarios) {
      for (const model of modelsParam(c).split(',').filter((m) => d.runs.find((r) => r.model === m)!.scenarios.includes(scenario))) {
        const w = tableWindow(c.dataset, model, scenario, level);
        if (tableRows(c.dataset, model, scenario).length === 0) missing.not_in_table.push({ model, scenario });
        else if (!w) missing.not_reached.push({ model, scenario });
        else if (!members(c, level).some((m) => m.model === model && m.scenario === scenario)) missing.outside_data.push({ model, scenario, start_year: w.start, end_year: w.end });
      }
    }
    expect(body.warming_levels.levels[level], level).toMatchObject(missing);
  }
  expect(body.warming_levels.pool_scenarios).toBe(c.pooled ?? false);
  if (c.relativeTo) expect(body.relative_to).toEqual({ start_year: c.relativeTo.span[0], end_year: c.relativeTo.span[1], change: c.relativeTo.change });
  return body;
}

describe('indicators at warming levels, against the per-model answers and the table', () => {
  const cases: Case[] = [
    // CCSM4's 1.0 °C window (1988-2007) starts in the historical run; GFDL-ESM2G (1861-1900 table) misses 2.0 °C in RCP4.5.
    // RCP4.5 ends in 2050 in this build: GFDL-ESM2G's 1.5 °C window (2041-2060) is outside its years.
    { dataset: 'NEX-GDDP', scenario: 'RCP45', name: 'frost_days', agg: 'yearly', extra: '', levels: ['1.0', '1.5', '2.0'] },
    { dataset: 'NEX-GDDP', scenario: 'RCP85', name: 'average_high_temperature', agg: 'monthly', extra: '', levels: ['1.5', '4.0'], relativeTo: { param: '1971', span: [1971, 2000], change: 'absolute' } },
    { dataset: 'NEX-GDDP', scenario: 'RCP85', name: 'dry_spells', agg: 'offset_yearly', extra: '', levels: ['1.0', '3.0'] },
    // Pooled: RCP4.5 and RCP8.5, each model once per scenario that reaches the level.
    { dataset: 'NEX-GDDP', scenario: 'RCP85', name: 'frost_days', agg: 'quarterly', extra: '', levels: ['1.0', '2.0'], pooled: true, relativeTo: { param: '1961:1990', span: [1961, 1990], change: 'percent' } },
    { dataset: 'LOCA', scenario: 'RCP85', name: 'heating_degree_days', agg: 'quarterly', extra: '', levels: ['1.5', '4.0'], relativeTo: { param: '1961:1990', span: [1961, 1990], change: 'percent' } },
    { dataset: 'LOCA', scenario: 'RCP85', name: 'max_temperature_threshold', agg: 'custom', extra: 'custom_time_agg=6-1:8-31,12-1:12-31', levels: ['2.0'] },
    { dataset: 'NEX-GDDP-CMIP6', scenario: 'ssp245', name: 'dry_spells', agg: 'custom', extra: 'custom_time_agg=1-1:2-28,6-1:8-31', levels: ['1.0', '3.0'] },
    { dataset: 'NEX-GDDP-CMIP6', scenario: 'ssp585', name: 'frost_days', agg: 'offset_yearly', extra: '', levels: ['2.0'], relativeTo: { param: '1981', span: [1981, 2010], change: 'percent' } },
    { dataset: 'NEX-GDDP-CMIP6', scenario: 'ssp245', name: 'heat_wave_incidents', agg: 'yearly', extra: '', levels: ['1.5', '2.0'], pooled: true },
    // EC-Earth3-Veg's 1.0 °C window (1984-2003) is all historical; CESM2-LENS is in no table.
    { dataset: 'LOCA2', scenario: 'ssp370', name: 'extreme_heat_events', agg: 'yearly', extra: '', levels: ['1.0', '2.0'], relativeTo: { param: '1981', span: [1981, 2010], change: 'absolute' } },
    { dataset: 'LOCA2', scenario: 'ssp585', name: 'average_low_temperature', agg: 'monthly', extra: '', levels: ['1.5'], pooled: true },
    { dataset: 'NEX-GDDP', scenario: 'RCP85', name: 'frost_days', agg: 'yearly', extra: '', levels: ['1.5', '2.0'], relativeTo: { param: '1971', span: [1971, 2000], change: 'absolute' }, place: AREA },
  ];
  it.each(cases.map((c) => [`${c.place ? 'area ' : ''}${c.dataset} ${c.scenario} ${c.name} ${c.agg} ${c.levels.join(',')}${c.relativeTo ? ` relative_to=${c.relativeTo.param} ${c.relativeTo.change}` : ''}${c.pooled ? ' pooled' : ''}`, c] as const))(
    '%s',
    async (_, c) => {
      await check(c);
    },
  );
});

describe('the answer at warming levels', () => {
  const url = (qs: string, scenario = 'RCP85', dataset = 'NEX-GDDP') => `/api/climate-data/${NYC}/${scenario}/indicator/frost_days/?dataset=${dataset}&${qs}`;

  it('has the documented shape, keyed by level, every model of the dataset with a window named', async () => {
    const res = await get(url('warming_level=2,1.5&time_aggregation=monthly&agg=median')).expect(200);
    const body = res.body;
    expect(res.text.indexOf('"01":')).toBeLessThan(res.text.indexOf('"10":'));
    expect(cityIndicatorData.safeParse(body).success, JSON.stringify(cityIndicatorData.safeParse(body).error)).toBe(true);
    // Levels in ascending order, whatever the order asked.
    expect(Object.keys(body.data)).toEqual(['1.5', '2.0']);
    // (JSON.parse puts the integer-like keys 10, 11, 12 first; the text has them in order.)
    expect(Object.keys(body.data['2.0']).sort()).toEqual(['01', '02', '03', '04', '05', '06', '07', '08', '09', '10', '11', '12']);
    // models=all: every model of the dataset with a window is a member; those without data in this build count for nothing.
    const d = DATASETS.find((x) => x.name === 'NEX-GDDP')!;
    const windows = d.models.filter((m) => tableWindow('NEX-GDDP', m, 'RCP85', '2.0'));
    expect(body.warming_levels.levels['2.0'].models.map((m: { model: string }) => m.model)).toEqual(windows);
    expect(body.warming_levels.levels['2.0'].not_in_table).toEqual([{ model: 'MIROC-ESM-CHEM', scenario: 'RCP85' }, { model: 'MIROC-ESM', scenario: 'RCP85' }]);
    expect(body.data['2.0']['01'].model_count).toBe(2);
    expect(body.climate_models).toEqual(d.models);
    const yearly = (await get(url('warming_level=2.0&models=CCSM4')).expect(200)).body;
    expect(Object.keys(yearly.data['2.0'])).toEqual(['min', 'max', 'avg', 'model_count']);
    expect(yearly.data['2.0'].model_count).toBe(1);
  });

  it('answers CSV and Arrow with the level and the model count, the JSON values', async () => {
    const qs = 'warming_level=1.5,2.0&time_aggregation=quarterly&agg=10th,median&relative_to=1971';
    const json = (await get(url(qs)).expect(200)).body;
    const csv = (await get(url(`${qs}&format=csv`)).expect(200)).text.trim().split('\n');
    expect(csv[0]).toBe('location,dataset,scenario,indicator,units,relative_to,change,warming_level,period,statistic,value,model_count');
    expect(csv).toHaveLength(1 + 2 * 4 * 2);
    for (const line of csv.slice(1)) {
      const [location, dataset, scenario, indicator, units, relativeTo, kind, level, period, stat, value, count] = line.split(',');
      expect([location, dataset, scenario, indicator, units, relativeTo, kind]).toEqual([`city/${NYC}`, 'NEX-GDDP', 'RCP85', 'frost_days', 'days', '1971-2000', 'absolute']);
      expect(Number(value)).toBe(json.data[level!][period!][stat!]);
      expect(Number(count)).toBe(json.data[level!][period!].model_count);
    }
    const table = tableFromIPC((await get(url(`${qs}&format=arrow`)).responseType('blob').expect(200)).body as Buffer);
    expect(table.schema.fields.map((f) => f.name)).toEqual(['warming_level', 'period', 'statistic', 'value', 'model_count']);
    expect(JSON.parse(table.schema.metadata.get('warming_levels')!)).toEqual(json.warming_levels);
    const rows = table.toArray().map((r) => r.toJSON());
    expect(rows).toHaveLength(16);
    for (const r of rows) {
      expect(r.value).toBe(json.data[r.warming_level][r.period][r.statistic]);
      expect(r.model_count).toBe(json.data[r.warming_level][r.period].model_count);
    }
    // Pooled, the scenario column names the scenarios pooled.
    const pooled = (await get(url('warming_level=2.0&pool_scenarios=true&format=csv')).expect(200)).text.split('\n');
    expect(pooled[0]).toBe('location,dataset,scenario,indicator,units,warming_level,period,statistic,value,model_count');
    expect(pooled[1]).toMatch(new RegExp(`^city/${NYC},NEX-GDDP,RCP45\\+RCP85,frost_days,days,2.0,,min,`));
  });

  it('answers a batch as the single endpoint, in every format', async () => {
    const qs = 'dataset=NEX-GDDP&warming_level=1.0,2.0&agg=avg,90th&relative_to=1971&change=percent';
    const locations = [{ city: NYC }, { lat: 34.05, lon: -118.25 }, { lat: -45, lon: 170 }];
    const post = (format: string) => request(t.app).post(`/api/climate-data/batch/RCP85/indicator/frost_days/?${qs}&format=${format}`).set('Authorization', `Token ${t.token}`).send({ locations });
    const batch = (await post('json').expect(200)).body;
    expect(batch.warming_levels.levels['2.0'].models.length).toBeGreaterThan(0);
    const single = (await get(`/api/climate-data/${NYC}/RCP85/indicator/frost_days/?${qs}`).expect(200)).body;
    expect(batch.results[0].data).toEqual(single.data);
    expect(batch.warming_levels).toEqual(single.warming_levels);
    const point = (await get(`/api/climate-data/34.05/-118.25/RCP85/indicator/frost_days/?${qs}`).expect(200)).body;
    expect(batch.results[1].data).toEqual(point.data);
    expect(batch.results[2].error.status).toBe(404);
    const csv = (await post('csv').expect(200)).text.trim().split('\n');
    expect(csv[0]).toBe('city,lat,lon,location,dataset,scenario,indicator,units,relative_to,change,warming_level,period,statistic,value,model_count');
    expect(csv).toHaveLength(1 + 2 * 2 * 2);
    expect(csv[1]).toBe(`${NYC},,,city/${NYC},NEX-GDDP,RCP85,frost_days,days,1971-2000,percent,1.0,,avg,${single.data['1.0'].avg},${single.data['1.0'].model_count}`);
    const table = tableFromIPC((await post('arrow').responseType('blob').expect(200)).body as Buffer);
    expect(table.schema.fields.map((f) => f.name)).toEqual(['city', 'lat', 'lon', 'location', 'warming_level', 'period', 'statistic', 'value', 'model_count']);
    const first = table.get(0)!.toJSON();
    expect([first.warming_level, first.statistic, first.value, first.model_count]).toEqual(['1.0', 'avg', single.data['1.0'].avg, single.data['1.0'].model_count]);
  });

  it('answers an area in CSV with the level and the model count', async () => {
    const json = (await get(`/api/climate-data/area/RCP85/indicator/frost_days/?bbox=-119,33,-73,41&warming_level=3.0&agg=avg`).expect(200)).body;
    expect(json.area.properties.cells_with_data).toBe(2);
    const csv = (await get(`/api/climate-data/area/RCP85/indicator/frost_days/?bbox=-119,33,-73,41&warming_level=3.0&agg=avg&format=csv`).expect(200)).text.trim().split('\n');
    expect(csv[1]).toBe(`area/bbox/-119,33,-73,41,NEX-GDDP,RCP85,frost_days,days,3.0,,avg,${json.data['3.0'].avg},${json.data['3.0'].model_count}`.replace('area/bbox/-119,33,-73,41', '"area/bbox/-119,33,-73,41"'));
  });
});

describe('errors at warming levels', () => {
  const bad = async (qs: string, scenario = 'RCP85', dataset = 'NEX-GDDP') => {
    const res = await get(`/api/climate-data/${NYC}/${scenario}/indicator/frost_days/?dataset=${dataset}&${qs}`);
    expect(res.status, qs).toBe(400);
    return res.body.detail as string;
  };

  it('refuses an unknown level, naming the levels', async () => {
    expect(await bad('warming_level=2.5')).toBe("warming_level accepts a comma-separated list of 1.0, 1.5, 2.0, 3.0, 4.0 (°C of global warming above 1850-1900); got '2.5'.");
    expect(await bad('warming_level=2.0,x')).toMatch(/^warming_level accepts .* got 'x'\.$/);
  });

  it('refuses warming_level with years, decadal or window, and pool_scenarios without it', async () => {
    expect(await bad('warming_level=2.0&years=2050:2060')).toMatch(/^warming_level replaces years/);
    expect(await bad('warming_level=2.0&time_aggregation=decadal')).toMatch(/^With warming_level, time_aggregation must be one of yearly, quarterly, monthly, offset_yearly, custom .*got 'decadal'\.$/);
    expect(await bad('warming_level=2.0&time_aggregation=window&windows=2041:2060')).toMatch(/time_aggregation must be one of .*got 'window'/);
    expect(await bad('pool_scenarios=true')).toMatch(/^pool_scenarios applies only with warming_level/);
    expect(await bad('warming_level=2.0&pool_scenarios=yes')).toBe("pool_scenarios must be true or false; got 'yes'.");
  });

  it('refuses a level no model of the scenario reaches, naming the levels that have models', async () => {
    // In this build's RCP4.5 (to 2050): CCSM4 reaches 1.0, 1.5, 2.0; GFDL-ESM2G 1.0 (its 1.5 window ends in 2060); MIROC-ESM is in no table.
    expect(await bad('warming_level=1.5,3.0&models=CCSM4,GFDL-ESM2G,MIROC-ESM', 'RCP45')).toBe(
      "warming_level: no requested model of NEX-GDDP RCP45 reaches 3.0 °C with its window within this data build's years. Levels with models: 1.0 (2), 1.5 (1), 2.0 (1).",
    );
    expect(await bad('warming_level=3.0&models=GFDL-CM4_gr2', 'ssp245', 'NEX-GDDP-CMIP6')).toMatch(/no requested model of NEX-GDDP-CMIP6 ssp245 reaches 3\.0 °C.*Levels with models: 1\.0 \(1\), 1\.5 \(1\), 2\.0 \(1\)\.$/);
    expect(await bad('warming_level=1.0&models=CESM2-LENS', 'ssp370', 'LOCA2')).toMatch(/no requested model of LOCA2 ssp370 reaches 1\.0 °C.*No level has one/);
    expect(await bad('warming_level=2.0', 'historical')).toBe('warming_level needs a scenario that reaches warming levels, one of RCP45, RCP85 for NEX-GDDP; got historical.');
  });

  it('lists per scenario the models whose windows are in this build, which the levels asked for need', async () => {
    const listing = (await get('/api/warming-level/').expect(200)).body;
    const d = DATASETS.find((x) => x.name === 'NEX-GDDP')!;
    const rcp45 = listing.datasets.find((x: { name: string }) => x.name === 'NEX-GDDP').scenarios.find((s: { name: string }) => s.name === 'RCP45');
    for (const level of ['1.0', '1.5', '2.0', '3.0', '4.0']) {
      // historical from 1961, RCP4.5 to 2050 in this build.
      const inData = d.models.filter((m) => {
        const w = tableWindow('NEX-GDDP', m, 'RCP45', level);
        return w !== undefined && w.start >= 1961 && w.end <= 2050;
      });
      expect(rcp45.reaching_in_data[level], level).toBe(inData.length);
      expect(rcp45.reaching[level]).toBeGreaterThanOrEqual(inData.length);
    }
    expect(rcp45.reaching_in_data).toMatchObject({ '1.0': 19, '1.5': 15, '2.0': 6, '3.0': 0 });
  });

  it('counts 20 years per model and level against MAX_MODEL_YEARS', async () => {
    const small = await testApp({ MAX_MODEL_YEARS: '100' }, inject('warmingDataDir'));
    const res = await request(small.app).get(`/api/climate-data/${NYC}/RCP85/indicator/frost_days/?warming_level=1.0,1.5,2.0&models=CCSM4,GFDL-ESM2G`).set('Authorization', `Token ${small.token}`);
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe('This request covers 120 model-years (20 per model and level); the limit is 100. Ask for fewer levels or models.');
    const ok = await request(small.app).get(`/api/climate-data/${NYC}/RCP85/indicator/frost_days/?warming_level=1.0,1.5&models=CCSM4,GFDL-ESM2G`).set('Authorization', `Token ${small.token}`);
    expect(ok.status).toBe(200);
  });

  it('names the windows outside a build that lacks their years, and answers 503 on a build without the table', async () => {
    // The suite's shared build has three years per scenario: no window is in it.
    const shared = await testApp({}, inject('dataDir'));
    const res = await request(shared.app).get(`/api/climate-data/${NYC}/RCP85/indicator/frost_days/?warming_level=2.0`).set('Authorization', `Token ${shared.token}`);
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/no requested model of NEX-GDDP RCP85 reaches 2\.0 °C with its window within this data build's years\. No level has one/);
    // A build made before warming levels: its catalog has no warming-level table.
    const old = fs.mkdtempSync(path.join(os.tmpdir(), 'warming-old-'));
    const source = inject('warmingDataDir');
    for (const entry of fs.readdirSync(source)) if (entry !== 'catalog') fs.symlinkSync(path.join(source, entry), path.join(old, entry));
    fs.mkdirSync(path.join(old, 'catalog'));
    for (const f of fs.readdirSync(path.join(source, 'catalog'))) if (f !== 'warming_level.parquet') fs.symlinkSync(path.join(source, 'catalog', f), path.join(old, 'catalog', f));
    try {
      const before = await testApp({}, old);
      const answer = await request(before.app).get(`/api/climate-data/${NYC}/RCP85/indicator/frost_days/?warming_level=2.0`).set('Authorization', `Token ${before.token}`);
      expect(answer.status).toBe(503);
      expect(answer.body.detail).toMatch(/no warming-level table .* make data/);
      expect((await request(before.app).get('/api/warming-level/').set('Authorization', `Token ${before.token}`).expect(200)).body.datasets[0].scenarios[0].reaching['2.0']).toBe(0);
    } finally {
      fs.rmSync(old, { recursive: true, force: true });
    }
  });
});
