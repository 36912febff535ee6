import { tableFromIPC } from 'apache-arrow';
import request from 'supertest';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { INDICATORS } from '../src/indicators/metadata.js';
import { datasetLacks } from '../src/reference/datasetVariables.js';
import { DuckDBInstance } from '@duckdb/node-api';
import { CLI_SESSION, cliData, runCliScript } from './cliScript.js';
import { testApp, type TestApp } from './helpers.js';
import { cachedBuild } from './support/cachedBuild.js';
import { npPercentile } from './support/percentile.js';

/**
 * relative_to / change and the multi-year aggregations (decadal, window), checked against a
 * computation in TypeScript from the per-model answers: each model asked for alone (models=<one>,
 * agg=avg is its own value) in the requested periods and, from the historical scenario, over the
 * baseline years; the baseline, the change, the windows' means and the statistics across models
 * are then computed here. The suite's dataset has 3 historical years, fewer than a baseline needs,
 * so this file builds its own: one city, 30 historical years (1971-2000, the range starting 1971).
 */

const MODELS: Record<string, string[]> = {
  'NEX-GDDP': ['ACCESS1-0', 'CCSM4', 'MIROC5'],
  LOCA: ['ACCESS1-0', 'CCSM4', 'MIROC5'],
  // CMIP6: a gregorian, a 365-day and a 360-day model; LOCA2 with ssp245 for both.
  'NEX-GDDP-CMIP6': ['ACCESS-CM2', 'CanESM5', 'UKESM1-0-LL'],
  LOCA2: ['ACCESS-CM2', 'TaiESM1'],
};
/** The scenario each dataset's cases ask for. */
const SCENARIO: Record<string, string> = { 'NEX-GDDP': 'RCP85', LOCA: 'RCP85', 'NEX-GDDP-CMIP6': 'ssp585', LOCA2: 'ssp245' };
const BUILD = {
  // Three cities: a batch of them is one statement with relative_to (the last describe).
  climateCities: 3,
  cmip6Cities: 1,
  seed: 11,
  models: MODELS,
  // Historical to 2010 holds CMIP6's 1981-2010 range; the CMIP5 datasets' stops at 2005.
  years: { historical: [1971, 2010], RCP45: [2040, 2041], RCP85: [2040, 2052], ssp126: [2040, 2041], ssp245: [2040, 2052], ssp370: [2040, 2041], ssp585: [2040, 2052] } as Record<string, [number, number]>,
};
const AGGS = ['min', 'max', 'avg', 'median', '90th', 'stddev'];

let tmp: string;
let t: TestApp;
let city: number;
const get = (url: string) => request(t.app).get(url).set('Authorization', `Token ${t.token}`);

beforeAll(async () => {
  tmp = await cachedBuild('indicator-change', BUILD);
  t = await testApp({ THROTTLE_BURST_RATE: '1000000/min', THROTTLE_SUSTAINED_RATE: '100000000/day' }, tmp);
  city = [...t.catalog.cityById.values()].sort((a, b) => b.population - a.population)[0]!.id;
}, 120_000);


/** The indicator's own parameters, so that every indicator can be asked for. */
function ownParams(name: string, dataset: string): string {
  const meta = INDICATORS.find((i) => i.name === name)!;
  const has = (p: string) => meta.parameters.some((x) => x.name === p);
  const q: string[] = [];
  if (has('threshold')) q.push(meta.variables[0] === 'pr' ? 'threshold=1&threshold_units=mm/day&threshold_comparator=gt' : 'threshold=70&threshold_units=F&threshold_comparator=gte');
  if (has('percentile')) q.push('percentile=90');
  // Each dataset's latest range: 1981-2010 exists for CMIP6 only.
  if (has('historic_range')) q.push(`historic_range=${dataset === 'NEX-GDDP-CMIP6' || dataset === 'LOCA2' ? 1981 : 1971}`);
  return q.join('&');
}

type Data = Record<string, Record<string, number | null>>;

async function ask(dataset: string, scenario: string, name: string, qs: string): Promise<{ data: Data; body: Record<string, unknown> }> {
  const res = await get(`/api/climate-data/${city}/${scenario}/indicator/${name}/?dataset=${dataset}&${ownParams(name, dataset)}&${qs}`);
  expect(res.status, `${name} ${qs}: ${JSON.stringify(res.body)}`).toBe(200);
  return { data: res.body.data, body: res.body };
}

/** One model's value per period: asked for alone, its avg is its value. Asked once per test file. */
const asked = new Map<string, Promise<Map<string, number | null>>>();
function modelValues(dataset: string, scenario: string, name: string, model: string, qs: string): Promise<Map<string, number | null>> {
  const key = [dataset, scenario, name, model, qs].join('|');
  if (!asked.has(key)) {
    asked.set(key, ask(dataset, scenario, name, `models=${model}&agg=avg&${qs}`).then(({ data }) => new Map(Object.entries(data).map(([period, stats]) => [period, stats.avg!]))));
  }
  return asked.get(key)!;
}

// ---- the independent computation ----

function statsAcross(values: (number | null)[]): Record<string, number | null> {
  const v = values.filter((x): x is number => x !== null && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return Object.fromEntries(AGGS.map((a) => [a, null]));
  const mean = v.reduce((a, b) => a + b, 0) / v.length;
  return {
    min: v[0]!,
    max: v.at(-1)!,
    avg: mean,
    median: npPercentile(v, 50),
    '90th': npPercentile(v, 90),
    stddev: Math.sqrt(v.reduce((a, x) => a + (x - mean) ** 2, 0) / v.length),
  };
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

/** Which baseline period a period is compared with: the same month ('2050-03'), quarter ('2050-Q1') or custom span ('2050-01'); one for years. */
function slot(agg: string, period: string): string {
  return ['monthly', 'quarterly', 'custom'].includes(agg) ? period.slice(5) : '';
}

function change(value: number | null, base: number | null, kind: string | undefined): number | null {
  if (value === null) return null;
  if (kind === undefined) return value;
  if (base === null) return null;
  if (kind === 'absolute') return value - base;
  return base === 0 ? null : (100 * (value - base)) / base;
}

/** Each model's baseline per slot: the mean of its values of that slot over the baseline periods. */
function baselines(historical: Map<string, number | null>, agg: string): Map<string, number | null> {
  const bySlot = new Map<string, number[]>();
  for (const [period, v] of historical) {
    if (v === null) continue;
    const k = slot(agg, period);
    bySlot.set(k, [...(bySlot.get(k) ?? []), v]);
  }
  return new Map([...bySlot].map(([k, vs]) => [k, mean(vs)]));
}

/** Each model's mean of its yearly values within each window (the years it has there). */
function windowMeans(yearly: Map<string, number | null>, windows: [number, number][]): Map<string, number | null> {
  const out = new Map<string, number | null>();
  for (const [s, e] of windows) {
    const vs = [...yearly].filter(([y, v]) => Number(y) >= s && Number(y) <= e && v !== null).map(([, v]) => v!);
    if (vs.length) out.set(`${s}-${e}`, mean(vs));
  }
  return out;
}

function expectSame(actual: Data, expected: Data, what: string) {
  expect(Object.keys(actual), what).toEqual(Object.keys(expected));
  for (const [period, stats] of Object.entries(expected)) {
    for (const [s, v] of Object.entries(stats)) {
      const a = actual[period]![s];
      if (v === null) expect(a, `${what} ${period} ${s}`).toBeNull();
      else {
        expect(a, `${what} ${period} ${s}`).not.toBeNull();
        expect(a!, `${what} ${period} ${s}`).toBeCloseTo(v, 6);
      }
    }
  }
}

interface Case {
  dataset: string;
  scenario: string;
  name: string;
  /** The time aggregation and its parameters (custom_time_agg, windows). */
  agg: string;
  extra: string;
  years: string;
  /** relative_to and the baseline's years. */
  relativeTo?: { param: string; span: [number, number] };
}

/** The expected answer of a case, from each model's own answers. */
async function expected(c: Case, kind: string | undefined): Promise<Data> {
  const windowed = c.agg === 'decadal' || c.agg === 'window';
  const perModel = await Promise.all(MODELS[c.dataset]!.map(async (model) => {
    const periodsQs = windowed ? 'time_aggregation=yearly' : `time_aggregation=${c.agg}&${c.extra}`;
    let values = await modelValues(c.dataset, c.scenario, c.name, model, `${periodsQs}&${c.years}`);
    if (windowed) {
      const years = [...values.keys()].map(Number);
      const windows: [number, number][] =
        c.agg === 'decadal'
          ? [...new Set(years.map((y) => y - (y % 10)))].map((d) => [d, d + 9])
          : c.extra.replace('windows=', '').split(',').map((w) => w.split(':').map(Number) as [number, number]);
      values = windowMeans(values, windows);
    }
    if (c.relativeTo && kind) {
      const [s, e] = c.relativeTo.span;
      // Offset years of the baseline: those starting s..e-1, whose two calendar years are both in it.
      const last = c.agg === 'offset_yearly' ? e - 1 : e;
      const baseAgg = windowed ? 'yearly' : c.agg;
      const historical = await modelValues(c.dataset, 'historical', c.name, model, `time_aggregation=${baseAgg}&${windowed ? '' : c.extra}&years=${s}:${last}`);
      const base = baselines(historical, baseAgg);
      values = new Map([...values].map(([p, v]) => [p, change(v, base.get(slot(baseAgg, p)) ?? null, kind)]));
    }
    return values;
  }));
  const periods = [...perModel[0]!.keys()];
  return Object.fromEntries(periods.map((p) => [p, statsAcross(perModel.map((m) => m.get(p) ?? null))]));
}

const BASE_AGGS: [string, string][] = [
  ['yearly', ''],
  ['quarterly', ''],
  ['monthly', ''],
  ['offset_yearly', ''],
  ['custom', 'custom_time_agg=1-1:2-28,6-1:8-31'],
];
const WINDOW_AGGS: [string, string][] = [
  ['decadal', ''],
  ['window', 'windows=2041:2050,2045:2060,2040:2040'],
];

/**
 * One indicator of each family (a statistic of a variable, a threshold count, degree days, spells
 * from the monthly run summaries, spells against the historic daily climatology, events over a
 * historic percentile) with every time aggregation on both datasets; every other indicator with
 * two time aggregations in turn, so that each indicator's template is checked.
 */
const FAMILY_REPRESENTATIVES = ['average_high_temperature', 'frost_days', 'heating_degree_days', 'dry_spells', 'heat_wave_incidents', 'extreme_heat_events'];
const ALL_AGGS = [...BASE_AGGS, ...WINDOW_AGGS];

function cases(): Case[] {
  const out: Case[] = [];
  const add = (dataset: string, name: string, [agg, extra]: [string, string], i: number) => {
    // Both forms of relative_to in turn: a historic range's start year (CMIP6's own 1981-2010 on
    // its datasets), and a span of its own.
    const cmip6 = dataset === 'NEX-GDDP-CMIP6' || dataset === 'LOCA2';
    const range = cmip6 ? { param: '1981', span: [1981, 2010] as [number, number] } : { param: '1971', span: [1971, 2000] as [number, number] };
    const relativeTo = i % 2 === 0 ? range : { param: '1981:1992', span: [1981, 1992] as [number, number] };
    const years = WINDOW_AGGS.some(([a]) => a === agg) ? 'years=2040:2052' : 'years=2040:2041';
    out.push({ dataset, scenario: SCENARIO[dataset]!, name, agg, extra, years, relativeTo });
  };
  for (const dataset of ['NEX-GDDP', 'LOCA', 'NEX-GDDP-CMIP6']) for (const name of FAMILY_REPRESENTATIVES) ALL_AGGS.forEach((a, i) => add(dataset, name, a, i));
  for (const name of ['frost_days', 'heat_wave_incidents', 'extreme_heat_events']) ALL_AGGS.forEach((a, i) => add('LOCA2', name, a, i));
  INDICATORS.filter((m) => !FAMILY_REPRESENTATIVES.includes(m.name)).forEach((m, i) => {
    // The humid-heat indicators on the dataset with humidity.
    const dataset = datasetLacks('NEX-GDDP', m.variables).length === 0 ? 'NEX-GDDP' : 'NEX-GDDP-CMIP6';
    add(dataset, m.name, ALL_AGGS[i % ALL_AGGS.length]!, i);
    add(dataset, m.name, ALL_AGGS[(i + 3) % ALL_AGGS.length]!, i + 1);
  });
  return out;
}

describe('change against a baseline, every indicator and time aggregation, the CMIP5 and CMIP6 datasets', () => {
  it.each(cases().map((c) => [`${c.dataset} ${c.name} ${c.agg} relative_to=${c.relativeTo!.param}`, c] as const))('%s', async (_, c) => {
    const common = `time_aggregation=${c.agg}&${c.extra}&${c.years}&agg=${AGGS.join(',')}`;
    for (const kind of ['absolute', 'percent']) {
      const { data, body } = await ask(c.dataset, c.scenario, c.name, `${common}&relative_to=${c.relativeTo!.param}&change=${kind}`);
      expect(body.relative_to).toEqual({ start_year: c.relativeTo!.span[0], end_year: c.relativeTo!.span[1], change: kind });
      expect(body.time_aggregation).toBe(c.agg);
      expect(Object.keys(data).length).toBeGreaterThan(0);
      expectSame(data, await expected(c, kind), `${kind}`);
    }
    if (c.agg === 'decadal' || c.agg === 'window') {
      const { data, body } = await ask(c.dataset, c.scenario, c.name, common);
      expect(body).not.toHaveProperty('relative_to');
      expectSame(data, await expected(c, undefined), 'no baseline');
    }
  });
});

describe('relative_to on the historical scenario itself', () => {
  it.each([
    ['frost_days', 'yearly', ''],
    ['dry_spells', 'monthly', ''],
    ['average_low_temperature', 'window', 'windows=1991:1995,1996:2000'],
  ])('%s %s', async (name, agg, extra) => {
    const c: Case = { dataset: 'NEX-GDDP', scenario: 'historical', name, agg, extra, years: 'years=1991:2000', relativeTo: { param: '1971', span: [1971, 2000] } };
    const { data } = await ask(c.dataset, c.scenario, name, `time_aggregation=${agg}&${extra}&${c.years}&agg=${AGGS.join(',')}&relative_to=1971&change=percent`);
    expectSame(data, await expected(c, 'percent'), 'historical');
  });
});

describe('labels and shapes', () => {
  it('labels decades and windows by their spans, windows in the order given, and reads only their years', async () => {
    const decadal = await ask('NEX-GDDP', 'RCP85', 'frost_days', 'time_aggregation=decadal&years=2049:2051');
    expect(Object.keys(decadal.data)).toEqual(['2040-2049', '2050-2059']);
    const windows = await ask('NEX-GDDP', 'RCP85', 'frost_days', 'time_aggregation=window&windows=2050:2052,2040:2049,2050:2052');
    expect(Object.keys(windows.data)).toEqual(['2050-2052', '2040-2049']);
    // A window past the scenario's end is the mean over the years it has.
    const partial = await ask('NEX-GDDP', 'RCP85', 'frost_days', 'time_aggregation=window&windows=2051:2070&agg=avg');
    const full = await ask('NEX-GDDP', 'RCP85', 'frost_days', 'time_aggregation=window&windows=2051:2052&agg=avg');
    expect(partial.data['2051-2070']).toEqual(full.data['2051-2052']);
    // years narrows a window to the requested years.
    const narrowed = await ask('NEX-GDDP', 'RCP85', 'frost_days', 'time_aggregation=window&windows=2040:2052&years=2051:2052&agg=avg');
    expect(narrowed.data['2040-2052']).toEqual(full.data['2051-2052']);
  });

  it('names the baseline in the Arrow schema metadata, with the JSON values', async () => {
    const url = `/api/climate-data/${city}/RCP85/indicator/frost_days/?relative_to=1981:1990&change=percent&agg=avg&years=2040:2041&format=arrow`;
    const arrowTable = async (u: string) => tableFromIPC((await get(u).responseType('blob').expect(200)).body as Buffer);
    const table = await arrowTable(url);
    expect(JSON.parse(table.schema.metadata.get('relative_to')!)).toEqual({ start_year: 1981, end_year: 1990, change: 'percent' });
    const json = await ask('NEX-GDDP', 'RCP85', 'frost_days', 'relative_to=1981:1990&change=percent&agg=avg&years=2040:2041');
    expect(table.getChild('value')!.toArray()[0]).toBe(json.data['2040']!.avg);
    const plain = await arrowTable(url.replace('relative_to=1981:1990&change=percent&', ''));
    expect(plain.schema.metadata.has('relative_to')).toBe(false);
  });

  it('answers relative_to in CSV too, with the JSON values', async () => {
    const res = await get(`/api/climate-data/${city}/RCP85/indicator/frost_days/?relative_to=1971&time_aggregation=decadal&format=csv&agg=avg`).expect(200);
    const json = await ask('NEX-GDDP', 'RCP85', 'frost_days', 'relative_to=1971&time_aggregation=decadal&agg=avg');
    const lines = res.text.trim().split('\n');
    expect(lines[0]).toBe('location,dataset,scenario,indicator,units,relative_to,change,period,statistic,value');
    expect(lines.length).toBe(1 + Object.keys(json.data).length);
    expect(lines[1]).toBe(`city/${city},NEX-GDDP,RCP85,frost_days,days,1971-2000,absolute,2040-2049,avg,${json.data['2040-2049']!.avg}`);
    const percent = await get(`/api/climate-data/${city}/RCP85/indicator/frost_days/?relative_to=1981:1990&change=percent&years=2040&format=csv&agg=avg`).expect(200);
    expect(percent.text.split('\n')[1]).toMatch(/,days,1981-1990,percent,2040,avg,/);
    const plain = await get(`/api/climate-data/${city}/RCP85/indicator/frost_days/?time_aggregation=decadal&format=csv&agg=avg`).expect(200);
    expect(plain.text.split('\n')[0]).toBe('location,dataset,scenario,indicator,units,period,statistic,value');
  });

  it('one connection serving plain, baseline and window requests in any order gives each the same answer', async () => {
    const one = await testApp({ QUERY_CONCURRENCY: '1', THROTTLE_BURST_RATE: '1000000/min', THROTTLE_SUSTAINED_RATE: '100000000/day' }, tmp);
    const asks = [
      'frost_days/?years=2040:2042',
      'frost_days/?years=2040:2042&relative_to=1971',
      'frost_days/?time_aggregation=decadal&relative_to=1981:1990&change=percent',
      'frost_days/?time_aggregation=custom&custom_time_agg=1-1:2-15&years=2040',
      'dry_spells/?time_aggregation=monthly&years=2041&relative_to=1971',
      'dry_spells/?time_aggregation=monthly&years=2041',
      'heat_wave_incidents/?time_aggregation=window&windows=2041:2050',
      'heat_wave_incidents/?time_aggregation=offset_yearly&years=2041:2042&relative_to=1971',
      'average_high_temperature/?time_aggregation=quarterly&years=2041&units=C&relative_to=1971',
    ];
    const answers = async (order: string[]) => {
      const out = new Map<string, unknown>();
      for (const a of order) {
        const res = await request(one.app).get(`/api/climate-data/${city}/RCP85/indicator/${a}`).set('Authorization', `Token ${one.token}`);
        expect(res.status, `${a}: ${JSON.stringify(res.body)}`).toBe(200);
        out.set(a, res.body.data);
      }
      return out;
    };
    const forward = await answers(asks);
    const backward = await answers([...asks].reverse());
    for (const a of asks) {
      expect(Object.keys(forward.get(a) as object).length, a).toBeGreaterThan(0);
      expect(backward.get(a), a).toEqual(forward.get(a));
    }
    expect(forward.get(asks[1]!)).not.toEqual(forward.get(asks[0]!));
  });
});

/**
 * A batch of the build's cities on one pooled connection is one statement (QueryPool.groups): each
 * cell's change against its own baseline, as its single request answers it, byte for byte.
 */
describe('relative_to for many cells in one statement', () => {
  let one: TestApp;
  let cities: number[];
  beforeAll(async () => {
    one = await testApp({ QUERY_CONCURRENCY: '1', THROTTLE_BURST_RATE: '1000000/min', THROTTLE_SUSTAINED_RATE: '100000000/day' }, tmp);
    const cellOf = (id: number) => one.catalog.cityCells.get(id)?.get('NEX-GDDP');
    const byCell = new Map<number, number>();
    for (const c of one.catalog.cityById.values()) {
      const cell = cellOf(c.id);
      if (cell !== undefined && one.catalog.mapCells.has('NEX-GDDP', cell) && !byCell.has(cell)) byCell.set(cell, c.id);
    }
    cities = [...byCell.values()];
  });
  it.each([
    'frost_days/?years=2040:2042&relative_to=1971',
    'heat_wave_incidents/?time_aggregation=monthly&years=2041&relative_to=1971&change=percent',
    'dry_spells/?time_aggregation=custom&custom_time_agg=5-1:9-30&years=2040:2045&relative_to=1981:1990',
    'accumulated_freezing_degree_days/?time_aggregation=offset_yearly&years=2040:2045&relative_to=1971',
    'extreme_heat_events/?time_aggregation=window&windows=2040:2049,2043:2052&relative_to=1971&percentile=90',
  ])('%s', async (ask) => {
    expect(cities.length).toBeGreaterThanOrEqual(3);
    const [path, qs] = ask.split('?');
    const singles: string[] = [];
    for (const city of cities) {
      const res = await request(one.app).get(`/api/climate-data/${city}/RCP85/indicator/${ask}`).set('Authorization', `Token ${one.token}`);
      expect(res.status, res.text).toBe(200);
      singles.push(res.text.slice(res.text.indexOf(',"data":') + ',"data":'.length, -1));
    }
    expect(new Set(singles).size, 'the cells answer differently').toBe(cities.length);
    const runs = vi.spyOn(one.queries, 'run');
    try {
      const res = await request(one.app)
        .post(`/api/climate-data/batch/RCP85/indicator/${path}?${qs}`)
        .set('Authorization', `Token ${one.token}`)
        .send({ locations: cities.map((city) => ({ city })) })
        .expect(200);
      expect(runs).toHaveBeenCalledTimes(1);
      const entries = res.text.split(',"data":').slice(1);
      cities.forEach((_, i) => expect(entries[i]!.startsWith(`${singles[i]!}}`), `cell ${i}`).toBe(true));
    } finally {
      runs.mockRestore();
    }
  });
});

/**
 * The DuckDB CLI session (sql/indicators/cli-session.sql) with a baseline and windows set, as
 * docs/indicators.md describes them, gives the API's answer: one indicator of each family, both change kinds.
 */
describe('relative_to and windows in a DuckDB CLI session', () => {
  const cases = FAMILY_REPRESENTATIVES.flatMap((name) => ['absolute', 'percent'].map((change) => [name, change] as const));
  it.each(cases)('%s, change=%s', async (name, change) => {
    const cell = t.catalog.cityCells.get(city)!.get('NEX-GDDP')!;
    const meta = INDICATORS.find((i) => i.name === name)!;
    const script = CLI_SESSION.replaceAll("'data/build/", `'${tmp}/`)
      .replaceAll('/752103.parquet', `/${cell}.parquet`)
      .replace(/^SET VARIABLE models = .*$/m, 'SET VARIABLE models = NULL::VARCHAR[];')
      .replace(/^SET VARIABLE years = .*$/m, 'SET VARIABLE years = range(2040, 2053)::INTEGER[];')
      .replace(/^SET VARIABLE windows = .*$/m, 'SET VARIABLE windows = [{s: 2041, e: 2050}, {s: 2045, e: 2052}];')
      .replace(/^SET VARIABLE baseline_years = .*$/m, 'SET VARIABLE baseline_years = range(1971, 2001)::INTEGER[];')
      .replace(/^SET VARIABLE change = .*$/m, `SET VARIABLE change = '${change}';`)
      .replace(/^SET VARIABLE aggs = .*$/m, `SET VARIABLE aggs = ${JSON.stringify(AGGS).replaceAll('"', "'")};`)
      .replace(/^SET VARIABLE units = .*$/m, `SET VARIABLE units = '${meta.defaultUnits}';`)
      // ownParams: 70 F, gte; 1 mm/day, gt; the 90th percentile; the range starting 1971.
      .replace(/^SET VARIABLE threshold = .*$/m, `SET VARIABLE threshold = ${meta.variables[0] === 'pr' ? 1 / 86400 : ((70 - 32) * 5) / 9 + 273.15};`)
      .replace(/^SET VARIABLE comparator = .*$/m, `SET VARIABLE comparator = '${meta.variables[0] === 'pr' ? 'gt' : 'gte'}';`)
      .replace(/^SET VARIABLE percentile = .*$/m, 'SET VARIABLE percentile = 90;')
      .replace(/^\.read sql\/indicators\/average_high_temperature\.sql$/m, `.read sql/indicators/${name}.sql`);
    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    try {
      const cli = cliData(await runCliScript(conn, script));
      const { data } = await ask('NEX-GDDP', 'RCP85', name, `time_aggregation=window&windows=2041:2050,2045:2052&years=2040:2052&agg=${AGGS.join(',')}&relative_to=1971&change=${change}`);
      expect(Object.keys(cli)).toEqual(['2041-2050', '2045-2052']);
      for (const [period, stats] of Object.entries(data)) {
        for (const [stat, value] of Object.entries(stats)) {
          if (value === null) expect(cli[period]![stat], `${period} ${stat}`).toBeNull();
          else expect(cli[period]![stat], `${period} ${stat}`).toBeCloseTo(value, 6);
        }
      }
    } finally {
      conn.closeSync();
      db.closeSync();
    }
  });
});

describe('relative_to, change and windows: 400s', () => {
  const bad: [string, RegExp][] = [
    ['relative_to=1972', /^relative_to must be the start year of a historic range \(1951, 1961, 1971\) or a span YYYY:YYYY of at least 10 historical years; got '1972', which starts no historic range/],
    // This file's build: historical 1971-2005 for CMIP5 (1971-2010 for CMIP6).
    ['relative_to=1951', /^relative_to .*1951-1980 is not within the historical years of this data, 1971-2005/],
    ['relative_to=1965:1980', /1965-1980 is not within the historical years of this data, 1971-2005/],
    ['relative_to=1997:2006', /1997-2006 is not within the historical years/],
    ['relative_to=1981', /^relative_to .*1981-2010 is a range of NEX-GDDP-CMIP6, LOCA2 only: NEX-GDDP's historical run ends in 2005/],
    ['relative_to=1990:1980', /^relative_to .*in '1990:1980' the start year is after the end year/],
    ['relative_to=1981:1989', /^relative_to .*1981-1989 has 9/],
    ['relative_to=abc', /^relative_to must be .*; got 'abc'/],
    ['relative_to=1971&change=relative', /^change must be one of absolute, percent; got 'relative'/],
    ['change=percent', /^change applies only with relative_to/],
    ['time_aggregation=window', /^windows is required when time_aggregation is window/],
    ['windows=2041:2050', /^If windows is provided, param time_aggregation must equal "window"/],
    ['time_aggregation=decadal&windows=2041:2050', /^If windows is provided/],
    ['time_aggregation=window&windows=2050:2041', /^windows: in '2050:2041' the start year must not be after the end year/],
    ['time_aggregation=window&windows=2041-2050', /^windows accepts comma-separated year spans start:end.*got '2041-2050'/],
    ['time_aggregation=window&windows=1990:2000', /^windows: 1990:2000 has no year within this scenario's years, 2040-2052/],
    [`time_aggregation=window&windows=${Array.from({ length: 21 }, (_, i) => `${2040 + i}:2060`).join(',')}`, /^windows accepts at most 20 spans; got 21/],
    ['time_aggregation=decade', /^time_aggregation must be one of yearly, quarterly, monthly, offset_yearly, custom, decadal, window; got 'decade'/],
  ];
  it('names the parameter and what it accepts', async () => {
    for (const [qs, re] of bad) {
      const res = await get(`/api/climate-data/${city}/RCP85/indicator/frost_days/?${qs}`);
      expect(res.status, qs).toBe(400);
      expect(res.body.detail, qs).toMatch(re);
    }
  });

  it('takes 20 windows', async () => {
    const { data } = await ask('NEX-GDDP', 'RCP85', 'frost_days', `time_aggregation=window&windows=${Array.from({ length: 20 }, (_, i) => `${2040 + (i % 13)}:${2052 + i}`).join(',')}`);
    expect(Object.keys(data)).toHaveLength(20);
  });

  it('counts the baseline years in the size of a request', async () => {
    const small = await testApp({ MAX_MODEL_YEARS: String(3 * 13) }, tmp);
    const url = `/api/climate-data/${city}/RCP85/indicator/frost_days/?models=${MODELS['NEX-GDDP']!.join(',')}`;
    const plain = await request(small.app).get(url).set('Authorization', `Token ${small.token}`);
    expect(plain.status, JSON.stringify(plain.body)).toBe(200);
    const res = await request(small.app).get(`${url}&relative_to=1981:1990`).set('Authorization', `Token ${small.token}`).expect(400);
    expect(res.body.detail).toMatch(/23 years x 3 models = 69 model-years; the limit is 39/);
  });
});
